"""Time-series forecaster as a training script: sliding-window Dataset over synthetic seasonal series with
per-series scaling, a GRU encoder and GRUCell decoder with teacher forcing and scheduled sampling (inverse-sigmoid
decay, per-step Bernoulli choice), a quantile (pinball) + MSE loss, CosineAnnealingLR, early stopping, MAE / RMSE /
sMAPE in torch ops, checkpoint save and resume, and a multi-step autoregressive forecast."""
import argparse
import logging
import math
import os
import sys
import tempfile
from dataclasses import dataclass, asdict

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, SequentialSampler, RandomSampler

LOGGER = logging.getLogger("forecast")


@dataclass
class Config:
    n_series: int = 6
    length: int = 120
    context: int = 24
    horizon: int = 8
    hidden: int = 32
    batch_size: int = 16
    epochs: int = 5
    lr: float = 5e-3
    ss_k: float = 3.0
    quantiles: tuple = (0.1, 0.5, 0.9)
    patience: int = 2
    seed: int = 1234


def synthetic_series(cfg):
    g = torch.Generator().manual_seed(cfg.seed)
    t = torch.arange(cfg.length, dtype=torch.float32)
    level = 10 + 5 * torch.rand(cfg.n_series, 1, generator=g)
    trend = 0.05 * torch.randn(cfg.n_series, 1, generator=g)
    period = torch.tensor([12.0, 24.0, 12.0, 7.0, 24.0, 12.0])[:, None]
    season = 2 * torch.sin(2 * math.pi * t / period + torch.rand(cfg.n_series, 1, generator=g) * 6)
    noise = 0.3 * torch.randn(cfg.n_series, cfg.length, generator=g)
    return level + trend * t + season + noise


class WindowDataset(Dataset):
    def __init__(self, series, context, horizon, start, stop):
        self.series, self.context, self.horizon = series, context, horizon
        self.index = [(s, i) for s in range(series.shape[0])
                      for i in range(start, stop - context - horizon + 1, 2)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, k):
        s, i = self.index[k]
        window = self.series[s, i:i + self.context + self.horizon]
        return window[:self.context], window[self.context:], s


def scale_collate(batch):
    x, y, sid = zip(*batch)
    x, y = torch.stack(x), torch.stack(y)
    loc = x.mean(1, keepdim=True)
    scale = x.std(1, keepdim=True).clamp_min(1e-3)
    return {"x": (x - loc) / scale, "y": (y - loc) / scale, "loc": loc, "scale": scale,
            "series": torch.tensor(sid)}


class Seq2SeqForecaster(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.series_emb = nn.Embedding(cfg.n_series, 4)
        self.encoder = nn.GRU(1 + 4, cfg.hidden, batch_first=True)
        self.decoder = nn.GRUCell(1 + 4, cfg.hidden)
        self.head = nn.Linear(cfg.hidden, len(cfg.quantiles))

    def forward(self, x, series, y=None, teacher_prob=0.0, generator=None):
        emb = self.series_emb(series)
        enc_in = torch.cat([x.unsqueeze(-1), emb[:, None, :].expand(-1, x.shape[1], -1)], -1)
        _, h = self.encoder(enc_in)
        h = h[0]
        prev = x[:, -1:]
        outs = []
        median = self.cfg.quantiles.index(0.5)
        for step in range(self.cfg.horizon):
            h = self.decoder(torch.cat([prev, emb], -1), h)
            q = self.head(h)
            outs.append(q)
            pred = q[:, median:median + 1]
            if y is not None and teacher_prob > 0:
                use_truth = torch.bernoulli(torch.full((x.shape[0], 1), teacher_prob), generator=generator).bool()
                prev = torch.where(use_truth, y[:, step:step + 1], pred.detach())
            else:
                prev = pred
        return torch.stack(outs, 1)


def pinball_loss(pred, target, quantiles):
    q = torch.tensor(quantiles)
    diff = target.unsqueeze(-1) - pred
    return torch.maximum(q * diff, (q - 1) * diff).mean()


def teacher_forcing_ratio(step, k):
    return k / (k + math.exp(step / k))


def metrics(pred, target):
    err = pred - target
    return {"mae": err.abs().mean().item(), "rmse": err.pow(2).mean().sqrt().item(),
            "smape": (200 * err.abs() / (pred.abs() + target.abs()).clamp_min(1e-8)).mean().item()}


def train_epoch(model, loader, optimizer, cfg, epoch, generator):
    model.train()
    tf = teacher_forcing_ratio(epoch, cfg.ss_k)
    losses = []
    for batch in loader:
        q = model(batch["x"], batch["series"], batch["y"], teacher_prob=tf, generator=generator)
        loss = pinball_loss(q, batch["y"], cfg.quantiles) + 0.1 * nn.functional.mse_loss(q[..., 1], batch["y"])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).mean().item(), tf


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    preds, targets, covered = [], [], []
    for batch in loader:
        q = model(batch["x"], batch["series"])
        q = q * batch["scale"].unsqueeze(-1) + batch["loc"].unsqueeze(-1)
        y = batch["y"] * batch["scale"] + batch["loc"]
        preds.append(q[..., 1])
        targets.append(y)
        covered.append(((y >= q[..., 0]) & (y <= q[..., 2])).float())
    out = metrics(torch.cat(preds), torch.cat(targets))
    out["coverage"] = torch.cat(covered).mean().item()
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=Config.epochs)
    parser.add_argument("--hidden", type=int, default=Config.hidden)
    parser.add_argument("--resume", action="store_true")
    ns = parser.parse_args(argv)
    cfg = Config(epochs=ns.epochs, hidden=ns.hidden)
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)-7s %(message)s")
    torch.manual_seed(cfg.seed)
    torch.set_float32_matmul_precision("highest")
    torch.backends.cudnn.benchmark = False
    LOGGER.info("config: %s", {k: v for k, v in asdict(cfg).items() if k in ("context", "horizon", "hidden")})
    series = synthetic_series(cfg)
    print("series", tuple(series.shape), f"{series.mean().item():.4f}", f"{series.std().item():.4f}")
    split = int(cfg.length * 0.75)
    train_ds = WindowDataset(series, cfg.context, cfg.horizon, 0, split)
    val_ds = WindowDataset(series, cfg.context, cfg.horizon, split - cfg.context, cfg.length)
    print("windows", len(train_ds), len(val_ds))
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, collate_fn=scale_collate, drop_last=True,
                              sampler=RandomSampler(train_ds, generator=torch.Generator().manual_seed(0)))
    val_loader = DataLoader(val_ds, batch_size=32, sampler=SequentialSampler(val_ds), collate_fn=scale_collate)
    batch = next(iter(val_loader))
    print("batch", {k: tuple(v.shape) for k, v in batch.items()}, f"{batch['x'].std(1).mean().item():.4f}")
    print("tf schedule", [round(teacher_forcing_ratio(e, cfg.ss_k), 4) for e in range(6)])

    model = Seq2SeqForecaster(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.98))
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs, eta_min=1e-4)
    naive = metrics(batch["x"][:, -1:].expand_as(batch["y"]) * batch["scale"] + batch["loc"],
                    batch["y"] * batch["scale"] + batch["loc"])
    print("naive", {k: round(v, 4) for k, v in naive.items()})
    gen = torch.Generator().manual_seed(99)
    ckpt_file = os.path.join(tempfile.mkdtemp(prefix="forecast"), "checkpoint.pt")
    best, wait = math.inf, 0
    for epoch in range(cfg.epochs):
        loss, tf = train_epoch(model, train_loader, optimizer, cfg, epoch, gen)
        scheduler.step()
        m = evaluate(model, val_loader)
        LOGGER.info("epoch %d loss %.4f tf %.3f val mae %.4f rmse %.4f smape %.4f cov %.4f", epoch, loss, tf,
                    m["mae"], m["rmse"], m["smape"], m["coverage"])
        if m["mae"] < best:
            best, wait = m["mae"], 0
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch, "rng": torch.get_rng_state(),
                        "gen": gen.get_state(), "config": asdict(cfg)}, ckpt_file)
        else:
            wait += 1
            if wait > cfg.patience:
                LOGGER.warning("early stopping: best mae %.4f", best)
                break

    state = torch.load(ckpt_file, weights_only=False)
    model2 = Seq2SeqForecaster(Config(**state["config"]))
    model2.load_state_dict(state["model"])
    optimizer2 = torch.optim.Adam(model2.parameters(), lr=cfg.lr, betas=(0.9, 0.98))
    optimizer2.load_state_dict(state["optimizer"])
    scheduler2 = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer2, T_max=cfg.epochs, eta_min=1e-4)
    scheduler2.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["rng"])
    gen.set_state(state["gen"])
    print("resume from", state["epoch"], f"lr {scheduler2.get_last_lr()[0]:.6f}", state["config"]["quantiles"])
    loss, tf = train_epoch(model2, train_loader, optimizer2, cfg, state["epoch"] + 1, gen)
    m = evaluate(model2, val_loader)
    print(f"resumed loss {loss:.4f} mae {m['mae']:.4f}")
    model2.eval()
    with torch.no_grad():
        ctx = series[:1, -cfg.context:]
        loc, scale = ctx.mean(1, keepdim=True), ctx.std(1, keepdim=True)
        fc = model2((ctx - loc) / scale, torch.tensor([0])) * scale.unsqueeze(-1) + loc.unsqueeze(-1)
    print("forecast", [round(v, 3) for v in fc[0, :, 1].tolist()], bool((fc[..., 0] <= fc[..., 2]).all()))
    print("params", sum(p.numel() for p in model2.parameters()),
          [(n, tuple(p.shape)) for n, p in model2.named_parameters()][:3])
    print(model2)


if __name__ == "__main__":
    main(sys.argv[1:])
