# expect: non-finite w
import torch

target = torch.zeros(3)
w = torch.zeros(3, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    distance = torch.sqrt(((w - target) ** 2).sum())
    distance.backward()
    optimizer.step()
print(w)
