# expect: no-grad logits
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 3)
x = torch.randn(4, 5)
labels = torch.tensor([0, 2, 1, 0])
logits = model(x)
loss = nn.functional.cross_entropy(logits, labels)
loss.backward()
print("weight grad:", model.weight.grad.shape)
print("logits grad norm:", logits.grad.norm())
