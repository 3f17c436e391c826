"""LR schedulers printed every step (OneCycleLR three-phase/linear, SequentialLR, ChainedScheduler, LambdaLR,
MultiplicativeLR, ReduceLROnPlateau, CyclicLR, CosineAnnealingWarmRestarts with fractional epochs), their state_dict
round trip and warnings, print(optimizer) after add_param_group; then a run resumed mid-way from a checkpoint of
model, optimizer, scheduler and the torch/numpy/random RNG states equals the uninterrupted run; fork_rng and
Generator objects passed to random_split/DataLoader/randperm/multinomial/bernoulli."""
import io
import numpy as np
import random
import torch
import warnings
from torch import nn, optim
from torch.optim import lr_scheduler as S
from torch.utils.data import DataLoader, TensorDataset, random_split


torch.manual_seed(0)


def make():
    m = nn.Linear(3, 2)
    return m, optim.SGD(m.parameters(), lr=0.1, momentum=0.9)


def run(name, build, steps=12, metric=False):
    m, opt = make()
    sch = build(opt)
    out = []
    for i in range(steps):
        opt.zero_grad()
        m(torch.ones(1, 3)).sum().backward()
        opt.step()
        if metric:
            sch.step(1.0 if i < 3 else 2.0)
        else:
            sch.step()
        out.append(f"{opt.param_groups[0]['lr']:.6g}")
    last = sch.get_last_lr() if hasattr(sch, "get_last_lr") else None
    print(name, " ".join(out), last)
    sd = sch.state_dict()
    print(name, "keys", sorted(k for k in sd))
    print(name, "last_epoch", sd.get("last_epoch"), "base_lrs", sd.get("base_lrs"))


run("onecycle3", lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=13, three_phase=True, anneal_strategy="linear"))
run("onecycle_cos", lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=12, pct_start=0.25, div_factor=10, final_div_factor=100))
run("seq", lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=3), S.ExponentialLR(o, gamma=0.9)], milestones=[3]))
run("chained", lambda o: S.ChainedScheduler([S.StepLR(o, 3, gamma=0.5), S.ExponentialLR(o, gamma=0.95)]))
run("lambda", lambda o: S.LambdaLR(o, lambda e: 1.0 / (1 + e)))
run("mult", lambda o: S.MultiplicativeLR(o, lambda e: 0.9))
run("plateau", lambda o: S.ReduceLROnPlateau(o, factor=0.5, patience=1, cooldown=1, min_lr=0.01), metric=True)
run("poly", lambda o: S.PolynomialLR(o, total_iters=8, power=2.0))
run("cyclic", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"))
run("cosine", lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001))
run("multistep", lambda o: S.MultiStepLR(o, milestones=[2, 5, 9], gamma=0.3))
run("constant", lambda o: S.ConstantLR(o, factor=0.25, total_iters=4))

# warm restarts with fractional epochs
m, opt = make()
sch = S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
vals = []
for epoch in range(4):
    for b in range(4):
        opt.step()
        sch.step(epoch + b / 4)
        vals.append(f"{sch.get_last_lr()[0]:.5f}")
print("warm", " ".join(vals))
print("warm sd", {k: v for k, v in sch.state_dict().items() if k != "_get_lr_called_within_step"})

# state_dict round trip
m, opt = make()
sch = S.OneCycleLR(opt, max_lr=1.0, total_steps=20)
for _ in range(7):
    opt.step()
    sch.step()
sd = sch.state_dict()
m2, opt2 = make()
opt2.load_state_dict(opt.state_dict())
sch2 = S.OneCycleLR(opt2, max_lr=1.0, total_steps=20)
sch2.load_state_dict(sd)
a, b = [], []
for _ in range(5):
    opt.step(); sch.step(); a.append(sch.get_last_lr()[0])
    opt2.step(); sch2.step(); b.append(sch2.get_last_lr()[0])
print("roundtrip", a == b, [f"{x:.5f}" for x in b])

# warnings torch gives
m, opt = make()
sch = S.StepLR(opt, 2)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    sch.step()
    print("warned", len(w), [str(x.message)[:60] for x in w], [x.category.__name__ for x in w])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    opt.step()
    sch.step(5)
    print("epoch warned", len(w), [x.category.__name__ for x in w])
print(opt)
print(type(sch).__name__, sch.last_epoch, sch.get_last_lr())
opt.add_param_group({"params": [nn.Parameter(torch.zeros(2))], "lr": 0.5, "weight_decay": 0.1})
print(opt)
print([g["lr"] for g in opt.param_groups], [sorted(g) for g in opt.param_groups][1])
print(opt.state_dict()["param_groups"])


def seed(s):
    torch.manual_seed(s)
    random.seed(s)
    np.random.seed(s)


def build():
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 1))
    opt = torch.optim.AdamW(m.parameters(), lr=0.01, weight_decay=0.05)
    sch = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.7)
    return m, opt, sch


seed(0)
X = torch.randn(48, 4)
Y = X.sum(1, keepdim=True) + 0.1 * torch.randn(48, 1)
g = torch.Generator().manual_seed(7)
train, val = random_split(TensorDataset(X, Y), [0.75, 0.25], generator=g)
print("split", len(train), len(val), train.indices[:6], val.indices[:4])


def step(m, opt, xb, yb):
    opt.zero_grad()
    noise = torch.randn_like(xb) * 0.01 + float(np.random.rand()) * 0.0 + random.random() * 0.0
    loss = nn.functional.mse_loss(m(xb + noise), yb)
    loss.backward()
    opt.step()
    return loss.item()


def epoch(m, opt, sch, e, losses):
    loader = DataLoader(train, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(100 + e))
    for xb, yb in loader:
        losses.append(step(m, opt, xb, yb))
    sch.step()


seed(1)
m, opt, sch = build()
full = []
for e in range(6):
    epoch(m, opt, sch, e, full)
print("full", " ".join(f"{v:.5f}" for v in full[-6:]))

seed(1)
m, opt, sch = build()
part = []
for e in range(3):
    epoch(m, opt, sch, e, part)
buf = io.BytesIO()
torch.save({"model": m.state_dict(), "opt": opt.state_dict(), "sch": sch.state_dict(),
            "rng": torch.get_rng_state(), "np": np.random.get_state(), "py": random.getstate()}, buf)
buf.seek(0)
for _ in range(5):
    torch.rand(3); random.random(); np.random.rand()
ck = torch.load(buf, weights_only=False)
m2, opt2, sch2 = build()
m2.load_state_dict(ck["model"])
opt2.load_state_dict(ck["opt"])
sch2.load_state_dict(ck["sch"])
torch.set_rng_state(ck["rng"])
np.random.set_state(ck["np"])
random.setstate(ck["py"])
print("rng state", ck["rng"].dtype, tuple(ck["rng"].shape), type(ck["np"]).__name__)
for e in range(3, 6):
    epoch(m2, opt2, sch2, e, part)
print("resumed", " ".join(f"{v:.5f}" for v in part[-6:]))
print("equal", full == part, max(abs(a - b) for a, b in zip(full, part)))
print("lr", sch2.get_last_lr(), opt2.param_groups[0]["lr"], sch2.last_epoch)
print("opt state step", [s["step"] for s in opt2.state_dict()["state"].values()][:2])

with torch.random.fork_rng():
    torch.manual_seed(123)
    a = torch.rand(2)
b = torch.rand(2)
torch.manual_seed(123)
print("fork", torch.equal(a, torch.rand(2)), b.shape)
g = torch.Generator()
g.manual_seed(3)
s = g.get_state()
p1 = torch.randperm(10, generator=g)
g.set_state(s)
p2 = torch.randperm(10, generator=g)
print("gen", p1.tolist(), torch.equal(p1, p2), g.initial_seed())
print("randint", torch.randint(0, 5, (6,), generator=g).tolist(), torch.normal(0.0, 1.0, (3,), generator=g))
print("seed", torch.initial_seed(), torch.default_generator.initial_seed())
torch.manual_seed(5)
print(torch.multinomial(torch.tensor([0.1, 0.3, 0.6]), 5, replacement=True, generator=torch.Generator().manual_seed(2)))
print(torch.bernoulli(torch.full((5,), 0.5), generator=torch.Generator().manual_seed(2)))
