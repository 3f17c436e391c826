"""FrEIA (Framework for Easily Invertible Architectures): normalizing flows trained by maximum likelihood. A
SequenceINN of AllInOneBlocks (soft permutations, ActNorm, affine clamping) on a seeded 2-D two-moons set; a
conditional SequenceINN of GLOWCouplingBlocks and PermuteRandom with a class condition, sampled through the
inverse; a GraphINN over images (HaarDownsampling, RNVP coupling with a conv subnet, IRevNetDownsampling, Flatten,
Split/Concat, NICE coupling); an invertible ResNet layer (IResNetLayer) inverted by fixed-point iteration; and
log-Jacobian determinants checked against the inverse pass."""
import math

import numpy as np
import torch
import torch.nn as nn

import FrEIA.framework as Ff
import FrEIA.modules as Fm


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


def fc(c_in, c_out):
    return nn.Sequential(nn.Linear(c_in, 32), nn.ReLU(), nn.Linear(32, c_out))


def conv(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, c_out, 3, padding=1))


def nll(z, log_jac):
    return (0.5 * (z ** 2).sum(1) - log_jac).mean() / z.shape[1] + 0.5 * math.log(2 * math.pi)


# two moons
torch.manual_seed(0)
t = torch.rand(256) * math.pi
upper = torch.rand(256) < 0.5
moons = torch.stack([torch.where(upper, torch.cos(t), 1 - torch.cos(t)),
                     torch.where(upper, torch.sin(t), 0.5 - torch.sin(t))], 1) + 0.05 * torch.randn(256, 2)
labels = upper.long()

np.random.seed(0)
torch.manual_seed(1)
inn = Ff.SequenceINN(2)
for _ in range(4):
    inn.append(Fm.AllInOneBlock, subnet_constructor=fc, affine_clamping=2.0, permute_soft=True)
print("aio params", sum(p.numel() for p in inn.parameters() if p.requires_grad))
opt = torch.optim.Adam([p for p in inn.parameters() if p.requires_grad], lr=2e-3)
for step in range(30):
    opt.zero_grad()
    z, log_jac = inn(moons[(step % 4) * 64:(step % 4 + 1) * 64])
    loss = nll(z, log_jac)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(inn.parameters(), 5.0)
    opt.step()
    if step % 10 == 9:
        print("aio", step, r(loss))
with torch.no_grad():
    z, log_jac = inn(moons[:8])
    x_rec, log_jac_inv = inn(z, rev=True)
print("aio z", r(z[:2]), r(log_jac[:3]))
print("aio inverse", r((x_rec - moons[:8]).abs().max() < 1e-4), r((log_jac + log_jac_inv).abs().max() < 1e-4))

# conditional GLOW with random permutations, sampled per class
torch.manual_seed(2)
cinn = Ff.SequenceINN(2)
for k in range(3):
    cinn.append(Fm.GLOWCouplingBlock, cond=0, cond_shape=(2,), subnet_constructor=fc, clamp=1.5)
    cinn.append(Fm.PermuteRandom, seed=k)
opt = torch.optim.Adam(cinn.parameters(), lr=2e-3)
onehot = nn.functional.one_hot(labels, 2).float()
for step in range(20):
    opt.zero_grad()
    sl = slice((step % 4) * 64, (step % 4 + 1) * 64)
    z, log_jac = cinn(moons[sl], c=[onehot[sl]])
    loss = nll(z, log_jac)
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print("cglow", step, r(loss))
torch.manual_seed(3)
with torch.no_grad():
    zs = torch.randn(6, 2)
    cond = nn.functional.one_hot(torch.tensor([0, 0, 0, 1, 1, 1]), 2).float()
    samples, _ = cinn(zs, c=[cond], rev=True)
print("cglow samples", r(samples, 3))

# GraphINN over 4x8x8 images
torch.manual_seed(4)
inp = Ff.InputNode(4, 8, 8, name="in")
haar = Ff.Node(inp, Fm.HaarDownsampling, {}, name="haar")
rnvp = Ff.Node(haar, Fm.RNVPCouplingBlock, {"subnet_constructor": conv, "clamp": 1.0}, name="rnvp")
down = Ff.Node(rnvp, Fm.IRevNetDownsampling, {}, name="down")
flat = Ff.Node(down, Fm.Flatten, {}, name="flat")
split = Ff.Node(flat, Fm.Split, {"section_sizes": [128, 128], "dim": 0}, name="split")
nice = Ff.Node(split.out0, Fm.NICECouplingBlock, {"subnet_constructor": fc}, name="nice")
cat = Ff.Node([nice.out0, split.out1], Fm.Concat, {"dim": 0}, name="cat")
out = Ff.OutputNode(cat, name="out")
ginn = Ff.GraphINN([inp, haar, rnvp, down, flat, split, nice, cat, out])
imgs = torch.randn(5, 4, 8, 8)
z, log_jac = ginn(imgs)
print("graph", tuple(z.shape), r(z.mean()), r(z.std()), r(log_jac))
opt = torch.optim.SGD(ginn.parameters(), lr=1e-2, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    z, log_jac = ginn(imgs)
    loss = nll(z, log_jac)
    loss.backward()
    opt.step()
    print("graph step", step, r(loss))
with torch.no_grad():
    z, log_jac = ginn(imgs)
    back, lj_inv = ginn(z, rev=True)
print("graph inverse", r((back - imgs).abs().max() < 1e-4), r((log_jac + lj_inv).abs().max() < 1e-3))

# invertible ResNet layer (spectral-normalised residual, inverse by fixed point)
torch.manual_seed(5)
ires = Ff.SequenceINN(3)
ires.append(Fm.ActNorm)
ires.append(Fm.IResNetLayer, hutchinson_samples=2, internal_size=16, n_internal_layers=2)
x3 = torch.randn(10, 3)
torch.manual_seed(6)
z, log_jac = ires(x3)
print("iresnet", r(z[:2]), r(log_jac[:3], 3))
with torch.no_grad():
    # (block by block: SequenceINN adds up the inverse Jacobians, which IResNetLayer's inverse does not give)
    back = ires[1]([z], rev=True, jac=False)[0][0]
    back = ires[0]([back], rev=True, jac=False)[0][0]
print("iresnet inverse", r((back - x3).abs().max(), 3))
