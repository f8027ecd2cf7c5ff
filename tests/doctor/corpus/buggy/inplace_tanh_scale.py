# expect: inplace activation
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 4)
x = torch.randn(2, 4)
activation = torch.tanh(layer(x))
activation.mul_(2)
loss = activation.sum()
loss.backward()
