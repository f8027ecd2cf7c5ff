# expect: no-graph loss
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(6, 2)
y = torch.randn(6, 1)
for epoch in range(3):
    optimizer.zero_grad()
    output = model(x).detach()
    loss = nn.MSELoss()(output, y)
    loss.backward()
    optimizer.step()
