# expect: none
import torch
import torch.nn as nn


class Perceptron(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = nn.Linear(n, 1)

    def forward(self, x):
        return torch.sigmoid(self.linear(x))


torch.manual_seed(0)
model = Perceptron(2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
x = torch.randn(40, 2)
y = (x.sum(dim=1, keepdim=True) > 0).float()
for epoch in range(30):
    model.zero_grad()
    loss = nn.functional.binary_cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
