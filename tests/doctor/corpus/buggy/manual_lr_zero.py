# expect: no-update w
import torch

torch.manual_seed(0)
x = torch.randn(20, 2)
y = x @ torch.tensor([0.5, -1.0])
w = torch.zeros(2, requires_grad=True)
learning_rate = 0.0  # meant 0.01
for step in range(15):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
    w.grad.zero_()
    print(step, loss.item())
