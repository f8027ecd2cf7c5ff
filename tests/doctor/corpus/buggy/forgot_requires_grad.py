# expect: no-graph loss
import torch

x = torch.randn(20, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1)
b = torch.zeros(1)
for step in range(10):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
