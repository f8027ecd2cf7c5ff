# expect: non-scalar out
import torch

x = torch.tensor([1.0, 2.0, 3.0])
w = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
out = x * w
out.backward()
print(w.grad)
