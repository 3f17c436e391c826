"""Tabular binary classifier as a training script: categorical embeddings + standardized numeric features, an MLP
with BatchNorm1d and dropout, k-fold cross-validation through SubsetRandomSampler, a dict collate_fn,
ReduceLROnPlateau, early stopping with the best state_dict kept in memory, AUROC by sorting, F1 and a confusion
matrix through bincount, a checkpoint of the best fold reloaded for the hold-out test."""
import argparse
import copy
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, SubsetRandomSampler

log = logging.getLogger(__name__)


@dataclass
class TrainConfig:
    n_rows: int = 240
    n_numeric: int = 5
    cardinalities: list = field(default_factory=lambda: [6, 4, 9])
    emb_dim: int = 4
    hidden: tuple = (32, 16)
    dropout: float = 0.1
    folds: int = 3
    epochs: int = 6
    batch_size: int = 32
    lr: float = 5e-3
    weight_decay: float = 1e-4
    patience: int = 2
    seed: int = 7


class TabularDataset(Dataset):
    def __init__(self, numeric, categorical, target):
        self.numeric, self.categorical, self.target = numeric, categorical, target

    def __len__(self):
        return self.target.shape[0]

    def __getitem__(self, i):
        return {"num": self.numeric[i], "cat": self.categorical[i], "y": self.target[i]}


def collate_rows(rows):
    return {"num": torch.stack([r["num"] for r in rows]), "cat": torch.stack([r["cat"] for r in rows]),
            "y": torch.stack([r["y"] for r in rows]).float()}


def make_data(cfg):
    g = torch.Generator().manual_seed(cfg.seed)
    num = torch.randn(cfg.n_rows, cfg.n_numeric, generator=g) * torch.tensor([1.0, 5.0, 0.5, 2.0, 10.0]) + 3.0
    cat = torch.stack([torch.randint(0, c, (cfg.n_rows,), generator=g) for c in cfg.cardinalities], 1)
    effect = torch.tensor([0.5, -1.0, 0.0, 1.5, -0.5, 1.0])[cat[:, 0]] + 0.3 * (cat[:, 2] % 3).float()
    logit = 0.8 * (num[:, 0] - 3) - 0.2 * (num[:, 1] - 3) + effect + 0.1 * torch.randn(cfg.n_rows, generator=g)
    y = (logit > logit.median()).long()
    return num, cat, y


class TabularMLP(nn.Module):
    def __init__(self, cfg, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.embeddings = nn.ModuleList(nn.Embedding(c, min(cfg.emb_dim, (c + 1) // 2)) for c in cfg.cardinalities)
        width = cfg.n_numeric + sum(e.embedding_dim for e in self.embeddings)
        layers = []
        for h in cfg.hidden:
            layers += [nn.Linear(width, h, bias=False), nn.BatchNorm1d(h), nn.ReLU(inplace=True), nn.Dropout(cfg.dropout)]
            width = h
        self.mlp = nn.Sequential(*layers)
        self.out = nn.Linear(width, 1)
        self.emb_drop = nn.Dropout(0.05)

    def forward(self, num, cat):
        x_num = (num - self.mean) / self.std
        x_cat = torch.cat([emb(cat[:, i]) for i, emb in enumerate(self.embeddings)], dim=1)
        return self.out(self.mlp(torch.cat([x_num, self.emb_drop(x_cat)], dim=1))).squeeze(-1)


def auroc(scores, labels):
    order = torch.argsort(scores, descending=True, stable=True)
    labels = labels[order].float()
    tps = torch.cumsum(labels, 0)
    fps = torch.cumsum(1 - labels, 0)
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return torch.trapezoid(tpr, fpr)


def binary_metrics(logits, y):
    pred = (logits > 0).long()
    cm = torch.bincount(y * 2 + pred, minlength=4).view(2, 2)
    tp, fp, fn = cm[1, 1].item(), cm[0, 1].item(), cm[1, 0].item()
    f1 = 2 * tp / max(2 * tp + fp + fn, 1)
    return {"acc": (pred == y).float().mean().item(), "f1": f1, "auc": auroc(torch.sigmoid(logits), y).item(),
            "cm": cm.tolist()}


def train(model, loader, optimizer, criterion):
    model.train()
    running = torch.zeros(())
    count = 0
    for batch in loader:
        optimizer.zero_grad()
        loss = criterion(model(batch["num"], batch["cat"]), batch["y"])
        loss.backward()
        optimizer.step()
        running += loss.detach() * batch["y"].numel()
        count += batch["y"].numel()
    return (running / count).item()


@torch.inference_mode()
def evaluate(model, loader, criterion):
    model.eval()
    logits, ys = [], []
    for batch in loader:
        logits.append(model(batch["num"], batch["cat"]))
        ys.append(batch["y"].long())
    logits, ys = torch.cat(logits), torch.cat(ys)
    metrics = binary_metrics(logits, ys)
    metrics["loss"] = criterion(logits, ys.float()).item()
    return metrics


def run_fold(fold, cfg, dataset, train_idx, val_idx, ckpt_dir):
    torch.manual_seed(cfg.seed + fold)
    num = dataset.numeric[train_idx]
    model = TabularMLP(cfg, num.mean(0), num.std(0))
    g = torch.Generator().manual_seed(fold)
    train_loader = DataLoader(dataset, batch_size=cfg.batch_size, sampler=SubsetRandomSampler(train_idx.tolist(), g),
                              collate_fn=collate_rows, drop_last=True)
    val_loader = DataLoader(torch.utils.data.Subset(dataset, val_idx.tolist()), batch_size=64, collate_fn=collate_rows)
    pos_weight = (1 - dataset.target[train_idx].float().mean()) / dataset.target[train_idx].float().mean()
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
    best_loss, best_state, stale = float("inf"), None, 0
    for epoch in range(cfg.epochs):
        tr_loss = train(model, train_loader, optimizer, criterion)
        m = evaluate(model, val_loader, criterion)
        scheduler.step(m["loss"])
        log.info("fold %d epoch %d train %.4f val %.4f auc %.4f lr %.5f", fold, epoch, tr_loss, m["loss"], m["auc"],
                 optimizer.param_groups[0]["lr"])
        if m["loss"] < best_loss - 1e-4:
            best_loss, best_state, stale = m["loss"], copy.deepcopy(model.state_dict()), 0
        else:
            stale += 1
            if stale > cfg.patience:
                log.info("fold %d: early stop", fold)
                break
    model.load_state_dict(best_state)
    path = os.path.join(ckpt_dir, f"fold{fold}.pt")
    torch.save({"model": best_state, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "epoch": epoch, "rng": torch.get_rng_state()}, path)
    return evaluate(model, val_loader, criterion), path, model


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=TrainConfig.folds)
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    cfg = TrainConfig(folds=args.folds, epochs=args.epochs)
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="[%(levelname)s] %(message)s")
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("high")
    print("precision", torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32)

    num, cat, y = make_data(cfg)
    print("data", tuple(num.shape), tuple(cat.shape), y.dtype, torch.bincount(y).tolist())
    perm = torch.randperm(cfg.n_rows, generator=torch.Generator().manual_seed(cfg.seed))
    test_idx, dev_idx = perm[:40], perm[40:]
    dataset = TabularDataset(num, cat, y)
    ckpt_dir = args.out or tempfile.mkdtemp()
    fold_ids = torch.arange(dev_idx.numel()) % cfg.folds
    results = []
    for fold in range(cfg.folds):
        tr, va = dev_idx[fold_ids != fold], dev_idx[fold_ids == fold]
        m, path, model = run_fold(fold, cfg, dataset, tr, va, ckpt_dir)
        results.append((m, path))
        print(f"fold {fold} acc {m['acc']:.4f} f1 {m['f1']:.4f} auc {m['auc']:.4f} cm {m['cm']}")
    aucs = torch.tensor([m["auc"] for m, _ in results])
    print(f"cv auc {aucs.mean().item():.4f} +- {aucs.std().item():.4f}")
    best_fold = int(aucs.argmax())
    ck = torch.load(results[best_fold][1], weights_only=True)
    final = TabularMLP(cfg, torch.zeros(cfg.n_numeric), torch.ones(cfg.n_numeric))
    print("best fold", best_fold, final.load_state_dict(ck["model"]), ck["epoch"],
          ck["scheduler"]["_last_lr"] if "_last_lr" in ck["scheduler"] else None)
    test_loader = DataLoader(torch.utils.data.Subset(dataset, test_idx.tolist()), batch_size=16, collate_fn=collate_rows)
    m = evaluate(final, test_loader, nn.BCEWithLogitsLoss())
    print(f"test loss {m['loss']:.4f} acc {m['acc']:.4f} f1 {m['f1']:.4f} auc {m['auc']:.4f}")
    ref = auroc(torch.tensor([0.9, 0.8, 0.8, 0.3, 0.1]), torch.tensor([1, 0, 1, 1, 0]))
    print("auroc check", round(ref.item(), 4))
    total = sum(p.numel() for p in final.parameters())
    emb = sum(p.numel() for n, p in final.named_parameters() if n.startswith("embeddings"))
    print("params", total, "embedding", emb, "buffers", sorted(final.state_dict().keys())[:4])
    print(final)


if __name__ == "__main__":
    main([])
