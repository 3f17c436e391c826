"""Energy-based models and score matching (wgrathwohl/JEM, yilundu/improved_contrastive_divergence,
ermongroup/ncsn and sliced_score_matching idioms; own code, 2-D synthetic data).

An energy MLP with ``nn.SiLU`` and spectral-normalised layers (``torch.nn.utils.parametrizations.spectral_norm``)
trained by contrastive divergence with SGLD negatives: ``torch.autograd.grad(energy.sum(), x)`` with respect to
the inputs inside the sampler, Langevin steps with Gaussian noise, a replay buffer re-initialised at 5% by
``torch.rand`` / ``torch.where``, the model switched to ``eval`` and its parameters' ``requires_grad_(False)``
during sampling, energy-magnitude regularisation; JEM's classifier-as-energy (``logsumexp`` of the logits);
denoising score matching over a geometric ladder of noise levels (NCSN, sigma-conditioned ``Embedding``) with
annealed Langevin sampling; sliced score matching whose loss needs ``autograd.grad(..., create_graph=True)``
(a Hessian-vector product through the score network, then ``backward``) and the exact Jacobian trace by
``torch.autograd.functional.jacobian`` for comparison. Adam with ``clip_grad_norm_`` and ``OneCycleLR``,
bfloat16 CPU ``autocast`` for a scoring pass, ``torch.no_grad`` metrics and a ``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.parametrizations import spectral_norm

torch.manual_seed(0)


def two_moons(n, gen=None):
    t = torch.rand(n, generator=gen) * math.pi
    upper = torch.rand(n, generator=gen) < 0.5
    x = torch.where(upper, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(upper, torch.sin(t), 0.5 - torch.sin(t))
    pts = torch.stack([x, y], 1) + 0.08 * torch.randn(n, 2, generator=gen)
    return (pts - torch.tensor([0.5, 0.25])) * 1.5, upper.long()


class EnergyNet(nn.Module):
    def __init__(self, h=32, n_classes=2, sn=True):
        super().__init__()
        wrap = spectral_norm if sn else (lambda m: m)
        self.body = nn.Sequential(wrap(nn.Linear(2, h)), nn.SiLU(), wrap(nn.Linear(h, h)), nn.SiLU())
        self.logits = nn.Linear(h, n_classes)

    def classify(self, x):
        return self.logits(self.body(x))

    def forward(self, x):
        return -torch.logsumexp(self.classify(x), 1)  # JEM: E(x) = -logsumexp f(x)


def sgld(model, x, steps=10, step_size=0.05, noise=0.01):
    was_training = model.training
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    x = x.clone().detach()
    for _ in range(steps):
        x.requires_grad_(True)
        grad = torch.autograd.grad(model(x).sum(), x)[0]
        x = (x - step_size * grad + noise * torch.randn_like(x)).detach()
    for p in model.parameters():
        p.requires_grad_(True)
    model.train(was_training)
    return x


gen = torch.Generator().manual_seed(1)
data, labels = two_moons(256, gen)
print("data", tuple(data.shape), f"{data.mean():.4f} {data.std():.4f}", labels[:6].tolist())
ebm = EnergyNet()
print("parametrized", [n for n, _ in ebm.named_parameters()][:3],
      type(ebm.body[0].parametrizations.weight[0]).__name__)
opt = torch.optim.Adam(ebm.parameters(), lr=3e-3, betas=(0.0, 0.999))
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=8, pct_start=0.25)
buffer = torch.rand(128, 2) * 4 - 2
for step in range(8):
    idx = torch.randint(0, 256, (32,))
    xb, yb = data[idx], labels[idx]
    bidx = torch.randint(0, buffer.size(0), (32,))
    init = buffer[bidx]
    fresh = torch.rand(32, 1) < 0.05
    init = torch.where(fresh, torch.rand(32, 2) * 4 - 2, init)
    neg = sgld(ebm, init)
    buffer[bidx] = neg
    e_pos, e_neg = ebm(xb), ebm(neg)
    cd = e_pos.mean() - e_neg.mean()
    reg = 0.1 * (e_pos.pow(2).mean() + e_neg.pow(2).mean())
    ce = F.cross_entropy(ebm.classify(xb), yb)
    loss = cd + reg + ce
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(ebm.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"ebm step {step} cd {cd.item():.4f} ce {ce.item():.4f} gn {gn:.4f}")
with torch.no_grad():
    acc = (ebm.classify(data).argmax(1) == labels).float().mean()
    e_data, e_noise = ebm(data).mean(), ebm(torch.rand(256, 2) * 4 - 2).mean()
    sigma = torch.linalg.matrix_norm(ebm.body[2].weight, ord=2)
print(f"ebm acc {acc:.4f} energy data {e_data:.4f} noise {e_noise:.4f} sn norm {sigma:.4f}")
with torch.autocast("cpu", dtype=torch.bfloat16):
    logits_bf = ebm.classify(data[:8])
print("autocast", logits_bf.dtype, (logits_bf.float() - ebm.classify(data[:8])).abs().max().item() < 0.1)


# ---------------------------------------------------------------- denoising score matching (NCSN)
class ScoreNet(nn.Module):
    def __init__(self, n_sigmas, h=48):
        super().__init__()
        self.fc1 = nn.Linear(2, h)
        self.emb = nn.Embedding(n_sigmas, h)
        self.fc2 = nn.Linear(h, h)
        self.out = nn.Linear(h, 2)

    def forward(self, x, labels, sigmas):
        h = F.softplus(self.fc1(x) + self.emb(labels))
        h = F.softplus(self.fc2(h))
        return self.out(h) / sigmas[labels].unsqueeze(1)


sigmas = torch.tensor(torch.logspace(math.log10(1.0), math.log10(0.05), 6).tolist())
print("sigmas", [round(v, 4) for v in sigmas.tolist()])
score = ScoreNet(len(sigmas))
opt = torch.optim.Adam(score.parameters(), lr=5e-3)
for step in range(10):
    xb = data[torch.randint(0, 256, (64,))]
    lab = torch.randint(0, len(sigmas), (64,))
    s = sigmas[lab].unsqueeze(1)
    noise = torch.randn_like(xb) * s
    target = -noise / s ** 2
    pred = score(xb + noise, lab, sigmas)
    loss = 0.5 * ((pred - target) ** 2).sum(1).mul(s.squeeze(1) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print(f"dsm step {step} loss {loss.item():.4f}")


@torch.no_grad()
def annealed_langevin(model, x, n_steps=4, eps=2e-4):
    for i, sigma in enumerate(sigmas):
        lab = torch.full((x.size(0),), i, dtype=torch.long)
        alpha = eps * (sigma / sigmas[-1]) ** 2
        for _ in range(n_steps):
            x = x + alpha / 2 * model(x, lab, sigmas) + alpha.sqrt() * torch.randn_like(x)
    return x


samples = annealed_langevin(score, torch.rand(64, 2) * 4 - 2)
print("langevin samples", tuple(samples.shape), f"{samples.mean(0).abs().sum():.4f} {samples.std():.4f}")


# ---------------------------------------------------------------- sliced score matching
class Score2(nn.Module):
    def __init__(self, h=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 2))

    def forward(self, x):
        return self.net(x)


def sliced_score_loss(model, x, n_proj=1):
    x = x.unsqueeze(0).expand(n_proj, *x.shape).reshape(-1, x.size(-1)).requires_grad_(True)
    v = torch.randn_like(x)
    s = model(x)
    sv = (s * v).sum()
    grad = torch.autograd.grad(sv, x, create_graph=True)[0]
    loss1 = 0.5 * (s * v).sum(-1) ** 2
    loss2 = (v * grad).sum(-1)
    return (loss1 + loss2).mean()


ssm = Score2()
opt = torch.optim.Adam(ssm.parameters(), lr=3e-3)
for step in range(8):
    xb = data[torch.randint(0, 256, (64,))]
    loss = sliced_score_loss(ssm, xb, n_proj=2)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print(f"ssm step {step} loss {loss.item():.4f}")
print("ssm grads", all(p.grad is not None for p in ssm.parameters()), f"{ssm.net[0].weight.grad.norm():.4f}")

x1 = data[:3]
jac = torch.autograd.functional.jacobian(lambda z: ssm(z).sum(0), x1)  # (2, 3, 2)
trace = torch.stack([jac[0, :, 0], jac[1, :, 1]]).sum(0)
xr = x1.clone().requires_grad_()
sc = ssm(xr)
tr2 = sum(torch.autograd.grad(sc[:, i].sum(), xr, create_graph=True)[0][:, i] for i in range(2))
print("jacobian trace", [round(v, 4) for v in trace.tolist()], torch.allclose(trace, tr2, atol=1e-6),
      tr2.requires_grad)
hvp = torch.autograd.functional.hvp(lambda z: ssm(z).pow(2).sum(), x1, torch.ones_like(x1))[1]
print("hvp", tuple(hvp.shape), f"{hvp.abs().sum():.4f}")

buf = io.BytesIO()
torch.save({"ebm": ebm.state_dict(), "score": score.state_dict()}, buf)
buf.seek(0)
state = torch.load(buf)
e2 = EnergyNet()
print("keys", [k for k in state["ebm"] if "parametrizations" in k][:3])
print("load", e2.load_state_dict(state["ebm"]))
with torch.no_grad():
    e2.eval()
    ebm.eval()
    print("same energies", torch.allclose(e2(data[:16]), ebm(data[:16]), atol=1e-6))
