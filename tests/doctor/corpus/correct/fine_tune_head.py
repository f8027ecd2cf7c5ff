# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(10, 20), nn.ReLU())
head = nn.Linear(20, 2)
for p in backbone.parameters():
    p.requires_grad = False
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(30, 10)
labels = torch.randint(0, 2, (30,))
for epoch in range(15):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(head(backbone(x)), labels)
    loss.backward()
    optimizer.step()
