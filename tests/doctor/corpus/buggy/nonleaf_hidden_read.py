# expect: no-grad hidden
import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
w1 = torch.randn(3, 4, requires_grad=True)
w2 = torch.randn(4, 1, requires_grad=True)
hidden = torch.relu(x @ w1)
out = hidden @ w2
loss = out.pow(2).mean()
loss.backward()
print("w1 grad norm", w1.grad.norm().item())
print("hidden grad", hidden.grad)
