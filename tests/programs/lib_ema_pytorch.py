"""ema-pytorch: EMA of a small model's weights (warmup schedule, update_every, buffers included) while it trains,
the EMA model's outputs, its state_dict round trip, and PostHocEMA-free copy_params_from_ema_to_model.  Prints one
line per measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from ema_pytorch import EMA

rng = np.random.default_rng(0)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
ema = EMA(net, beta=0.99, update_after_step=2, update_every=2, inv_gamma=1.0, power=0.75)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.from_numpy(rng.standard_normal((32, 6)).astype(np.float32))
y = torch.from_numpy(rng.standard_normal((32, 2)).astype(np.float32))
for step in range(10):
    loss = torch.nn.functional.mse_loss(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update()
    print(f"step {step} loss {loss.item():.6f} ema step {ema.step.item()} decay {ema.get_current_decay():.6f}")
ema.eval()
net.eval()
with torch.no_grad():
    print(f"online output {net(x).abs().sum().item():.5f} ema output {ema(x).abs().sum().item():.5f}")
    w, e = net[0].weight, ema.ema_model[0].weight
    print(f"weight gap {(w - e).abs().sum().item():.5f} running_mean {ema.ema_model[1].running_mean.sum().item():.5f}")
state = ema.state_dict()
again = EMA(net, beta=0.99, update_after_step=2, update_every=2, inv_gamma=1.0, power=0.75)
again.load_state_dict(state)
with torch.no_grad():
    print(f"reloaded ema output {again(x).abs().sum().item():.5f}")
ema.copy_params_from_ema_to_model()
with torch.no_grad():
    print(f"model after copy {net(x).abs().sum().item():.5f}")
