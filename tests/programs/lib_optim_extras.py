"""Small optimizer/training-utility libraries on a seeded regression MLP: prodigyopt's Prodigy (with bias
correction, safeguard warmup and weight decay, its d estimate read from the param group, state_dict
round-trip), dadaptation's DAdaptAdam/SGD/AdaGrad/Adan/Lion (the d estimate after a few steps),
torch-lr-finder's LRFinder.range_test over a DataLoader (exp and linear modes, with a validation loader,
gradient accumulation, the model/optimizer restored by reset(), plot() with matplotlib's Agg backend), CAME
(came-pytorch) and Adan (adan-pytorch), and pytorch-warmup's UntunedLinearWarmup/ExponentialWarmup/RAdamWarmup dampening torch lr schedulers."""
import io
import os

os.environ.setdefault("MPLBACKEND", "Agg")

import dadaptation  # noqa: E402
from adan_pytorch import Adan  # noqa: E402
from came_pytorch import CAME  # noqa: E402
import prodigyopt  # noqa: E402
import pytorch_warmup as warmup  # noqa: E402
import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torch_lr_finder import LRFinder  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def r(x, n=4):
    return round(float(x), n) + 0.0


g = torch.Generator().manual_seed(0)
X = torch.randn(64, 5, generator=g)
Y = (X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * torch.randn(64, generator=g)).unsqueeze(1)


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def train(opt, m, steps=8):
    for i in range(steps):
        xb, yb = X[8 * (i % 8):8 * (i % 8) + 8], Y[8 * (i % 8):8 * (i % 8) + 8]
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(xb), yb)
        loss.backward()
        opt.step()
    return loss


def sums(m):
    return [r(p.sum()) for p in m.parameters()]


# ---- prodigyopt -------------------------------------------------------------------------------------------
for kw in ({}, {"use_bias_correction": True, "safeguard_warmup": True, "weight_decay": 0.01},
           {"decouple": False, "weight_decay": 0.01, "d_coef": 2.0}, {"beta3": 0.9, "growth_rate": 1.5}):
    m = model()
    opt = prodigyopt.Prodigy(m.parameters(), lr=1.0, **kw)
    loss = train(opt, m)
    print("prodigy", sorted(kw), r(loss), sums(m), "d", r(opt.param_groups[0]["d"], 8))
buf = io.BytesIO()
torch.save(opt.state_dict(), buf)
buf.seek(0)
m2 = model()
opt2 = prodigyopt.Prodigy(m2.parameters(), lr=1.0)
opt2.load_state_dict(torch.load(buf))
print("prodigy state", sorted(opt2.state_dict()["state"][0]), r(opt2.param_groups[0]["d"], 8),
      opt2.param_groups[0]["k"])

# ---- dadaptation ------------------------------------------------------------------------------------------
for name, kw in (("DAdaptAdam", {}), ("DAdaptAdam", {"decouple": True, "weight_decay": 0.01}),
                 ("DAdaptSGD", {"momentum": 0.9}), ("DAdaptAdaGrad", {}), ("DAdaptAdan", {}), ("DAdaptLion", {})):
    m = model()
    opt = getattr(dadaptation, name)(m.parameters(), lr=1.0, **kw)
    loss = train(opt, m)
    print("dadapt", name, sorted(kw), r(loss), sums(m), "d", r(opt.param_groups[0]["d"], 8))

# ---- came-pytorch, adan-pytorch -------------------------------------------------------------------------
for name, make in (("CAME", lambda p: CAME(p, lr=1e-2, weight_decay=1e-2)),
                   ("CAME betas", lambda p: CAME(p, lr=1e-2, betas=(0.8, 0.9, 0.99), eps=(1e-30, 1e-12))),
                   ("Adan", lambda p: Adan(p, lr=1e-2, betas=(0.02, 0.08, 0.01), weight_decay=0.02)),
                   ("Adan restart", lambda p: Adan(p, lr=1e-2, restart_cond=lambda state: state["step"] % 3 == 0))):
    m = model()
    opt = make(m.parameters())
    loss = train(opt, m)
    print(name, r(loss), sums(m))

# ---- torch-lr-finder --------------------------------------------------------------------------------------
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(1))
val_loader = DataLoader(TensorDataset(X[:16], Y[:16]), batch_size=8)
m = model()
opt = torch.optim.SGD(m.parameters(), lr=1e-4, momentum=0.9)
before = sums(m)
finder = LRFinder(m, opt, torch.nn.MSELoss(), device="cpu")
finder.range_test(loader, end_lr=1.0, num_iter=20)
print("lrfinder exp lrs", [r(v, 6) for v in finder.history["lr"]])
print("lrfinder exp losses", [r(v) for v in finder.history["loss"]])
fig, ax = plt.subplots()
ax, suggested = finder.plot(skip_start=2, skip_end=1, ax=ax, suggest_lr=True)
plt.close(fig)
print("lrfinder suggestion", r(suggested, 6), len(ax.lines))
finder.reset()
print("lrfinder reset", sums(m) == before, r(opt.param_groups[0]["lr"], 6))
finder.range_test(loader, val_loader=val_loader, start_lr=1e-3, end_lr=0.5, num_iter=6, step_mode="linear",
                  accumulation_steps=2)
print("lrfinder linear lrs", [r(v, 6) for v in finder.history["lr"]])
print("lrfinder linear val losses", [r(v) for v in finder.history["loss"]])
finder.reset()

# ---- pytorch-warmup ---------------------------------------------------------------------------------------
for name in ("UntunedLinearWarmup", "UntunedExponentialWarmup", "LinearWarmup", "ExponentialWarmup", "RAdamWarmup"):
    m = model()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, betas=(0.9, 0.99))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
    kw = {"warmup_period": 5} if name in ("LinearWarmup", "ExponentialWarmup") else {}
    w = getattr(warmup, name)(opt, **kw)
    lrs = []
    for i in range(12):
        xb, yb = X[8 * (i % 8):8 * (i % 8) + 8], Y[8 * (i % 8):8 * (i % 8) + 8]
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(xb), yb)
        loss.backward()
        opt.step()
        with w.dampening():
            sched.step()
        lrs.append(r(opt.param_groups[0]["lr"], 6))
    print("warmup", name, lrs[:6], lrs[-1], r(loss), sums(m))
