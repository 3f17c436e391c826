"""Speech-command keyword spotter as a training script: synthetic waveforms (tones per keyword + noise), a
log-mel-like spectrogram by hand over torch.stft, SpecAugment time/frequency masking, a 1-D CNN + GRU classifier,
a Dataset with a padding collate_fn and a WeightedRandomSampler, gradient accumulation, early stopping on
validation accuracy, a confusion matrix through bincount, macro F1, checkpoint save / resume."""
import argparse
import logging
import math
import os
import sys
import tempfile
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

logger = logging.getLogger("kws")


@dataclass
class Config:
    n_classes: int = 4
    n_train: int = 96
    n_val: int = 24
    sample_rate: int = 2000
    n_fft: int = 128
    hop: int = 32
    n_mels: int = 16
    hidden: int = 32
    batch_size: int = 8
    accum_steps: int = 2
    epochs: int = 6
    lr: float = 1e-2
    patience: int = 3
    seed: int = 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="keyword spotting")
    p.add_argument("--epochs", type=int, default=Config.epochs)
    p.add_argument("--lr", type=float, default=Config.lr)
    p.add_argument("--batch-size", type=int, default=Config.batch_size)
    p.add_argument("--no-specaug", action="store_true")
    return p.parse_args(argv)


class SyntheticSpeechCommands(Dataset):
    """Each keyword is a pair of tones with a random length; labels balanced unevenly so the sampler matters."""

    def __init__(self, n, cfg, generator):
        self.items = []
        for i in range(n):
            label = int(torch.randint(0, cfg.n_classes, (1,), generator=generator)) if i % 3 else 0
            length = int(torch.randint(cfg.sample_rate // 4, cfg.sample_rate // 2, (1,), generator=generator))
            t = torch.arange(length, dtype=torch.float32) / cfg.sample_rate
            f1, f2 = 120.0 + 200.0 * label, 900.0 - 150.0 * label
            wav = 0.8 * torch.sin(2 * math.pi * f1 * t) + 0.4 * torch.sin(2 * math.pi * f2 * t)
            wav = wav + 0.1 * torch.randn(length, generator=generator)
            self.items.append((wav, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class PadCollate:
    """Pads every clip to one second-ish (a fixed length, as KWS recipes do) and keeps the true lengths."""

    def __init__(self, max_len):
        self.max_len = max_len

    def __call__(self, batch):
        wavs, labels = zip(*batch)
        lengths = torch.tensor([w.shape[0] for w in wavs])
        out = torch.zeros(len(wavs), self.max_len)
        for i, w in enumerate(wavs):
            out[i, : w.shape[0]] = w
        return out, lengths, torch.tensor(labels, dtype=torch.long)


def mel_filterbank(n_freqs, n_mels, sample_rate):
    def hz_to_mel(f):
        return 2595.0 * torch.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    mels = torch.linspace(hz_to_mel(torch.tensor(0.0)), hz_to_mel(torch.tensor(sample_rate / 2)), n_mels + 2)
    hz = mel_to_hz(mels)
    freqs = torch.linspace(0, sample_rate / 2, n_freqs)
    lower = (freqs[None, :] - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None])
    upper = (hz[2:, None] - freqs[None, :]) / (hz[2:, None] - hz[1:-1, None])
    return torch.clamp(torch.minimum(lower, upper), min=0.0)


class LogMel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_fft, self.hop = cfg.n_fft, cfg.hop
        self.register_buffer("window", torch.hann_window(cfg.n_fft), persistent=False)
        self.register_buffer("fb", mel_filterbank(cfg.n_fft // 2 + 1, cfg.n_mels, cfg.sample_rate))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, hop_length=self.hop, window=self.window, center=True,
                          return_complex=True)
        power = spec.abs().pow(2)
        mel = torch.einsum("mf,bft->bmt", self.fb, power)
        return torch.log(mel + 1e-6)


def mask_along_axis(x, mask_param, axis, generator, fill=0.0):
    """torchaudio-style iid masking: one band per example, width uniform in [0, mask_param)."""
    n = x.shape[axis]
    width = torch.rand(x.shape[0], generator=generator) * mask_param
    start = torch.rand(x.shape[0], generator=generator) * (n - width)
    idx = torch.arange(n, dtype=torch.float32)
    mask = (idx[None, :] >= start.floor()[:, None]) & (idx[None, :] < (start + width).floor()[:, None])
    mask = mask[:, :, None] if axis == 1 else mask[:, None, :]
    return x.masked_fill(mask, fill)


def spec_augment(x, generator, n_freq=2, n_time=2, max_f=4, max_t=6):
    for _ in range(n_freq):
        x = mask_along_axis(x, max_f, 1, generator)
    for _ in range(n_time):
        x = mask_along_axis(x, max_t, 2, generator)
    return x


class KWSNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.frontend = LogMel(cfg)
        self.norm = nn.LayerNorm([cfg.n_mels, cfg.sample_rate // 2 // cfg.hop + 1], elementwise_affine=False)
        self.conv = nn.Sequential(
            nn.Conv1d(cfg.n_mels, cfg.hidden, 5, padding=2), nn.BatchNorm1d(cfg.hidden), nn.ReLU(),
            nn.Conv1d(cfg.hidden, cfg.hidden, 3, padding=1, groups=4), nn.BatchNorm1d(cfg.hidden), nn.ReLU(),
            nn.MaxPool1d(2))
        self.gru = nn.GRU(cfg.hidden, cfg.hidden, batch_first=True)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(cfg.hidden, cfg.n_classes)

    def features(self, wav):
        return self.norm(self.frontend(wav))

    def forward(self, feats):
        h = self.conv(feats).transpose(1, 2)
        out, last = self.gru(h)
        return self.head(self.dropout(last[-1]))


def confusion_matrix(pred, target, n):
    return torch.bincount(target * n + pred, minlength=n * n).reshape(n, n)


def macro_f1(cm):
    tp = cm.diag().float()
    prec = tp / cm.sum(0).clamp(min=1)
    rec = tp / cm.sum(1).clamp(min=1)
    f1 = torch.where(prec + rec > 0, 2 * prec * rec / (prec + rec), torch.zeros_like(tp))
    return f1.mean()


def train_one_epoch(model, loader, optimizer, scheduler, cfg, gen, specaug):
    model.train()
    total, n = 0.0, 0
    optimizer.zero_grad(set_to_none=True)
    for step, (wav, lengths, y) in enumerate(loader):
        feats = model.features(wav)
        if specaug:
            feats = spec_augment(feats, gen)
        loss = F.cross_entropy(model(feats), y, label_smoothing=0.05)
        (loss / cfg.accum_steps).backward()
        if (step + 1) % cfg.accum_steps == 0:
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item() * y.shape[0]
        n += y.shape[0]
    return total / n


@torch.no_grad()
def evaluate(model, loader, cfg):
    model.eval()
    preds, targets = [], []
    for wav, lengths, y in loader:
        preds.append(model(model.features(wav)).argmax(-1))
        targets.append(y)
    pred, target = torch.cat(preds), torch.cat(targets)
    cm = confusion_matrix(pred, target, cfg.n_classes)
    return (pred == target).float().mean().item(), macro_f1(cm).item(), cm


def save_checkpoint(path, model, optimizer, scheduler, epoch, best):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch, "best": best,
                "rng": torch.get_rng_state()}, path)


def main():
    args = parse_args([])
    cfg = Config(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size)
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s",
                        force=True)
    torch.manual_seed(cfg.seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.set_float32_matmul_precision("highest")
    logger.info("config %s", asdict(cfg))

    gen = torch.Generator().manual_seed(cfg.seed)
    train_ds = SyntheticSpeechCommands(cfg.n_train, cfg, gen)
    val_ds = SyntheticSpeechCommands(cfg.n_val, cfg, gen)
    labels = torch.tensor([y for _, y in train_ds.items])
    counts = torch.bincount(labels, minlength=cfg.n_classes)
    weights = (1.0 / counts.float())[labels]
    logger.info("class counts %s", counts.tolist())
    sampler = WeightedRandomSampler(weights, num_samples=len(train_ds), replacement=True,
                                    generator=torch.Generator().manual_seed(1))
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=sampler, collate_fn=PadCollate(cfg.sample_rate // 2))
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, shuffle=False, collate_fn=PadCollate(cfg.sample_rate // 2))
    wav, lengths, y = next(iter(val_loader))
    print("batch", tuple(wav.shape), lengths[:4].tolist(), y.dtype)

    model = KWSNet(cfg)
    feats = model.features(wav)
    print("features", tuple(feats.shape), f"{feats.abs().mean().item():.4f}", f"{feats.std().item():.4f}")
    aug = spec_augment(feats, torch.Generator().manual_seed(3))
    print("specaug zeroed", int((aug == 0).sum()), tuple(aug.shape))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-2)
    steps = cfg.epochs * math.ceil(len(train_loader) / cfg.accum_steps)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=cfg.lr, total_steps=steps + 2)

    ckpt_dir = tempfile.mkdtemp()
    ckpt_path = os.path.join(ckpt_dir, "last.pt")
    best, bad = -1.0, 0
    for epoch in range(cfg.epochs):
        loss = train_one_epoch(model, train_loader, optimizer, scheduler, cfg, gen, not args.no_specaug)
        acc, f1, cm = evaluate(model, val_loader, cfg)
        logger.info("epoch %d loss %.4f val acc %.4f f1 %.4f lr %.6f", epoch, loss, acc, f1,
                    scheduler.get_last_lr()[0])
        if acc > best:
            best, bad = acc, 0
            save_checkpoint(ckpt_path, model, optimizer, scheduler, epoch, best)
        else:
            bad += 1
            if bad >= cfg.patience:
                logger.info("early stopping at epoch %d", epoch)
                break
    print("confusion", cm.tolist())

    ckpt = torch.load(ckpt_path, weights_only=True)
    resumed = KWSNet(cfg)
    print("load", resumed.load_state_dict(ckpt["model"]), sorted(ckpt))
    opt2 = torch.optim.AdamW(resumed.parameters(), lr=cfg.lr, weight_decay=1e-2)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2 = torch.optim.lr_scheduler.OneCycleLR(opt2, max_lr=cfg.lr, total_steps=steps + 2)
    sched2.load_state_dict(ckpt["scheduler"])
    torch.set_rng_state(ckpt["rng"])
    print("resumed epoch", ckpt["epoch"], "best", f"{ckpt['best']:.4f}", "step", sched2.last_epoch,
          "rng", ckpt["rng"].dtype, tuple(ckpt["rng"].shape))
    loss = train_one_epoch(resumed, train_loader, opt2, sched2, cfg, gen, True)
    acc, f1, _ = evaluate(resumed, val_loader, cfg)
    print(f"after resume loss {loss:.4f} acc {acc:.4f} f1 {f1:.4f}")
    n_params = sum(p.numel() for p in model.parameters())
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print("params", n_params, n_train, "buffers", [n for n, _ in model.named_buffers()])
    print(model)


if __name__ == "__main__":
    main()
