# expect: graph-freed loss2
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, 3, requires_grad=True)
h = torch.tanh(x @ w)
loss1 = h.sum()
loss2 = (h**2).sum()
loss1.backward()
loss2.backward()
print(w.grad)
