"""Growing neural cellular automata (Mordvintsev et al. 2020, "Growing Neural Cellular Automata"; the
chenmingxiang110/Growing-Neural-Cellular-Automata and distill notebook PyTorch ports' idioms); own code, a small
synthetic RGBA target (a filled disc with a coloured ring).

Perception by a depthwise ``F.conv2d`` (``groups=channels``) with fixed identity and Sobel filters stacked by
``torch.stack`` + ``repeat``, circular padding by ``F.pad(mode="circular")``; an update MLP of 1x1 convolutions
whose last layer is zero-initialised; the stochastic cell update (``torch.rand(...) <= fire_rate``); alive masking
by ``F.max_pool2d(alpha, 3, 1, 1) > 0.1`` before and after the update; the seed as one live cell; a sample pool
with the highest-loss sample replaced by the seed (``argsort``), damage by circular masks; per-parameter
gradient normalisation (``p.grad / (p.grad.norm() + 1e-8)``) before Adam, ``MultiStepLR``; random step counts;
``torch.no_grad`` growth; bfloat16 ``autocast``; ``torch.compile`` of the update network; a ``state_dict``
round trip."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CH, HIDDEN, SIZE, FIRE = 12, 48, 16, 0.5


def make_target():
    ys, xs = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
    r = ((ys - SIZE / 2 + 0.5) ** 2 + (xs - SIZE / 2 + 0.5) ** 2).sqrt()
    alpha = (r < 5).float()
    rgb = torch.stack([(r < 3).float(), ((r >= 3) & (r < 5)).float(), 0.5 * alpha])
    return torch.cat([rgb * alpha, alpha[None]])[None]          # premultiplied RGBA (1, 4, H, W)


class CA(nn.Module):
    def __init__(self):
        super().__init__()
        ident = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
        sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8.0
        kernel = torch.stack([ident, sobel_x, sobel_x.T])            # (3, 3, 3)
        self.register_buffer("kernel", kernel.repeat(CH, 1, 1)[:, None])  # (3*CH, 1, 3, 3)
        self.update = nn.Sequential(nn.Conv2d(3 * CH, HIDDEN, 1), nn.ReLU(), nn.Conv2d(HIDDEN, CH, 1, bias=False))
        nn.init.zeros_(self.update[2].weight)

    def perceive(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), self.kernel, groups=CH)

    @staticmethod
    def alive(x):
        return F.max_pool2d(x[:, 3:4], kernel_size=3, stride=1, padding=1) > 0.1

    def forward(self, x, fire_rate=FIRE):
        pre = self.alive(x)
        dx = self.update(self.perceive(x))
        mask = (torch.rand(x.size(0), 1, x.size(2), x.size(3)) <= fire_rate).to(x.dtype)
        x = x + dx * mask
        post = self.alive(x)
        return x * (pre & post).to(x.dtype)


def seed(n):
    x = torch.zeros(n, CH, SIZE, SIZE)
    x[:, 3:, SIZE // 2, SIZE // 2] = 1.0
    return x


def damage(x):
    n = x.size(0)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, SIZE), torch.linspace(-1, 1, SIZE), indexing="ij")
    centre = torch.rand(n, 2, 1, 1) - 0.5
    r = torch.rand(n, 1, 1) * 0.3 + 0.2
    hole = ((xs - centre[:, 0]) ** 2 + (ys - centre[:, 1]) ** 2 < r ** 2).unsqueeze(1)
    return x * (~hole).to(x.dtype)


target = make_target()
print("target", tuple(target.shape), f"alpha sum {target[0, 3].sum().item():.1f}", target[0, :, 8, 8].tolist())
ca = CA()
print("kernel", tuple(ca.kernel.shape), ca.kernel[1, 0].tolist(), "buffers", list(dict(ca.named_buffers())))
print("params", sum(p.numel() for p in ca.parameters()))
x0 = seed(2)
print("alive seed", int(CA.alive(x0).sum()), "perceive", tuple(ca.perceive(x0).shape))
print("zero update", torch.equal(ca(x0), x0 * CA.alive(x0).to(x0.dtype)))

opt = torch.optim.Adam(ca.parameters(), lr=2e-3)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[6], gamma=0.3)
pool = seed(16)
for it in range(10):
    idx = torch.randperm(16)[:4]
    x = pool[idx]
    with torch.no_grad():
        per = F.mse_loss(x[:, :4], target.expand(4, -1, -1, -1), reduction="none").mean((1, 2, 3))
        order = per.argsort(descending=True)
        x = x[order]
        idx = idx[order]
        x[:1] = seed(1)
        if it >= 5:
            x[-1:] = damage(x[-1:])
    steps = int(torch.randint(8, 13, (1,)))
    for _ in range(steps):
        x = ca(x)
    loss = F.mse_loss(x[:, :4], target.expand(4, -1, -1, -1))
    opt.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in ca.parameters():
            p.grad /= p.grad.norm() + 1e-8
    opt.step()
    sched.step()
    pool[idx] = x.detach()
    if it % 3 == 2:
        print(f"iter {it + 1} steps {steps} loss {loss.item():.6f} lr {sched.get_last_lr()[0]:.5f} "
              f"alive {int(CA.alive(x).sum())}")

with torch.no_grad():
    x = seed(1)
    for _ in range(16):
        x = ca(x, fire_rate=1.0)
    grown = F.mse_loss(x[:, :4], target).item()
    rgba = x[0, :4].clamp(0, 1)
print(f"grown loss {grown:.6f} alive {int(CA.alive(x).sum())} rgba mean {rgba.mean().item():.6f}")
print("centre cell", x[0, :4, SIZE // 2, SIZE // 2])

with torch.autocast("cpu", dtype=torch.bfloat16):
    y = ca.update(ca.perceive(seed(1)))
print("autocast", y.dtype, ca.perceive(seed(1)).dtype)

upd = torch.compile(ca.update)
with torch.no_grad():
    p = ca.perceive(pool[:2])
    print("compiled update", torch.allclose(upd(p), ca.update(p), atol=1e-6))

buf = io.BytesIO()
torch.save(ca.state_dict(), buf)
buf.seek(0)
ca2 = CA()
print("load", ca2.load_state_dict(torch.load(buf)), sorted(ca.state_dict()))
with torch.no_grad():
    torch.manual_seed(5)
    a = ca2(pool[:2])
    torch.manual_seed(5)
    b = ca(pool[:2])
print("same", torch.equal(a, b))
