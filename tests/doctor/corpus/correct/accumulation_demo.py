# expect: none
import torch

# Not a training loop: two backward calls to watch .grad add up, as a lesson shows it.
x = torch.tensor([1.0, 2.0], requires_grad=True)
for _ in range(2):
    y = (x * x).sum()
    y.backward()
    print(x.grad)
x.grad = None
(3 * x).sum().backward()
print(x.grad)
