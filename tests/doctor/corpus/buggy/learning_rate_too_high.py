# expect: exploding w
import torch

torch.manual_seed(0)
x = torch.randn(100, 1) * 10
y = 3 * x + 2
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.5)
for epoch in range(8):
    optimizer.zero_grad()
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
