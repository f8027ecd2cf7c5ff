# expect: graph-freed loss
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 3)
y = torch.randn(10, 1)
output = model(x)
for epoch in range(5):
    optimizer.zero_grad()
    loss = ((output - y) ** 2).mean()
    loss.backward()
    optimizer.step()
