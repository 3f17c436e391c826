"""EfficientNet / MobileNetV3 building blocks in the style of lukemelas/EfficientNet-PyTorch and torchvision's
efficientnet.py (own code, a width-scaled toy network on synthetic 32x32 images).

``round_filters`` / ``round_repeats`` compound scaling, ``Conv2dStaticSamePadding``-style "same" padding with
``F.pad``, MBConv (1x1 expansion, depthwise conv with ``groups=channels``, squeeze-and-excitation through
``adaptive_avg_pool2d`` + ``SiLU``/``sigmoid`` gates, 1x1 projection with ``BatchNorm2d(momentum=0.01, eps=1e-3)``),
per-sample stochastic depth ("row" mode: a Bernoulli keep mask ``div_(keep_prob)``), block drop rates growing
linearly with depth, ``Hardswish``/``Hardsigmoid`` in a MobileNetV3 inverted residual, label smoothing,
RMSprop with ``CosineAnnealingWarmRestarts`` stepped per iteration with a fractional epoch, ``clip_grad_norm_``,
a CPU ``torch.autocast(dtype=torch.bfloat16)`` forward, an EMA copy of the weights, ``torch.compile`` on the
head and ``torch.no_grad`` evaluation."""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def round_filters(filters, width_coefficient, divisor=8):
    filters *= width_coefficient
    new_filters = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    if new_filters < 0.9 * filters:
        new_filters += divisor
    return int(new_filters)


def round_repeats(repeats, depth_coefficient):
    return int(math.ceil(depth_coefficient * repeats))


class Conv2dSame(nn.Conv2d):
    def forward(self, x):
        ih, iw = x.size()[-2:]
        kh, kw = self.weight.size()[-2:]
        sh, sw = self.stride
        oh, ow = math.ceil(ih / sh), math.ceil(iw / sw)
        pad_h = max((oh - 1) * self.stride[0] + (kh - 1) * self.dilation[0] + 1 - ih, 0)
        pad_w = max((ow - 1) * self.stride[1] + (kw - 1) * self.dilation[1] + 1 - iw, 0)
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


def stochastic_depth(x, p, training, mode="row"):
    if not training or p == 0.0:
        return x
    survival_rate = 1.0 - p
    size = [x.shape[0]] + [1] * (x.ndim - 1) if mode == "row" else [1] * x.ndim
    noise = torch.empty(size, dtype=x.dtype, device=x.device).bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return x * noise


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels, activation=nn.SiLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return scale * x


class MBConv(nn.Module):
    def __init__(self, cin, cout, expand_ratio, kernel, stride, se_ratio, drop_rate, act=nn.SiLU,
                 se_gate=nn.Sigmoid):
        super().__init__()
        self.use_res_connect = stride == 1 and cin == cout
        hidden = cin * expand_ratio
        layers = []
        if expand_ratio != 1:
            layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3), act()]
        layers += [Conv2dSame(hidden, hidden, kernel, stride=stride, groups=hidden, bias=False),
                   nn.BatchNorm2d(hidden, momentum=0.01, eps=1e-3), act()]
        if se_ratio:
            layers.append(SqueezeExcitation(hidden, max(1, int(cin * se_ratio)), scale_activation=se_gate))
        layers += [nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout, momentum=0.01, eps=1e-3)]
        self.block = nn.Sequential(*layers)
        self.drop_rate = drop_rate

    def forward(self, x):
        out = self.block(x)
        if self.use_res_connect:
            out = stochastic_depth(out, self.drop_rate, self.training) + x
        return out


class TinyEfficientNet(nn.Module):
    # (expand, kernel, stride, in, out, repeats)
    cfg = [(1, 3, 1, 16, 8, 1), (4, 5, 2, 8, 16, 2)]

    def __init__(self, width=1.0, depth=1.0, num_classes=4, drop_connect_rate=0.2):
        super().__init__()
        stem = round_filters(16, width)
        self.stem = nn.Sequential(Conv2dSame(3, stem, 3, stride=2, bias=False), nn.BatchNorm2d(stem), nn.SiLU())
        total = sum(round_repeats(r, depth) for *_, r in self.cfg)
        blocks, idx = [], 0
        for e, k, s, cin, cout, r in self.cfg:
            cin, cout = round_filters(cin, width), round_filters(cout, width)
            for i in range(round_repeats(r, depth)):
                blocks.append(MBConv(cin if i == 0 else cout, cout, e, k, s if i == 0 else 1, 0.25,
                                     drop_connect_rate * idx / total))
                idx += 1
        blocks.append(MBConv(cout, cout, 3, 3, 1, 0.25, drop_connect_rate, act=nn.Hardswish,
                             se_gate=nn.Hardsigmoid))
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(cout, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                init_range = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -init_range, init_range)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


print("round_filters", [round_filters(c, 1.1) for c in (16, 24, 40, 80)], [round_repeats(r, 1.2) for r in (1, 2, 3)])
conv = Conv2dSame(2, 2, 3, stride=2)
print("same pad", tuple(conv(torch.randn(1, 2, 7, 9)).shape), tuple(conv(torch.randn(1, 2, 8, 8)).shape))
sd = stochastic_depth(torch.ones(8, 2, 1, 1), 0.5, True)
print("stochastic depth", sd[:, 0, 0, 0].tolist(), stochastic_depth(torch.ones(2, 1), 0.5, False).tolist())
model = TinyEfficientNet(width=1.0, depth=1.0)
print("blocks", len(model.blocks), [round(b.drop_rate, 3) for b in model.blocks])
print("params", sum(p.numel() for p in model.parameters()), model.blocks[1].block[3])
print(model.blocks[-1].block[7])

images = torch.randn(32, 3, 32, 32)
labels = (images[:, 0].mean((1, 2)) > 0).long() + 2 * (images[:, 1].mean((1, 2)) > 0).long()
opt = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9, eps=1e-3, momentum=0.9, weight_decay=1e-5)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-4)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
ema = copy.deepcopy(model)
for p in ema.parameters():
    p.requires_grad_(False)
iters = 4
for epoch in range(3):
    model.train()
    for i, (xb, yb) in enumerate(zip(images.split(8), labels.split(8))):
        out = model(xb)
        loss = criterion(out, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step(epoch + (i + 1) / iters)
        with torch.no_grad():
            for e, m in zip(ema.state_dict().values(), model.state_dict().values()):
                if e.dtype.is_floating_point:
                    e.mul_(0.9).add_(m.detach(), alpha=0.1)
                else:
                    e.copy_(m)
    print(f"epoch {epoch} loss {loss.item():.4f} norm {norm.item():.4f} lr {opt.param_groups[0]['lr']:.6f}")
bn = model.blocks[1].block[1]
print("bn", bn.num_batches_tracked.item(), [round(v, 4) for v in bn.running_var[:3].tolist()])

model.eval()
with torch.autocast("cpu", dtype=torch.bfloat16):
    out_bf = model(images[:8])
print("autocast", out_bf.dtype, tuple(out_bf.shape))
with torch.no_grad():
    full = model(images[:8])
    acc = (full.argmax(1) == labels[:8]).float().mean().item()
    ema_out = ema(images[:8])
print("eval", [round(v, 3) for v in full[0].tolist()], f"acc {acc:.3f}", "ema", [round(v, 3) for v in ema_out[0].tolist()])
print("autocast close", torch.allclose(out_bf.float(), full, atol=0.2, rtol=0.1))
head = torch.compile(model.head)
with torch.no_grad():
    feats = model.blocks(model.stem(images[:8]))
    print("compiled head", torch.allclose(head(feats), full, atol=1e-5), type(head).__name__)
