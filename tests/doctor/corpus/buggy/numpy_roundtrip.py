# expect: no-grad model.fc1.weight
# expect: no-grad model.fc1.bias
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 6)
        self.fc2 = nn.Linear(6, 1)

    def forward(self, x):
        h = self.fc1(x).detach().numpy()
        h = np.maximum(h, 0)  # ReLU in NumPy
        return self.fc2(torch.from_numpy(h))


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(8, 2)
target = torch.randn(8, 1)
for step in range(10):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(x), target)
    loss.backward()
    optimizer.step()
