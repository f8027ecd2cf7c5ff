# expect: vanishing layers.0.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
blocks = []
for i in range(12):
    blocks += [nn.Linear(16, 16), nn.Sigmoid()]
layers = nn.Sequential(*blocks, nn.Linear(16, 1))
optimizer = torch.optim.SGD(layers.parameters(), lr=0.1)
x = torch.randn(32, 16)
y = torch.randn(32, 1)
for epoch in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(layers(x), y)
    loss.backward()
    optimizer.step()
