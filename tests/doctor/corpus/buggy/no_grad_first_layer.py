# expect: no-grad model.encoder.weight
# expect: no-grad model.encoder.bias
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 3)
        self.decoder = nn.Linear(3, 8)

    def forward(self, x):
        with torch.no_grad():
            code = torch.relu(self.encoder(x))
        return self.decoder(code)


torch.manual_seed(0)
model = AutoEncoder()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(32, 8)
for epoch in range(10):
    optimizer.zero_grad()
    loss = ((model(data) - data) ** 2).mean()
    loss.backward()
    optimizer.step()
print("loss", loss.item())
