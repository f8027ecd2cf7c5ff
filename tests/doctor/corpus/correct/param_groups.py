# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(
    [
        {"params": model[0].parameters(), "lr": 0.01},
        {"params": model[2].parameters(), "lr": 0.1},
    ]
)
x = torch.randn(20, 4)
y = torch.randn(20, 1)
for epoch in range(20):
    optimizer.zero_grad(set_to_none=False)
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
