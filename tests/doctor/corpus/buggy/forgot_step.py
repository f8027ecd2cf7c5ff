# expect: no-update model.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 3)
y = torch.randn(10, 1)
for epoch in range(20):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
