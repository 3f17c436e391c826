"""Opacus differentially-private training: per-sample gradients through module hooks, torch.func
(functorch) and ExpandedWeights grad samplers, DPDataLoader's Poisson sampling, GradSampleModule,
DPOptimizer clipping and noise, the RDP/PRV/GDP accountants, ModuleValidator on a BatchNorm model, DPLSTM.

The deterministic sections train with ``noise_multiplier=0`` (clipping only) so that the printed numbers
depend on the per-sample gradients alone; one noisy run prints its losses and epsilon as well (the noise is
drawn from the seeded default generator, so those also compare).
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from opacus import GradSampleModule, PrivacyEngine
from opacus.layers import DPLSTM
from opacus.validators import ModuleValidator

warnings.filterwarnings("ignore")


def r(x, n=5):
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return float(f"{x:.{n}g}")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self, norm="group"):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.norm = nn.GroupNorm(2, 8) if norm == "group" else nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2)
        self.fc = nn.Linear(8 * 3 * 3, 3)

    def forward(self, x):
        x = F.relu(self.norm(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


class TextLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.lstm = DPLSTM(8, 12, batch_first=True)
        self.out = nn.Linear(12, 2)

    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        return self.out(h[:, -1])


def data(kind, n=48):
    g = torch.Generator().manual_seed(1)
    if kind == "vec":
        x = torch.randn(n, 16, generator=g)
        y = torch.randint(0, 4, (n,), generator=g)
    elif kind == "img":
        x = torch.randn(n, 1, 8, 8, generator=g)
        y = torch.randint(0, 3, (n,), generator=g)
    else:
        x = torch.randint(0, 20, (n, 4), generator=g)
        y = torch.randint(0, 2, (n,), generator=g)
    return TensorDataset(x, y)


def train(name, model_cls, kind, *, mode="hooks", noise=0.0, poisson=True, accountant="rdp", steps=2,
          lr=0.1, clip=1.0):
    torch.manual_seed(0)
    model = model_cls()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loader = DataLoader(data(kind), batch_size=12, generator=torch.Generator().manual_seed(2))
    pe = PrivacyEngine(accountant=accountant)
    model, opt, loader = pe.make_private(module=model, optimizer=opt, data_loader=loader, noise_multiplier=noise,
                                         max_grad_norm=clip, poisson_sampling=poisson, grad_sample_mode=mode)
    losses, batch_sizes = [], []
    for i, (x, y) in enumerate(loader):
        if i == steps:
            break
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if i == 0:
            shapes = [tuple(p.grad_sample.shape) for p in model.parameters() if p.requires_grad]
            norms = torch.stack([p.grad_sample.flatten(1).norm(dim=1) for p in model.parameters()
                                 if p.requires_grad], 1).norm(dim=1)
        opt.step()
        losses.append(loss.item())
        batch_sizes.append(len(y))
    print(name, "type", type(model).__name__, type(opt).__name__, type(loader).__name__)
    print(name, "grad_sample shapes", shapes)
    print(name, "per-sample norms", r(norms[:6], 4))
    print(name, "batch sizes", batch_sizes)
    print(name, "losses", r(losses))
    print(name, "weights", r(sum(p.detach().abs().sum() for p in model.parameters())))
    if noise > 0:
        print(name, "epsilon", r(pe.get_epsilon(1e-5), 4))
    return model, opt


print("torch", torch.__version__.split("+")[0][:2])

# (a) MLP, hook-based grad samplers, clipping only, then with noise and the three accountants
train("mlp", MLP, "vec")
train("mlp-noisy", MLP, "vec", noise=1.1, steps=3)
for acc in ("rdp", "gdp", "prv"):
    torch.manual_seed(0)
    m = MLP()
    pe = PrivacyEngine(accountant=acc)
    loader = DataLoader(data("vec"), batch_size=12)
    m, o, loader = pe.make_private(module=m, optimizer=torch.optim.SGD(m.parameters(), lr=0.1),
                                   data_loader=loader, noise_multiplier=1.3, max_grad_norm=1.0)
    for x, y in loader:
        o.zero_grad()
        F.cross_entropy(m(x), y).backward()
        o.step()
    print("accountant", acc, "epsilon", r(pe.get_epsilon(1e-5), 3))

# (b) CNN with GroupNorm; ModuleValidator rejects BatchNorm and fixes it
bn = CNN(norm="batch")
errors = ModuleValidator.validate(bn, strict=False)
print("validate batchnorm", len(errors), type(errors[0]).__name__, str(errors[0])[:60])
try:
    ModuleValidator.validate(bn, strict=True)
except Exception as e:
    print("strict validate", type(e).__name__)
fixed = ModuleValidator.fix(bn)
print("fixed norm", type(fixed.norm).__name__, fixed.norm.num_groups, ModuleValidator.is_valid(fixed))
train("cnn", CNN, "img")

# make_private_with_epsilon picks the noise multiplier for a target epsilon
torch.manual_seed(0)
m = CNN()
pe = PrivacyEngine(accountant="rdp")
m, o, loader = pe.make_private_with_epsilon(
    module=m, optimizer=torch.optim.SGD(m.parameters(), lr=0.05),
    data_loader=DataLoader(data("img"), batch_size=12, generator=torch.Generator().manual_seed(3)),
    target_epsilon=3.0, target_delta=1e-5, epochs=2, max_grad_norm=1.0)
print("with_epsilon noise_multiplier", r(o.noise_multiplier, 4))
losses = []
for x, y in loader:  # a few steps of the first epoch (each new Poisson batch size compiles anew)
    o.zero_grad()
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    o.step()
    losses.append(loss.item())
    if len(losses) == 2:
        break
print("with_epsilon losses", r(losses))
print("with_epsilon epsilon", r(pe.get_epsilon(1e-5), 3))

# (c) Embedding + DPLSTM
train("lstm", TextLSTM, "tok", lr=0.5)

# (d) the other grad-sample modes: functorch (torch.func) and ExpandedWeights
train("mlp-functorch", MLP, "vec", mode="functorch")
train("cnn-functorch", CNN, "img", mode="functorch")
train("mlp-ew", MLP, "vec", mode="ew")

# GradSampleModule by hand: hooks versus torch.func on the same batch
torch.manual_seed(0)
x, y = data("img")[:8]
for mode in ("hooks", "functorch"):
    torch.manual_seed(0)
    gsm = GradSampleModule(CNN(), loss_reduction="sum", force_functorch=(mode == "functorch"))
    F.cross_entropy(gsm(x), y, reduction="sum").backward()
    print("gsm", mode, [r(p.grad_sample.norm(), 4) for p in gsm.parameters()])
    # the per-sample gradients sum to the ordinary gradient
    print("gsm", mode, "sum matches grad", all(torch.allclose(p.grad_sample.sum(0), p.grad, atol=1e-5)
                                              for p in gsm.parameters()))
