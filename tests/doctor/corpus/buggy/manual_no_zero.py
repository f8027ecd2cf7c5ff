# expect: accumulating w
import torch

torch.manual_seed(0)
x = torch.rand(30, 1)
y = 4 * x - 1
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.05
for i in range(25):
    y_pred = x * w + b
    loss = ((y_pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
print(w.item(), b.item())
