# expect: none
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()
x = torch.randn(60, 4)
labels = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
for epoch in range(25):
    optimizer.zero_grad()
    loss = criterion(model(x), labels)
    loss.backward()
    optimizer.step()
accuracy = (model(x).argmax(dim=1) == labels).float().mean()
print(f"accuracy {accuracy.item():.2f}")
