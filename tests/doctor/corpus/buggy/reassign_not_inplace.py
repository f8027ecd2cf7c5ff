# expect: no-grad w
import torch

x = torch.randn(10, 1)
y = 3 * x
w = torch.randn(1, requires_grad=True)
for step in range(5):
    loss = ((w * x - y) ** 2).mean()
    loss.backward()
    w = w - 0.1 * w.grad
