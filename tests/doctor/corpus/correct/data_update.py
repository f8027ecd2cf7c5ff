# expect: none
import torch

torch.manual_seed(0)
x = torch.linspace(0, 1, 20)
y = 1.5 * x - 0.3
a = torch.randn(1, requires_grad=True)
c = torch.randn(1, requires_grad=True)
for step in range(40):
    loss = ((a * x + c - y) ** 2).mean()
    loss.backward()
    a.data -= 0.3 * a.grad.data
    c.data -= 0.3 * c.grad.data
    a.grad.data.zero_()
    c.grad.data.zero_()
