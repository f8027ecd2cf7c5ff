# expect: no-grad model.fc1.weight
# expect: no-grad model.fc1.bias
import torch
import torch.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 10)
        self.fc2 = nn.Linear(10, 1)

    def forward(self, x):
        hidden = self.fc1(x).data
        return self.fc2(torch.tanh(hidden))


torch.manual_seed(1)
model = TwoLayer()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(20, 3)
y = torch.randn(20, 1)
for i in range(15):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
