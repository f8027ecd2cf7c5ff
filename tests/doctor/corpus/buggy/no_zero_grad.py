# expect: accumulating model.0.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 4)
y = x[:, :1] * 3
for epoch in range(20):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item())
