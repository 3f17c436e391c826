"""timm 1.0.29 training utilities: a small ResNet-D trained a few steps with ``timm.optim.create_optimizer_v2``
(SGD, AdamW, LAMB, LARS... by name, with filter_bias_and_bn weight decay groups) and
``timm.scheduler.create_scheduler_v2`` (cosine with warmup, per-update steps), ``timm.data.Mixup`` (mixup and
cutmix, label smoothing) with ``timm.loss.SoftTargetCrossEntropy``, ``LabelSmoothingCrossEntropy``, and an EMA of
the weights (``timm.utils.ModelEmaV3``); then ``timm.data.create_transform`` (eval and training pipelines) on a PIL
image. Prints values rounded, to compare between real torch and ``python -m torchlike run``.

The rounding helpers and the torchvision schemas timm's import needs on a CPU-only torch are in
tests/programs/_timm_common.py."""
import random

import numpy as np
import torch
from _timm_common import r, rl

import timm
from PIL import Image
from timm.data import Mixup, create_transform, resolve_data_config
from timm.loss import LabelSmoothingCrossEntropy, SoftTargetCrossEntropy
from timm.optim import create_optimizer_v2
from timm.scheduler import create_scheduler_v2
from timm.utils import ModelEmaV3


def model():
    torch.manual_seed(0)
    return timm.create_model("resnet18d", pretrained=False, num_classes=4, layers=(1, 1, 1, 1))


torch.manual_seed(1)
X = torch.randn(8, 3, 32, 32)
Y = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3])

for opt_name, lr in (("sgd", 0.05), ("adamw", 1e-3), ("lamb", 1e-3)):
    m = model()
    opt = create_optimizer_v2(m, opt=opt_name, lr=lr, weight_decay=0.05)
    sched, epochs = create_scheduler_v2(opt, sched="cosine", num_epochs=4, warmup_epochs=1, warmup_lr=1e-4,
                                        step_on_epochs=False, updates_per_epoch=1)
    print(opt_name, type(opt).__name__, epochs, [(len(g["params"]), g["weight_decay"]) for g in opt.param_groups])
    ema = ModelEmaV3(m, decay=0.9)
    crit = LabelSmoothingCrossEntropy(smoothing=0.1)
    losses, lrs = [], []
    for step in range(3):
        loss = crit(m(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step_update(step + 1)
        ema.update(m, step=step)
        losses.append(r(loss.detach()))
        lrs.append(r(opt.param_groups[0]["lr"]))
    ema_w = ema.module.fc.weight
    print(opt_name, "losses", losses, "lrs", lrs, "ema", rl(ema_w), r((ema_w - m.fc.weight).norm().detach()))

np.random.seed(0)
random.seed(0)
torch.manual_seed(2)
m = model()
opt = create_optimizer_v2(m, opt="momentum", lr=0.02)
crit = SoftTargetCrossEntropy()
for mixup_alpha, cutmix_alpha, mode in ((0.8, 0.0, "batch"), (0.0, 1.0, "batch"), (0.8, 1.0, "pair"),
                                        (0.8, 1.0, "elem")):
    mix = Mixup(mixup_alpha=mixup_alpha, cutmix_alpha=cutmix_alpha, mode=mode, label_smoothing=0.1,
                num_classes=4)
    xm, ym = mix(X.clone(), Y.clone())
    loss = crit(m(xm), ym)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("mixup", mode, mixup_alpha, cutmix_alpha, rl(xm), rl(ym, 8), r(loss.detach()))

rng = np.random.default_rng(0)
img = Image.fromarray(rng.integers(0, 256, (40, 48, 3), dtype=np.uint8))
cfg = resolve_data_config({}, model=m)
print("data config", cfg)
t_eval = create_transform(32, is_training=False, crop_pct=0.875, interpolation="bicubic")
print("eval", [type(t).__name__ for t in t_eval.transforms])
e = t_eval(img)
print("eval out", list(e.shape), e.dtype, rl(e, 6), r(e.sum()))
torch.manual_seed(3)
random.seed(3)
t_train = create_transform(32, is_training=True, re_prob=0.5, color_jitter=0.3, hflip=0.5)
print("train", [type(t).__name__ for t in t_train.transforms])
outs = [t_train(img) for _ in range(3)]
print("train out", [list(o.shape) for o in outs], [r(o.sum()) for o in outs])
