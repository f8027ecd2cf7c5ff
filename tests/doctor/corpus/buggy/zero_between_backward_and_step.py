# expect: cleared-before-step model.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(40, 5)
y = x.sum(dim=1, keepdim=True)
for epoch in range(20):
    prediction = model(x)
    loss = nn.functional.mse_loss(prediction, y)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
print(loss.item())
