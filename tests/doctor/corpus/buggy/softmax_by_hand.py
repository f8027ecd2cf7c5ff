# expect: non-finite model.weight
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4) * 100
labels = torch.randint(0, 3, (16,))
for step in range(5):
    optimizer.zero_grad()
    logits = model(x)
    probs = torch.exp(logits) / torch.exp(logits).sum(dim=1, keepdim=True)
    loss = -torch.log(probs[torch.arange(16), labels]).mean()
    loss.backward()
    optimizer.step()
