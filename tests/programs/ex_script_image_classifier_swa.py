"""Image-classifier training script with the generic plumbing real repositories carry: device selection
(cuda / mps / cpu), `model.to(device, non_blocking=True)`, random_split + ConcatDataset, a DistributedSampler
with num_replicas=1 / rank=0 and set_epoch, DataLoader workers with worker_init_fn and persistent_workers,
`model.apply(init_weights)`, weight_norm parametrizations, activation checkpointing (use_reentrant=False),
bfloat16 CPU autocast with a disabled GradScaler, SWA (AveragedModel + SWALR + update_bn), fork_rng, printing the
optimizer and scheduler state, checkpoint / resume and a final classification report."""
import argparse
import logging
import os
import random
import sys
import tempfile
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp
from torch.nn.utils.parametrizations import weight_norm
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn
from torch.utils.data import ConcatDataset, DataLoader, DistributedSampler, TensorDataset, random_split

logger = logging.getLogger(__name__)


@dataclass
class Options:
    epochs: int = 4
    swa_start: int = 2
    batch_size: int = 24
    lr: float = 0.05
    swa_lr: float = 0.02
    workers: int = 2
    amp: bool = True
    grad_ckpt: bool = True
    seed: int = 31


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2 ** 32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_split(n, g, shift):
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 3, 8, 8, generator=g) * 0.7
    rows = (torch.arange(8)[None, :] // 4 == (y // 3)[:, None]).float()  # top or bottom half
    x[torch.arange(n), y % 3] += (1.0 + shift) * rows[:, :, None]
    return TensorDataset(x, y)


class Block(nn.Module):
    def __init__(self, cin, cout, use_ckpt):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)
        self.use_ckpt = use_ckpt

    def _inner(self, x):
        return F.gelu(self.bn(self.conv(x)))

    def forward(self, x):
        if self.use_ckpt and self.training:
            return cp.checkpoint(self._inner, x, use_reentrant=False)
        return self._inner(x)


class Net(nn.Module):
    def __init__(self, use_ckpt):
        super().__init__()
        self.stem = Block(3, 16, use_ckpt)
        self.body = Block(16, 16, use_ckpt)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = weight_norm(nn.Linear(16, 4))

    def forward(self, x):
        x = self.body(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def init_weights(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


def train(model, loader, optimizer, scaler, device, opts):
    model.train()
    total, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=opts.amp):
            logits = model(x)
            loss = F.cross_entropy(logits.float(), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 2.0, error_if_nonfinite=True)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item() * y.numel()
        correct += (logits.argmax(1) == y).sum().item()
        seen += y.numel()
    return total / seen, correct / seen


@torch.inference_mode()
def evaluate(model, loader, device):
    model.eval()
    cm = torch.zeros(4, 4, dtype=torch.int64, device=device)
    for x, y in loader:
        pred = model(x.to(device)).argmax(1)
        cm += torch.bincount(y.to(device) * 4 + pred, minlength=16).view(4, 4)
    return (cm.trace() / cm.sum()).item(), cm


def main():
    parser = argparse.ArgumentParser(description="classifier with SWA")
    parser.add_argument("--epochs", default=Options.epochs, type=int)
    parser.add_argument("--no-amp", dest="amp", action="store_false")
    parser.add_argument("--workers", default=Options.workers, type=int)
    opts = Options(**{k: v for k, v in vars(parser.parse_args([])).items()})
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s - %(name)s - %(message)s",
                        datefmt="T")
    seed_everything(opts.seed)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device = torch.device("cuda" if torch.cuda.is_available() else
                          "mps" if torch.backends.mps.is_available() else "cpu")
    print("device", device, torch.cuda.device_count(), torch.backends.cudnn.benchmark)

    g = torch.Generator().manual_seed(opts.seed)
    full = ConcatDataset([make_split(96, g, 0.0), make_split(48, g, 0.5)])
    train_set, val_set = random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(0))
    print("split", len(full), len(train_set), len(val_set), full.cumulative_sizes)
    sampler = DistributedSampler(train_set, num_replicas=1, rank=0, shuffle=True, seed=opts.seed)
    loader = DataLoader(train_set, batch_size=opts.batch_size, sampler=sampler, num_workers=opts.workers,
                        worker_init_fn=seed_worker, persistent_workers=opts.workers > 0, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=64)
    print("sampler", len(sampler), len(loader))

    model = Net(opts.grad_ckpt).to(device)
    model.apply(init_weights)
    print("weight_norm", sorted(n for n, _ in model.fc.named_parameters()))
    optimizer = torch.optim.SGD(model.parameters(), lr=opts.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=opts.swa_start)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=opts.swa_lr, anneal_epochs=1, anneal_strategy="cos")
    scaler = torch.amp.GradScaler(device.type, enabled=device.type == "cuda")
    print("scaler", scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else None)
    print(optimizer)
    ckpt_path = os.path.join(tempfile.mkdtemp(), "checkpoint.pth.tar")
    for epoch in range(opts.epochs):
        sampler.set_epoch(epoch)
        loss, acc = train(model, loader, optimizer, scaler, device, opts)
        if epoch >= opts.swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
        val_acc, _ = evaluate(model, val_loader, device)
        logger.info("Epoch: [%d] loss %.4f acc %.4f val %.4f lr %.5f", epoch, loss, acc, val_acc,
                    optimizer.param_groups[0]["lr"])
        torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "swa": swa_model.state_dict(), "scaler": scaler.state_dict(),
                    "rng": torch.get_rng_state(), "np_rng": np.random.get_state()}, ckpt_path)
    update_bn(loader, swa_model, device=device)
    swa_acc, cm = evaluate(swa_model, val_loader, device)
    print(f"swa acc {swa_acc:.4f} n_averaged {swa_model.n_averaged.item()}", cm.tolist())
    print("swalr", {k: v for k, v in swa_scheduler.state_dict().items() if k in ("anneal_epochs", "last_epoch")})

    ck = torch.load(ckpt_path, map_location=device, weights_only=False)
    resumed = Net(opts.grad_ckpt)
    print("resume", ck["epoch"], resumed.load_state_dict(ck["state_dict"]), sorted(ck["swa"])[:2])
    opt2 = torch.optim.SGD(resumed.parameters(), lr=opts.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    opt2.load_state_dict(ck["optimizer"])
    torch.set_rng_state(ck["rng"])
    np.random.set_state(ck["np_rng"])
    with torch.random.fork_rng():
        torch.manual_seed(123)
        noise = torch.rand(2)
    after = torch.rand(2)
    torch.set_rng_state(ck["rng"])
    print("fork_rng", [round(v, 4) for v in noise.tolist()], torch.equal(after, torch.rand(2)))
    loss, acc = train(resumed, loader, opt2, scaler, device, opts)
    print(f"resumed epoch loss {loss:.4f} acc {acc:.4f}")
    trainable = sum(p.numel() for p in resumed.parameters() if p.requires_grad)
    print(f"Total params: {sum(p.numel() for p in resumed.parameters()):,}  Trainable params: {trainable:,}")
    print(resumed)


if __name__ == "__main__":
    main()
