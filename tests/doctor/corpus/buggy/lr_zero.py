# expect: no-update model.0.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Sigmoid(), nn.Linear(8, 1))
lr = 0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
x = torch.randn(12, 2)
y = (x[:, :1] > 0).float()
for epoch in range(10):
    optimizer.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(model(x), y)
    loss.backward()
    optimizer.step()
