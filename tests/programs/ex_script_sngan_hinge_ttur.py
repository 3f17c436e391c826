"""SN-GAN as a training script: a 2-D ring-of-Gaussians target, a generator MLP with BatchNorm, a discriminator
whose layers carry nn.utils.spectral_norm (power iteration buffers; smooth SiLU units and bias-free
layers before BatchNorm, so no gradient is a cancellation that Adam would amplify), the hinge loss for D and G, TTUR (D at 4x
G's learning rate, Adam betas (0.0, 0.9)), n_critic D steps per G step, an EMA copy of G, mode-coverage and
Wasserstein-1-by-sorting metrics, checkpoint of both nets + optimizers + EMA and a resumed step."""
import argparse
import copy
import logging
import math
import os
import sys
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import spectral_norm
from torch.utils.data import DataLoader, TensorDataset, RandomSampler

log = logging.getLogger("sngan")


@dataclass
class GANConfig:
    z_dim: int = 8
    hidden: int = 64
    modes: int = 8
    radius: float = 2.0
    n_data: int = 512
    batch_size: int = 64
    steps: int = 30
    n_critic: int = 2
    lr_g: float = 1e-4
    lr_d: float = 4e-4
    ema: float = 0.99
    seed: int = 2024


def ring_data(cfg, g):
    k = torch.randint(0, cfg.modes, (cfg.n_data,), generator=g)
    angle = 2 * math.pi * k.float() / cfg.modes
    centers = cfg.radius * torch.stack([torch.cos(angle), torch.sin(angle)], 1)
    return centers + 0.05 * torch.randn(cfg.n_data, 2, generator=g), k


class Generator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(cfg.z_dim, cfg.hidden, bias=False), nn.BatchNorm1d(cfg.hidden), nn.ReLU(True),
                                 nn.Linear(cfg.hidden, cfg.hidden, bias=False), nn.BatchNorm1d(cfg.hidden), nn.ReLU(True),
                                 nn.Linear(cfg.hidden, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.net = nn.Sequential(spectral_norm(nn.Linear(2, cfg.hidden)), nn.SiLU(),
                                 spectral_norm(nn.Linear(cfg.hidden, cfg.hidden)), nn.SiLU(),
                                 spectral_norm(nn.Linear(cfg.hidden, 1)))

    def forward(self, x):
        return self.net(x).view(-1)


def d_hinge(real_logits, fake_logits):
    return F.relu(1.0 - real_logits).mean() + F.relu(1.0 + fake_logits).mean()


def g_hinge(fake_logits):
    return -fake_logits.mean()


@torch.no_grad()
def update_ema(ema_model, model, decay):
    for pe, p in zip(ema_model.parameters(), model.parameters()):
        pe.lerp_(p, 1 - decay)
    for be, b in zip(ema_model.buffers(), model.buffers()):
        be.copy_(b)


@torch.no_grad()
def evaluate(gen, cfg, real, n=256, seed=0):
    gen.eval()
    z = torch.randn(n, cfg.z_dim, generator=torch.Generator().manual_seed(seed))
    fake = gen(z)
    gen.train()
    angle = torch.atan2(fake[:, 1], fake[:, 0])
    mode = torch.remainder(torch.round(angle / (2 * math.pi / cfg.modes)), cfg.modes).long()
    centers = cfg.radius * torch.stack([torch.cos(2 * math.pi * mode.float() / cfg.modes),
                                        torch.sin(2 * math.pi * mode.float() / cfg.modes)], 1)
    high_quality = (fake - centers).norm(dim=1) < 0.3
    covered = torch.bincount(mode[high_quality], minlength=cfg.modes) > 0
    # sliced Wasserstein-1 between the samples and the data, by sorting projections
    dirs = F.normalize(torch.randn(16, 2, generator=torch.Generator().manual_seed(1)), dim=1)
    pf = torch.sort(fake @ dirs.T, dim=0).values
    pr = torch.sort(real[:n] @ dirs.T, dim=0).values
    return {"modes": int(covered.sum()), "hq": high_quality.float().mean().item(), "sw1": (pf - pr).abs().mean().item()}


def train_step(G, D, opt_g, opt_d, real_iter, cfg, g):
    for _ in range(cfg.n_critic):
        (real,) = next(real_iter)
        z = torch.randn(real.shape[0], cfg.z_dim, generator=g)
        with torch.no_grad():
            fake = G(z)
        loss_d = d_hinge(D(real), D(fake))
        opt_d.zero_grad(set_to_none=True)
        loss_d.backward()
        opt_d.step()
    z = torch.randn(cfg.batch_size, cfg.z_dim, generator=g)
    loss_g = g_hinge(D(G(z)))
    opt_g.zero_grad(set_to_none=True)
    loss_g.backward()
    opt_g.step()
    return loss_d.item(), loss_g.item()


def infinite(loader):
    while True:
        yield from loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=GANConfig.steps)
    parser.add_argument("--n-critic", type=int, default=GANConfig.n_critic)
    args = parser.parse_args([])
    cfg = GANConfig(steps=args.steps, n_critic=args.n_critic)
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(name)s | %(message)s")
    torch.manual_seed(cfg.seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    g = torch.Generator().manual_seed(cfg.seed)
    data, modes = ring_data(cfg, g)
    print("data", tuple(data.shape), torch.bincount(modes).tolist())
    loader = DataLoader(TensorDataset(data), batch_size=cfg.batch_size, drop_last=True,
                        sampler=RandomSampler(data, generator=torch.Generator().manual_seed(3)))
    G, D = Generator(cfg), Discriminator(cfg)
    G_ema = copy.deepcopy(G).eval().requires_grad_(False)
    print("sn params", [n for n, _ in D.named_parameters()][:2])
    print("sn buffers", [n for n, _ in D.named_buffers()][:2])
    w = D.net[0].weight_orig
    sigma = torch.linalg.matrix_norm(D.net[0].weight.detach(), ord=2)
    print("sn sigma before", f"{torch.linalg.matrix_norm(w.detach(), ord=2).item():.4f}", f"{sigma.item():.4f}")
    opt_g = torch.optim.Adam(G.parameters(), lr=cfg.lr_g, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=cfg.lr_d, betas=(0.0, 0.9))
    real_iter = infinite(loader)
    ckpt_path = os.path.join(tempfile.mkdtemp(), "sngan.pt")
    print("start", evaluate(G, cfg, data))
    for step in range(1, cfg.steps + 1):
        ld, lg = train_step(G, D, opt_g, opt_d, real_iter, cfg, g)
        update_ema(G_ema, G, cfg.ema)
        if step % 10 == 0:
            m = evaluate(G_ema, cfg, data)
            log.info("step %d d_loss %.4f g_loss %.4f ema modes %d hq %.4f sw1 %.4f", step, ld, lg, m["modes"],
                     m["hq"], m["sw1"])
        if step == cfg.steps // 2:
            torch.save({"G": G.state_dict(), "D": D.state_dict(), "G_ema": G_ema.state_dict(),
                        "opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(), "step": step,
                        "rng": torch.get_rng_state(), "gen": g.get_state()}, ckpt_path)
    sigma = torch.linalg.matrix_norm(D.net[2].weight.detach(), ord=2)
    print("sn sigma after", f"{sigma.item():.3f}", D.net[2].weight_u.shape, f"{D.net[2].weight_u.norm().item():.4f}")

    ck = torch.load(ckpt_path, weights_only=True)
    G2, D2 = Generator(cfg), Discriminator(cfg)
    print("load", G2.load_state_dict(ck["G"]), D2.load_state_dict(ck["D"]), sorted(ck["D"])[:3])
    o_g = torch.optim.Adam(G2.parameters(), lr=cfg.lr_g, betas=(0.0, 0.9))
    o_d = torch.optim.Adam(D2.parameters(), lr=cfg.lr_d, betas=(0.0, 0.9))
    o_g.load_state_dict(ck["opt_g"])
    o_d.load_state_dict(ck["opt_d"])
    g.set_state(ck["gen"])
    torch.set_rng_state(ck["rng"])
    print("resumed at", ck["step"], o_d.param_groups[0]["lr"] / o_g.param_groups[0]["lr"], o_d.param_groups[0]["betas"])
    ld, lg = train_step(G2, D2, o_g, o_d, infinite(loader), cfg, g)
    print(f"resumed step d_loss {ld:.4f} g_loss {lg:.4f}")
    print("params G", sum(p.numel() for p in G.parameters()), "D", sum(p.numel() for p in D.parameters()))
    print(D)


if __name__ == "__main__":
    main()
