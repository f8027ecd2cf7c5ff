# expect: none
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, 3, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.01)
for step in range(5):
    optimizer.zero_grad()
    h = torch.tanh(x @ w)
    loss1 = h.sum()
    loss2 = (h**2).sum()
    loss1.backward(retain_graph=True)
    loss2.backward()
    optimizer.step()
