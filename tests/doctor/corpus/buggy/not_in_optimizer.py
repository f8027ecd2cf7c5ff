# expect: not-in-optimizer model.fc1.weight
# expect: not-in-optimizer model.fc1.bias
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.fc2 = nn.Linear(12, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.fc2.parameters(), lr=0.1)
x = torch.randn(20, 6)
labels = torch.randint(0, 2, (20,))
for epoch in range(10):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
