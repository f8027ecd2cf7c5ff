# expect: none
import torch

torch.manual_seed(0)
x = torch.randn(50, 3)
true_w = torch.tensor([1.0, -2.0, 0.5])
y = x @ true_w
w = torch.zeros(3, requires_grad=True)
for step in range(30):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad = None
print(w)
