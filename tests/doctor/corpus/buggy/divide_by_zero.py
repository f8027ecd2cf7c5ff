# expect: non-finite scale
import torch

x = torch.randn(8)
scale = torch.zeros(1, requires_grad=True)
shift = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([scale, shift], lr=0.01)
for step in range(3):
    optimizer.zero_grad()
    y = x / scale + shift
    loss = y.pow(2).mean()
    loss.backward()
    optimizer.step()
