# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_x, train_y = torch.randn(40, 3), torch.randn(40, 1)
val_x, val_y = torch.randn(10, 3), torch.randn(10, 1)
history = []
for epoch in range(10):
    model.train()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(train_x), train_y)
    loss.backward()
    optimizer.step()
    history.append(loss.item())
    model.eval()
    with torch.no_grad():
        val_loss = nn.functional.mse_loss(model(val_x), val_y)
    print(epoch, round(history[-1], 4), round(val_loss.item(), 4))
