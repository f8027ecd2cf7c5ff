# expect: accumulating net.hidden.weight
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 10)
        self.out = nn.Linear(10, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


torch.manual_seed(0)
net = Regressor()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
x = torch.linspace(-2, 2, 40).unsqueeze(1)
y = x**2
for epoch in range(20):
    prediction = net(x)
    loss = nn.functional.mse_loss(prediction, y)
    loss.backward()
    optimizer.step()
