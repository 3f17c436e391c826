"""Volumetric segmentation in the style of wolny/pytorch-3dunet and MONAI-free V-Net/nnU-Net reference code
(own code; synthetic 16^3 volumes with spheres instead of a medical dataset).

A 3-D U-Net: ``Conv3d`` + ``InstanceNorm3d(affine=True)`` + ``LeakyReLU`` double convolutions, ``MaxPool3d``
encoder, ``ConvTranspose3d`` upsampling (and a ``F.interpolate(mode='trilinear')`` alternative) joined to skips by
``torch.cat``, deep-supervision heads; the soft Dice loss over ``F.one_hot(...).permute(0, 4, 1, 2, 3)`` with
smoothing, the generalised Dice weights ``1 / (sum ** 2)`` clamped, Dice + cross-entropy with class weights,
a Tversky/focal term, per-class hard Dice by ``argmax``; nnU-Net's ``PolyLRScheduler`` written as a ``LambdaLR``,
SGD with Nesterov momentum, ``clip_grad_norm_(12)``, a bfloat16 ``torch.autocast`` forward on CPU,
sliding-window inference with Gaussian importance weights built by ``torch.exp`` over a ``meshgrid``, flip test
time augmentation, a checkpoint dict with the optimiser state round-tripped through ``io.BytesIO``."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
            nn.LeakyReLU(0.01, inplace=True),
            nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
            nn.LeakyReLU(0.01, inplace=True))


class UNet3D(nn.Module):
    def __init__(self, in_channels=1, n_classes=3, f=(4, 8, 16), transpose=True):
        super().__init__()
        self.encoders = nn.ModuleList([DoubleConv(in_channels, f[0])] +
                                      [DoubleConv(f[i - 1], f[i]) for i in range(1, len(f))])
        self.pool = nn.MaxPool3d(2)
        self.transpose = transpose
        self.ups = nn.ModuleList([nn.ConvTranspose3d(f[i], f[i - 1], 2, stride=2) if transpose else
                                  nn.Conv3d(f[i], f[i - 1], 1) for i in range(len(f) - 1, 0, -1)])
        self.decoders = nn.ModuleList([DoubleConv(2 * f[i - 1], f[i - 1]) for i in range(len(f) - 1, 0, -1)])
        self.heads = nn.ModuleList([nn.Conv3d(f[i - 1], n_classes, 1) for i in range(len(f) - 1, 0, -1)])
        for m in self.modules():
            if isinstance(m, (nn.Conv3d, nn.ConvTranspose3d)):
                nn.init.kaiming_normal_(m.weight, a=0.01)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        skips = []
        for i, enc in enumerate(self.encoders):
            x = enc(x if i == 0 else self.pool(x))
            skips.append(x)
        outs = []
        for up, dec, head, skip in zip(self.ups, self.decoders, self.heads, reversed(skips[:-1])):
            if self.transpose:
                x = up(x)
            else:
                x = up(F.interpolate(x, size=skip.shape[2:], mode="trilinear", align_corners=False))
            x = dec(torch.cat([skip, x], dim=1))
            outs.append(head(x))
        return outs[::-1] if self.training else outs[-1]


def soft_dice_loss(logits, target, smooth=1e-5, generalized=False):
    probs = torch.softmax(logits, dim=1)
    onehot = F.one_hot(target, probs.shape[1]).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    intersect = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    if generalized:
        w = 1.0 / onehot.sum(dims).pow(2).clamp(min=1e-6)
        return 1 - 2 * (w * intersect).sum() / (w * denom).sum().clamp(min=smooth)
    dice = (2 * intersect + smooth) / (denom + smooth)
    return 1 - dice[1:].mean()


def tversky_focal(logits, target, alpha=0.3, beta=0.7, gamma=0.75):
    probs = torch.softmax(logits, dim=1)
    onehot = F.one_hot(target, probs.shape[1]).movedim(-1, 1).float()
    tp = (probs * onehot).sum((2, 3, 4))
    fp = (probs * (1 - onehot)).sum((2, 3, 4))
    fn = ((1 - probs) * onehot).sum((2, 3, 4))
    tversky = (tp + 1) / (tp + alpha * fp + beta * fn + 1)
    return torch.pow(1 - tversky, gamma).mean()


def hard_dice(pred, target, n_classes):
    out = []
    for c in range(1, n_classes):
        p, t = pred == c, target == c
        inter = (p & t).sum().item()
        total = p.sum().item() + t.sum().item()
        out.append(round(2 * inter / total, 4) if total else float("nan"))
    return out


def make_volume(n, size=16):
    grid = torch.stack(torch.meshgrid(*[torch.arange(size).float()] * 3, indexing="ij"))
    vols, labels = [], []
    for _ in range(n):
        c1 = torch.randint(4, size - 4, (3,)).float()
        c2 = torch.randint(4, size - 4, (3,)).float()
        d1 = ((grid - c1.view(3, 1, 1, 1)) ** 2).sum(0).sqrt()
        d2 = ((grid - c2.view(3, 1, 1, 1)) ** 2).sum(0).sqrt()
        label = torch.zeros(size, size, size, dtype=torch.long)
        label[d1 < 4] = 1
        label[d2 < 2.5] = 2
        vol = label.float() * 0.8 + 0.4 * torch.randn(size, size, size)
        vols.append(vol[None])
        labels.append(label)
    return torch.stack(vols), torch.stack(labels)


def gaussian_importance(size, sigma_scale=0.125):
    coords = [torch.arange(s).float() - (s - 1) / 2 for s in size]
    zz, yy, xx = torch.meshgrid(*coords, indexing="ij")
    sig = [s * sigma_scale for s in size]
    g = torch.exp(-(zz ** 2 / (2 * sig[0] ** 2) + yy ** 2 / (2 * sig[1] ** 2) + xx ** 2 / (2 * sig[2] ** 2)))
    g = g / g.max()
    g[g == 0] = g[g != 0].min()
    return g


@torch.no_grad()
def sliding_window(model, vol, patch=8, step=4, n_classes=3):
    _, _, D, H, W = vol.shape
    out = torch.zeros(vol.shape[0], n_classes, D, H, W)
    norm = torch.zeros(1, 1, D, H, W)
    g = gaussian_importance((patch,) * 3)
    for z in range(0, D - patch + 1, step):
        for y in range(0, H - patch + 1, step * 2):
            for x in range(0, W - patch + 1, step * 2):
                crop = vol[:, :, z:z + patch, y:y + patch, x:x + patch]
                logits = model(crop)
                logits = logits + torch.flip(model(torch.flip(crop, dims=(4,))), dims=(4,))
                out[:, :, z:z + patch, y:y + patch, x:x + patch] += torch.softmax(logits / 2, 1) * g
                norm[:, :, z:z + patch, y:y + patch, x:x + patch] += g
    return out / norm


vols, labels = make_volume(4)
print("data", tuple(vols.shape), labels.dtype, torch.bincount(labels.view(-1)).tolist())
model = UNet3D()
print("params", sum(p.numel() for p in model.parameters()), model.encoders[0][1], model.ups[0])
class_weights = torch.tensor([0.2, 1.0, 2.0])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.99, nesterov=True, weight_decay=3e-5)
max_steps = 8
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (1 - s / max_steps) ** 0.9)
ds_weights = torch.tensor([1.0, 0.5])
ds_weights = ds_weights / ds_weights.sum()
for step in range(max_steps):
    model.train()
    idx = torch.tensor([step % 4, (step + 1) % 4])
    x, y = vols[idx], labels[idx]
    outs = model(x)
    loss = 0
    for w, o in zip(ds_weights, outs):
        o = o.float()
        yy = y if o.shape[2:] == y.shape[1:] else F.interpolate(y[:, None].float(), size=o.shape[2:],
                                                                    mode="nearest")[:, 0].long()
        loss = loss + w * (soft_dice_loss(o, yy) + F.cross_entropy(o, yy, weight=class_weights))
    loss = loss + 0.1 * tversky_focal(outs[0].float(), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 12)
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.3f} norm {norm.item():.3f} lr {sched.get_last_lr()[0]:.5f}",
          [tuple(o.shape) for o in outs] if step == 0 else "", outs[0].dtype)

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    low = model(vols[:2])
    low_loss = soft_dice_loss(low.float(), labels[:2])
print("autocast", low.dtype, model.encoders[0][0].weight.dtype, f"{low_loss.item():.2f}")
with torch.no_grad():
    logits = model(vols[:2])
    gdl = soft_dice_loss(logits, labels[:2], generalized=True)
pred = logits.argmax(1)
print("eval", tuple(logits.shape), f"gdl {gdl.item():.3f}", hard_dice(pred, labels[:2], 3))
g = gaussian_importance((8, 8, 8))
print("gaussian", tuple(g.shape), round(g.min().item(), 5), round(g.sum().item(), 3))
probs = sliding_window(model, vols[:1])
print("sliding window", tuple(probs.shape), torch.allclose(probs.sum(1), torch.ones(1, 16, 16, 16), atol=1e-5),
      hard_dice(probs.argmax(1), labels[:1], 3))
ckpt = {"network_weights": model.state_dict(), "optimizer_state": opt.state_dict(), "current_epoch": 1}
buf = io.BytesIO()
torch.save(ckpt, buf)
buf.seek(0)
loaded = torch.load(buf)
clone = UNet3D()
clone.load_state_dict(loaded["network_weights"])
opt2 = torch.optim.SGD(clone.parameters(), lr=0.05, momentum=0.99, nesterov=True, weight_decay=3e-5)
opt2.load_state_dict(loaded["optimizer_state"])
clone.eval()
with torch.no_grad():
    same = torch.equal(clone(vols[:2]), logits)
print("checkpoint", same, loaded["current_epoch"], len(loaded["optimizer_state"]["state"]),
      opt2.param_groups[0]["nesterov"])
interp = UNet3D(transpose=False).eval()
with torch.no_grad():
    print("trilinear decoder", tuple(interp(vols[:1]).shape))
