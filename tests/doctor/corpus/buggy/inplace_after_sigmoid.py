# expect: inplace h
import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
w1 = torch.randn(3, 4, requires_grad=True)
w2 = torch.randn(4, 1, requires_grad=True)
h = torch.sigmoid(x @ w1)
h += 1
out = h @ w2
loss = out.mean()
loss.backward()
