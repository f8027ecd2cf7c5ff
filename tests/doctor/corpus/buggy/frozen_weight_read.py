# expect: no-grad w
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
y = torch.tensor([[1.0], [2.0]])
w = torch.randn(3, 1)
b = torch.zeros(1, requires_grad=True)
lr = 0.01
for step in range(10):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        b -= lr * b.grad
        w -= lr * w.grad
    b.grad.zero_()
