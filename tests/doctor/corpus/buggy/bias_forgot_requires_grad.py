# expect: no-grad b
import torch

torch.manual_seed(0)
x = torch.randn(30, 2)
y = x @ torch.tensor([1.5, -0.5]) + 1.0
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1)
for step in range(10):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    w.grad.zero_()
