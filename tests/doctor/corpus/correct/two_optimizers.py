# expect: none
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(6, 3)
decoder = nn.Linear(3, 6)
enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-2)
dec_opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
data = torch.randn(24, 6)
for epoch in range(15):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    loss = nn.functional.mse_loss(decoder(torch.relu(encoder(data))), data)
    loss.backward()
    enc_opt.step()
    dec_opt.step()
