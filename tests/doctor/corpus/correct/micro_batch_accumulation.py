# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 6)
y = x.mean(dim=1, keepdim=True)
accumulation_steps = 4
for epoch in range(3):
    for i, (xb, yb) in enumerate(zip(x.split(8), y.split(8))):
        loss = nn.functional.mse_loss(model(xb), yb) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
