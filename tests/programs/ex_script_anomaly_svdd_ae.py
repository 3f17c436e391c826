"""Anomaly detection as a training script: normal data on a low-dimensional manifold plus scattered anomalies,
(1) a convolutional-free dense autoencoder pretrained on normal data only, its reconstruction-error threshold
taken as torch.quantile of the validation errors; (2) Deep SVDD initialised from the encoder (bias-free layers,
center c from the mean embedding with near-zero coordinates pushed away), one-class and soft-boundary radius via
torch.quantile; AUROC by sorting, precision/recall/F1 at the threshold, a confusion matrix via bincount;
a checkpoint with both models, the center, radius and optimizer states, then reloaded for scoring."""
import argparse
import logging
import os
import sys
import tempfile
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

logger = logging.getLogger("anomaly")


@dataclass
class Cfg:
    dim: int = 12
    latent: int = 3
    n_normal: int = 384
    n_anomal: int = 24
    ae_epochs: int = 10
    svdd_epochs: int = 5
    batch_size: int = 64
    lr: float = 1e-2
    nu: float = 0.05
    seed: int = 5


def make_data(cfg):
    g = torch.Generator().manual_seed(cfg.seed)
    basis = torch.linalg.qr(torch.randn(cfg.dim, cfg.latent, generator=g)).Q
    z = torch.randn(cfg.n_normal, cfg.latent, generator=g)
    normal = torch.tanh(z @ basis.T * 1.5) + 0.05 * torch.randn(cfg.n_normal, cfg.dim, generator=g)
    anomal = torch.randn(cfg.n_anomal, cfg.dim, generator=g)
    anomal = anomal - 0.7 * (anomal @ basis) @ basis.T  # mostly off the normal subspace
    return normal, anomal


class AutoEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(cfg.dim, 16, bias=False), nn.LeakyReLU(0.01),
                                     nn.Linear(16, cfg.latent, bias=False))
        self.decoder = nn.Sequential(nn.Linear(cfg.latent, 16, bias=False), nn.LeakyReLU(0.01),
                                     nn.Linear(16, cfg.dim, bias=False))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def roc_auc(scores, labels):
    idx = torch.argsort(scores, descending=True)
    y = labels[idx].to(torch.float64)
    tpr = torch.cat([y.new_zeros(1), y.cumsum(0) / y.sum()])
    fpr = torch.cat([y.new_zeros(1), (1 - y).cumsum(0) / (1 - y).sum()])
    return torch.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2)


def threshold_report(scores, labels, threshold):
    pred = (scores > threshold).long()
    cm = torch.bincount(labels.long() * 2 + pred, minlength=4).reshape(2, 2)
    tp, fp, fn = cm[1, 1], cm[0, 1], cm[1, 0]
    precision = tp / (tp + fp).clamp(min=1)
    recall = tp / (tp + fn).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    return cm, precision.item(), recall.item(), f1.item()


def train_ae(model, loader, cfg):
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=1e-6)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[7], gamma=0.1)
    for epoch in range(cfg.ae_epochs):
        total, n = 0.0, 0
        for (x,) in loader:
            loss = torch.sum((model(x) - x) ** 2, dim=1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.shape[0]
            n += x.shape[0]
        sched.step()
        logger.info("AE epoch %d/%d loss %.5f", epoch + 1, cfg.ae_epochs, total / n)
    return opt, sched


@torch.no_grad()
def init_center(encoder, loader, eps=0.1):
    n, c = 0, None
    for (x,) in loader:
        z = encoder(x)
        c = z.sum(0) if c is None else c + z.sum(0)
        n += z.shape[0]
    c = c / n
    c[(c.abs() < eps) & (c < 0)] = -eps
    c[(c.abs() < eps) & (c >= 0)] = eps
    return c


def train_svdd(encoder, loader, c, cfg, objective):
    opt = torch.optim.Adam(encoder.parameters(), lr=cfg.lr * 0.5, weight_decay=1e-6, amsgrad=True)
    R = torch.tensor(0.0)
    for epoch in range(cfg.svdd_epochs):
        total = 0.0
        for (x,) in loader:
            dist = torch.sum((encoder(x) - c) ** 2, dim=1)
            if objective == "soft-boundary":
                scores = dist - R ** 2
                loss = R ** 2 + (1 / cfg.nu) * torch.mean(torch.clamp(scores, min=0))
            else:
                loss = dist.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if objective == "soft-boundary" and epoch >= 1:
                R = torch.quantile(dist.detach().sqrt(), 1 - cfg.nu)
            total += loss.item()
        logger.info("SVDD[%s] epoch %d loss %.5f R %.4f", objective, epoch + 1, total / len(loader), R.item())
    return opt, R


@torch.no_grad()
def evaluate(model, encoder, c, x):
    model.eval()
    rec = torch.sum((model(x) - x) ** 2, dim=1)
    dist = torch.sum((encoder(x) - c) ** 2, dim=1)
    model.train()
    return rec, dist


def main():
    parser = argparse.ArgumentParser(description="Deep SVDD / AE anomaly detection")
    parser.add_argument("--objective", choices=["one-class", "soft-boundary"], default="soft-boundary")
    parser.add_argument("--quantile", type=float, default=0.95)
    args = parser.parse_args([])
    cfg = Cfg()
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")
    torch.manual_seed(cfg.seed)
    torch.backends.cudnn.deterministic = True
    torch.set_float32_matmul_precision("highest")
    normal, anomal = make_data(cfg)
    train_x, val_x, test_normal = normal[:256], normal[256:320], normal[320:]
    test_x = torch.cat([test_normal, anomal])
    test_y = torch.cat([torch.zeros(len(test_normal)), torch.ones(len(anomal))])
    print("data", tuple(train_x.shape), tuple(test_x.shape), int(test_y.sum()))
    # oversample the hard (high-norm) normal points
    w = train_x.norm(dim=1)
    sampler = WeightedRandomSampler(w / w.sum(), num_samples=256, generator=torch.Generator().manual_seed(0))
    loader = DataLoader(TensorDataset(train_x), batch_size=cfg.batch_size, sampler=sampler)
    plain_loader = DataLoader(TensorDataset(train_x), batch_size=cfg.batch_size)

    ae = AutoEncoder(cfg)
    ae_opt, ae_sched = train_ae(ae, loader, cfg)
    rec_val, _ = evaluate(ae, ae.encoder, torch.zeros(cfg.latent), val_x)
    thr = torch.quantile(rec_val, args.quantile)
    thr_lin, thr_near = (torch.quantile(rec_val, torch.tensor([0.5, 0.9]), interpolation=m) for m in ("linear", "nearest"))
    print(f"ae threshold q{args.quantile} {thr.item():.5f}", [round(v, 5) for v in thr_lin.tolist()],
          [round(v, 5) for v in thr_near.tolist()])
    rec, _ = evaluate(ae, ae.encoder, torch.zeros(cfg.latent), test_x)
    cm, p, r, f1 = threshold_report(rec, test_y, thr)
    print(f"ae auroc {roc_auc(rec, test_y).item():.4f} precision {p:.4f} recall {r:.4f} f1 {f1:.4f} cm {cm.tolist()}")

    c = init_center(ae.encoder, plain_loader)
    print("center", [round(v, 4) for v in c.tolist()])
    svdd_opt, R = train_svdd(ae.encoder, loader, c, cfg, args.objective)
    _, dist = evaluate(ae, ae.encoder, c, test_x)
    _, dist_val = evaluate(ae, ae.encoder, c, val_x)
    radius = torch.quantile(dist_val, 1 - cfg.nu)
    cm, p, r, f1 = threshold_report(dist, test_y, radius)
    print(f"svdd auroc {roc_auc(dist, test_y).item():.4f} radius {radius.item():.5f} f1 {f1:.4f} cm {cm.tolist()}")
    print("nanquantile", torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5).item(),
          torch.quantile(dist_val.view(8, 8), 0.5, dim=1, keepdim=True).shape)

    path = os.path.join(tempfile.mkdtemp(), "svdd.tar")
    torch.save({"ae": ae.state_dict(), "c": c, "R": R, "threshold": thr, "optimizer": svdd_opt.state_dict(),
                "ae_optimizer": ae_opt.state_dict(), "scheduler": ae_sched.state_dict(), "epoch": cfg.svdd_epochs,
                "rng": torch.get_rng_state()}, path)
    ck = torch.load(path, weights_only=True)
    fresh = AutoEncoder(cfg)
    print("load", fresh.load_state_dict(ck["ae"]), ck["epoch"], ck["scheduler"]["milestones"],
          ck["optimizer"]["param_groups"][0]["amsgrad"])
    opt = torch.optim.Adam(fresh.encoder.parameters(), lr=cfg.lr * 0.5, amsgrad=True)
    opt.load_state_dict(ck["optimizer"])
    print("amsgrad state", sorted(opt.state[opt.param_groups[0]["params"][0]].keys()))
    _, dist2 = evaluate(fresh, fresh.encoder, ck["c"], test_x)
    print("same scores", torch.equal(dist, dist2), f"{ck['threshold'].item():.5f}")
    print("params", sum(p.numel() for p in fresh.parameters()), "encoder",
          sum(p.numel() for p in fresh.encoder.parameters()))
    print(fresh)


if __name__ == "__main__":
    main()
