# expect: cleared-before-step model.0.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
data = torch.randn(25, 3)
target = torch.randn(25, 1)
for epoch in range(15):
    optimizer.step()
    loss = nn.functional.l1_loss(model(data), target)
    loss.backward()
    optimizer.zero_grad()
