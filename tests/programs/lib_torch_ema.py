"""torch-ema: ExponentialMovingAverage over a model's parameters during training; store/copy_to/restore,
average_parameters() context, state_dict round trip."""
import torch
import torch.nn as nn
from torch_ema import ExponentialMovingAverage

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8, bias=False), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
ema = ExponentialMovingAverage(model.parameters(), decay=0.9)
x, y = torch.randn(32, 5), torch.randn(32, 1)
for step in range(6):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    ema.update()
    print(f"step {step} loss {loss.item():.6f} num_updates {ema.num_updates}")
sd = ema.state_dict()
model.eval()
with ema.average_parameters():
    print(f"ema_loss {nn.functional.mse_loss(model(x), y).item():.6f}")
print(f"raw_loss {nn.functional.mse_loss(model(x), y).item():.6f}")
ema.store()
ema.copy_to()
print("copied", " ".join(f"{p.sum().item():.6f}" for p in model.parameters()))
ema.restore()
print("restored", " ".join(f"{p.sum().item():.6f}" for p in model.parameters()))
ema2 = ExponentialMovingAverage(model.parameters(), decay=0.5)
ema2.load_state_dict(sd)
print("loaded decay", ema2.decay, "num_updates", ema2.num_updates)
print("shadow", " ".join(f"{p.sum().item():.6f}" for p in ema2.shadow_params))
ema2.to(dtype=torch.float64)
print("dtype", ema2.shadow_params[0].dtype)
