# expect: no-graph loss
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 4)
y = torch.randn(10, 2)
for step in range(5):
    with torch.inference_mode():
        prediction = model(x)
    loss = nn.functional.mse_loss(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
