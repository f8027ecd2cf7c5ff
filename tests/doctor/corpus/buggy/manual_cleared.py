# expect: cleared-before-step w
import torch

x = torch.randn(50, 2)
y = x @ torch.tensor([2.0, -1.0]) + 0.5
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(20):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    w.grad.zero_()
    b.grad.zero_()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
