# expect: no-grad w
import torch

torch.manual_seed(0)
x = torch.linspace(-1, 1, 50)
y = 2 * x + 1
w = torch.randn(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(30):
    slope = torch.tensor(w.item())
    pred = slope * x + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
