# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
q = nn.Linear(4, 2)
optimizer = torch.optim.SGD(q.parameters(), lr=0.05)
states = torch.randn(16, 4)
next_states = torch.randn(16, 4)
rewards = torch.randn(16)
for step in range(15):
    optimizer.zero_grad()
    target = rewards + 0.9 * q(next_states).max(dim=1).values.detach()
    prediction = q(states).max(dim=1).values
    loss = nn.functional.smooth_l1_loss(prediction, target)
    loss.backward()
    optimizer.step()
