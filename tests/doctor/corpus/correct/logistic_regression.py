# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
features = torch.randn(100, 2)
labels = (features[:, 0] - features[:, 1] > 0).float().unsqueeze(1)
model = nn.Linear(2, 1)
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
for epoch in range(20):
    optimizer.zero_grad()
    loss = loss_fn(model(features), labels)
    loss.backward()
    optimizer.step()
print(loss.item())
