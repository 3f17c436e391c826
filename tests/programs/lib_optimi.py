"""torch-optimi (optimi): each optimizer (SGD, Adam, AdamW, RAdam, Ranger, Lion, Adan, StableAdamW) training the
same seeded MLP with its decoupled weight decay options; the for-each path; a bfloat16 model from
``to_low_precision`` trained with Kahan summation; ``param_groups_weight_decay``; gradient release (the step
runs inside backward through post-accumulate-grad hooks) and optimizer accumulation; and an optimizer
state_dict round trip."""
import io
import warnings

import optimi
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore", message=".*foreach.*deprecated")


def r(x, n=4):
    return round(float(x), n)


torch.manual_seed(0)
X = torch.randn(48, 6)
Y = (X[:, 0] * X[:, 1] - X[:, 2]).unsqueeze(1)


def make(seed=1, dtype=torch.float32):
    torch.manual_seed(seed)
    m = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.LayerNorm(16), torch.nn.GELU(), torch.nn.Linear(16, 1))
    return m.to(dtype)


def train(model, opt, steps=6, dtype=torch.float32):
    losses = []
    for i in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(X.to(dtype)).float(), Y)
        loss.backward()
        opt.step()
        losses.append(r(loss))
    return losses


CASES = [
    ("SGD", lambda p: optimi.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3, dampening=True)),
    ("SGD decouple_lr", lambda p: optimi.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-4, decouple_lr=True)),
    ("Adam", lambda p: optimi.Adam(p, lr=1e-2)),
    ("Adam decouple_wd", lambda p: optimi.Adam(p, lr=1e-2, weight_decay=1e-2, decouple_wd=True)),
    ("AdamW", lambda p: optimi.AdamW(p, lr=1e-2, weight_decay=1e-2)),
    ("RAdam", lambda p: optimi.RAdam(p, lr=1e-2, weight_decay=1e-2)),
    ("Ranger", lambda p: optimi.Ranger(p, lr=1e-2, k=3)),
    ("Lion", lambda p: optimi.Lion(p, lr=1e-3, weight_decay=1e-2)),
    ("Adan", lambda p: optimi.Adan(p, lr=1e-2, weight_decay=2e-2)),
    ("Adan adam_wd", lambda p: optimi.Adan(p, lr=1e-2, weight_decay=2e-2, adam_wd=True)),
    ("StableAdamW", lambda p: optimi.StableAdamW(p, lr=1e-2, weight_decay=1e-2, triton=False)),
]
for name, build in CASES:
    model = make()
    opt = build(model.parameters())
    print(name, train(model, opt), r(sum(p.abs().sum() for p in model.parameters())))

model = make()
print("foreach Adam", train(model, optimi.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2, foreach=True)))

groups = optimi.param_groups_weight_decay(make(), weight_decay=0.05)
print("groups", [(len(g["params"]), g["weight_decay"]) for g in groups])

# bfloat16 training with Kahan summation (on by default for low-precision parameters)
model = optimi.to_low_precision(make(2), dtype=torch.bfloat16)
print("low precision dtypes", sorted({str(p.dtype) for p in model.parameters()}))
opt = optimi.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
print("bf16 kahan", train(model, opt, dtype=torch.bfloat16))
print("kahan state", sorted(opt.state[model[0].weight]), opt.state[model[0].weight]["kahan_comp"].dtype)
model = make(2).to(torch.bfloat16)
opt = optimi.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2, kahan_sum=False)
print("bf16 no kahan", train(model, opt, dtype=torch.bfloat16))

# gradient release: the optimizer steps each parameter inside backward
model = make(3)
opt = optimi.AdamW(model.parameters(), lr=1e-2, gradient_release=True)
optimi.prepare_for_gradient_release(model, opt)
losses = []
for i in range(4):
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    losses.append(r(loss))
print("gradient release", losses, [p.grad is None for p in model.parameters()])

# optimizer accumulation: gradients of two micro-batches accumulate into the optimizer states
opt.optimizer_accumulation = True
for half in (slice(0, 24), slice(24, 48)):
    F.mse_loss(model(X[half]), Y[half]).backward()
opt.optimizer_accumulation = False
loss = F.mse_loss(model(X), Y)
loss.backward()
print("accumulation", r(loss), r(model[0].weight.sum()))
optimi.remove_gradient_release(model)

# state_dict round trip
model = make(4)
opt = optimi.RAdam(model.parameters(), lr=1e-2)
train(model, opt, steps=3)
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ckpt = torch.load(buf)
model2 = make(5)
model2.load_state_dict(ckpt["model"])
opt2 = optimi.RAdam(model2.parameters(), lr=1e-2)
opt2.load_state_dict(ckpt["opt"])
print("state keys", sorted(ckpt["opt"]["state"][0]), ckpt["opt"]["param_groups"][0]["lr"])
print("resumed", train(model, opt, steps=2), train(model2, opt2, steps=2))
try:
    optimi.Adam(make().parameters(), lr=1e-3, betas=(1.0, 0.9))
except ValueError as e:
    print("error", e)
