# expect: non-scalar loss
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
for epoch in range(5):
    optimizer.zero_grad()
    loss = (model(x) - y) ** 2
    loss.backward()
    optimizer.step()
