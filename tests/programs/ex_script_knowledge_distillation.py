"""Knowledge distillation as a training script: a teacher CNN trained first, frozen (eval + requires_grad_(False)),
then a smaller student trained on alpha * T^2 * KL(log_softmax(s/T) || log_softmax(t/T), log_target=True) + (1 -
alpha) * CE, plus a FitNets-style hint loss on an intermediate feature map taken with a forward hook through a
1x1 regressor; a Dataset returning (image, label, index) with a collate_fn that also augments (random flips),
a BatchSampler over a SubsetRandomSampler, gradient accumulation, ExponentialLR, early stopping on accuracy,
top-k accuracy, per-class accuracy by bincount, teacher-student agreement, checkpoint resume."""
import argparse
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader, Dataset, SubsetRandomSampler

logger = logging.getLogger("kd")


@dataclass(frozen=True)
class KDConfig:
    n_classes: int = 5
    n_train: int = 160
    n_val: int = 60
    teacher_epochs: int = 3
    student_epochs: int = 4
    batch_size: int = 16
    accum: int = 2
    temperature: float = 4.0
    alpha: float = 0.7
    beta: float = 0.5
    lr: float = 0.05
    patience: int = 2
    seed: int = 17


class PatternImages(Dataset):
    def __init__(self, n, n_classes, g):
        self.labels = torch.randint(0, n_classes, (n,), generator=g)
        protos = torch.randn(n_classes, 1, 8, 8, generator=g)
        self.images = protos[self.labels] + 0.8 * torch.randn(n, 1, 8, 8, generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], int(self.labels[i]), i


class AugmentCollate:
    def __init__(self, generator=None):
        self.generator = generator

    def __call__(self, batch):
        x = torch.stack([b[0] for b in batch])
        y = torch.tensor([b[1] for b in batch])
        idx = torch.tensor([b[2] for b in batch])
        if self.generator is not None:
            flip = torch.rand(x.shape[0], generator=self.generator) < 0.3
            x = torch.where(flip[:, None, None, None], x.flip(-1), x)
        return x, y, idx


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Teacher(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(conv_bn(1, 32), conv_bn(32, 32), nn.MaxPool2d(2), conv_bn(32, 64))
        self.classifier = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class Student(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(conv_bn(1, 8), nn.MaxPool2d(2), conv_bn(8, 16))
        self.classifier = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def kd_loss(student_logits, teacher_logits, labels, T, alpha):
    soft = F.kl_div(F.log_softmax(student_logits / T, dim=1), F.log_softmax(teacher_logits / T, dim=1),
                    reduction="batchmean", log_target=True) * (T * T)
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard, soft, hard


def topk_accuracy(logits, y, ks=(1, 3)):
    top = logits.topk(max(ks), dim=1).indices
    correct = top.eq(y[:, None])
    return [correct[:, :k].any(1).float().mean().item() for k in ks]


@torch.no_grad()
def evaluate(model, loader, n_classes, teacher=None):
    model.eval()
    logits, ys, agree = [], [], []
    for x, y, _ in loader:
        out = model(x)
        logits.append(out)
        ys.append(y)
        if teacher is not None:
            agree.append(out.argmax(1) == teacher(x).argmax(1))
    logits, ys = torch.cat(logits), torch.cat(ys)
    top1, top3 = topk_accuracy(logits, ys)
    hits = torch.bincount(ys[logits.argmax(1) == ys], minlength=n_classes)
    per_class = hits.float() / torch.bincount(ys, minlength=n_classes).float()
    out = {"top1": top1, "top3": top3, "per_class": [round(v, 3) for v in per_class.tolist()]}
    if agree:
        out["agree"] = torch.cat(agree).float().mean().item()
    return out


def train_teacher(teacher, loader, cfg):
    opt = torch.optim.SGD(teacher.parameters(), lr=cfg.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    for epoch in range(cfg.teacher_epochs):
        teacher.train()
        for x, y, _ in loader:
            loss = F.cross_entropy(teacher(x), y, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
        logger.info("teacher epoch %d loss %.4f", epoch, loss.item())


def train(student, teacher, regressor, loader, opt, cfg, feats):
    student.train()
    sums = torch.zeros(3)
    opt.zero_grad()
    for i, (x, y, _) in enumerate(loader):
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        loss, soft, hard = kd_loss(s_logits, t_logits, y, cfg.temperature, cfg.alpha)
        hint = F.mse_loss(regressor(feats["student"]), feats["teacher"])
        total = loss + cfg.beta * hint
        (total / cfg.accum).backward()
        if (i + 1) % cfg.accum == 0:
            opt.step()
            opt.zero_grad()
        sums += torch.stack([soft.detach(), hard.detach(), hint.detach()])
    return (sums / len(loader)).tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--temperature", type=float, default=KDConfig.temperature)
    parser.add_argument("--alpha", type=float, default=KDConfig.alpha)
    args = parser.parse_args([])
    cfg = replace(KDConfig(), temperature=args.temperature, alpha=args.alpha)
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s %(message)s")
    torch.manual_seed(cfg.seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.mkldnn.enabled = True
    torch.set_float32_matmul_precision("highest")
    # one pool of images over the same class prototypes, split by index into train / validation
    both = PatternImages(cfg.n_train + cfg.n_val, cfg.n_classes, torch.Generator().manual_seed(cfg.seed))
    train_idx = list(range(cfg.n_train))
    val_ds = torch.utils.data.Subset(both, list(range(cfg.n_train, cfg.n_train + cfg.n_val)))
    batches = BatchSampler(SubsetRandomSampler(train_idx, generator=torch.Generator().manual_seed(1)),
                           batch_size=cfg.batch_size, drop_last=False)
    loader = DataLoader(both, batch_sampler=batches, collate_fn=AugmentCollate(torch.Generator().manual_seed(2)))
    val_loader = DataLoader(val_ds, batch_size=32, collate_fn=AugmentCollate())
    print("batches", len(loader), len(val_loader), [len(b) for b in batches][-2:])

    teacher = Teacher(cfg.n_classes)
    train_teacher(teacher, loader, cfg)
    teacher.eval().requires_grad_(False)
    print("teacher", evaluate(teacher, val_loader, cfg.n_classes))

    student = Student(cfg.n_classes)
    feats = {}
    hooks = [teacher.features[3].register_forward_hook(lambda m, i, o: feats.__setitem__("teacher", o)),
             student.features[2].register_forward_hook(lambda m, i, o: feats.__setitem__("student", o))]
    regressor = nn.Conv2d(16, 64, 1)
    params = list(student.parameters()) + list(regressor.parameters())
    opt = torch.optim.SGD(params, lr=cfg.lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)
    s = torch.tensor([[2.0, 0.5, -1.0]])
    t = torch.tensor([[1.0, 1.0, 0.0]])
    ref = F.kl_div(F.log_softmax(s / 2, 1), F.softmax(t / 2, 1), reduction="batchmean")
    print("kd check", round(kd_loss(s, t, torch.tensor([0]), 2.0, 1.0)[0].item(), 5), round(4 * ref.item(), 5))
    ckpt_path = os.path.join(tempfile.mkdtemp(), "student.pt")
    best, stale = -1.0, 0
    for epoch in range(cfg.student_epochs):
        soft, hard, hint = train(student, teacher, regressor, loader, opt, cfg, feats)
        sched.step()
        m = evaluate(student, val_loader, cfg.n_classes, teacher)
        logger.info("student epoch %d soft %.4f hard %.4f hint %.4f top1 %.4f agree %.4f lr %.5f", epoch, soft,
                    hard, hint, m["top1"], m["agree"], sched.get_last_lr()[0])
        if m["top1"] > best:
            best, stale = m["top1"], 0
            torch.save({"model": student.state_dict(), "regressor": regressor.state_dict(),
                        "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "epoch": epoch,
                        "rng": torch.get_rng_state()}, ckpt_path)
        else:
            stale += 1
            if stale >= cfg.patience:
                logger.info("early stopping (best top1 %.4f)", best)
                break
    print("student", evaluate(student, val_loader, cfg.n_classes, teacher))

    ckpt = torch.load(ckpt_path, weights_only=True)
    student2, regressor2 = Student(cfg.n_classes), nn.Conv2d(16, 64, 1)
    student2.load_state_dict(ckpt["model"])
    regressor2.load_state_dict(ckpt["regressor"])
    opt2 = torch.optim.SGD(list(student2.parameters()) + list(regressor2.parameters()), lr=cfg.lr, momentum=0.9)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2 = torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.8)
    sched2.load_state_dict(ckpt["scheduler"])
    torch.set_rng_state(ckpt["rng"])
    hooks.append(student2.features[2].register_forward_hook(lambda m, i, o: feats.__setitem__("student", o)))
    soft, hard, hint = train(student2, teacher, regressor2, loader, opt2, cfg, feats)
    print(f"resumed from epoch {ckpt['epoch']} lr {sched2.get_last_lr()[0]:.5f} soft {soft:.4f} hard {hard:.4f}")
    for h in hooks:
        h.remove()
    print("hooks left", len(teacher.features[3]._forward_hooks), len(student.features[2]._forward_hooks))
    n_t = sum(p.numel() for p in teacher.parameters())
    n_s = sum(p.numel() for p in student.parameters())
    print(f"teacher {n_t} student {n_s} compression {n_t / n_s:.2f}x frozen {not any(p.requires_grad for p in teacher.parameters())}")
    print(student)


if __name__ == "__main__":
    main()
