# expect: no-grad model.temperature
import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x):
        t = self.temperature.item()
        return self.linear(x) / t


torch.manual_seed(0)
model = Scaled()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 4)
labels = torch.randint(0, 3, (10,))
for epoch in range(10):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
