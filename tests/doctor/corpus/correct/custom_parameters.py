# expect: none
import torch
import torch.nn as nn


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self.shift = nn.Parameter(torch.zeros(3))

    def forward(self, x):
        return x * self.scale + self.shift


torch.manual_seed(0)
layer = Affine()
optimizer = torch.optim.Adam(layer.parameters(), lr=0.05)
x = torch.randn(20, 3)
target = 2 * x + 1
for step in range(20):
    optimizer.zero_grad()
    loss = ((layer(x) - target) ** 2).mean()
    loss.backward()
    optimizer.step()
