"""Self-supervised losses without negatives (facebookresearch/dino, facebookresearch/barlowtwins,
facebookresearch/vicreg idioms); own code, two augmented views of synthetic 2-D "images".

DINO: a student and an EMA teacher (``copy.deepcopy`` + ``requires_grad_(False)``), a projection head ending in a
weight-normalised prototype layer (``nn.utils.parametrizations.weight_norm`` with the magnitude frozen), sharpened
teacher softmax with a centre updated as an EMA of the teacher outputs (a buffer), multi-crop cross-view
cross-entropy, the teacher momentum on a cosine schedule applied by ``torch._foreach_mul_``/``_foreach_add_``,
freezing the last layer's gradient for the first steps. Barlow Twins: batch-standardised embeddings, the
cross-correlation matrix, on-diagonal ``(1 - c_ii)^2`` and off-diagonal terms picked by ``flatten()[:-1].view(n -
1, n + 1)[:, 1:]``. VICReg: invariance MSE, variance hinge on ``sqrt(var + eps)`` and covariance off-diagonals.
SGD with momentum, LARS-free; ``ReduceLROnPlateau`` on the loss; ``clip_grad_norm_``; bfloat16 ``autocast``;
``torch.no_grad`` evaluation by a k-NN probe; ``state_dict`` round trips of the teacher."""
import copy
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_CLS, IMG = 4, 12


def sample(n):
    y = torch.randint(0, N_CLS, (n,))
    xs = torch.linspace(-1, 1, IMG)
    gy, gx = torch.meshgrid(xs, xs, indexing="ij")
    freq = (y + 1).float().view(-1, 1, 1)
    x = torch.sin(freq * math.pi * gx) * torch.cos(freq * math.pi * gy)
    return x.unsqueeze(1), y


def augment(x):
    noise = torch.randn_like(x) * 0.2
    flip = torch.rand(x.size(0), 1, 1, 1) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    scale = torch.empty(x.size(0), 1, 1, 1).uniform_(0.8, 1.2)
    return x * scale + noise


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.net(x)


class DINOHead(nn.Module):
    def __init__(self, d_in, out_dim=32, bottleneck=8):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d_in, 32), nn.GELU(), nn.Linear(32, bottleneck))
        self.last = nn.utils.parametrizations.weight_norm(nn.Linear(bottleneck, out_dim, bias=False))
        self.last.parametrizations.weight.original0.data.fill_(1)
        self.last.parametrizations.weight.original0.requires_grad = False

    def forward(self, x):
        return self.last(F.normalize(self.mlp(x), dim=-1, p=2))


class DINOLoss(nn.Module):
    def __init__(self, out_dim, t_student=0.1, t_teacher=0.04, momentum=0.9):
        super().__init__()
        self.ts, self.tt, self.m = t_student, t_teacher, momentum
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_out, teacher_out):
        s = [o / self.ts for o in student_out]
        t = [F.softmax((o - self.center) / self.tt, dim=-1).detach() for o in teacher_out]
        total, n = 0, 0
        for iq, q in enumerate(t):
            for v, sv in enumerate(s):
                if v == iq:
                    continue
                total = total + torch.sum(-q * F.log_softmax(sv, dim=-1), dim=-1).mean()
                n += 1
        self.update_center(torch.cat(teacher_out))
        return total / n

    @torch.no_grad()
    def update_center(self, teacher_out):
        self.center = self.center * self.m + teacher_out.mean(0, keepdim=True) * (1 - self.m)


student = nn.Sequential(Backbone(), DINOHead(16))
teacher = copy.deepcopy(student)
teacher.requires_grad_(False)
print("params", sum(p.numel() for p in student.parameters()), "trainable",
      sum(p.numel() for p in student.parameters() if p.requires_grad),
      "teacher grads", any(p.requires_grad for p in teacher.parameters()))
print("wn keys", [k for k in student.state_dict() if "parametrizations" in k])
dino = DINOLoss(32)
opt = torch.optim.SGD([p for p in student.parameters() if p.requires_grad], lr=0.05, momentum=0.9)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
steps = 9
s_params = [p for p in student.parameters()]
t_params = [p for p in teacher.parameters()]
for step in range(steps):
    x, _ = sample(16)
    globals_ = [augment(x), augment(x)]
    local = F.interpolate(augment(x), size=(8, 8), mode="bilinear", align_corners=False)
    local = F.pad(local, (2, 2, 2, 2))
    s_out = [student(v) for v in globals_ + [local]]
    with torch.no_grad():
        t_out = [teacher(v) for v in globals_]
    loss = dino(s_out, t_out)
    opt.zero_grad()
    loss.backward()
    if step < 3:  # freeze the last layer at the start
        for n, p in student.named_parameters():
            if "last" in n:
                p.grad = None
    gn = nn.utils.clip_grad_norm_(student.parameters(), 3.0)
    opt.step()
    plateau.step(loss.item())
    m = 1 - (1 - 0.9) * (math.cos(math.pi * step / steps) + 1) / 2
    with torch.no_grad():
        torch._foreach_mul_(t_params, m)
        torch._foreach_add_(t_params, s_params, alpha=1 - m)
    if step % 3 == 2:
        print(f"dino step {step + 1} loss {loss.item():.4f} gn {gn.item():.4f} m {m:.4f} "
              f"lr {opt.param_groups[0]['lr']:.4f} centre {dino.center.norm().item():.4f}")
print("centre", dino.center[0, :4])

# k-NN probe on teacher features
teacher.eval()
with torch.no_grad():
    xb, yb = sample(40)
    feats = F.normalize(teacher[0](xb), dim=1)
    sims = feats[20:] @ feats[:20].T
    nn_idx = sims.topk(3, dim=1).indices
    votes = F.one_hot(yb[:20][nn_idx], N_CLS).sum(1)
    acc = (votes.argmax(1) == yb[20:]).float().mean()
print(f"knn acc {acc:.4f}", nn_idx[:2].tolist())


# Barlow Twins and VICReg on a projector


def off_diagonal(x):
    n, m = x.shape
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


def barlow_loss(z1, z2, lambd=5e-3):
    bn = nn.functional.batch_norm
    c = bn(z1, None, None, training=True).T @ bn(z2, None, None, training=True) / z1.size(0)
    on = torch.diagonal(c).add_(-1).pow_(2).sum()
    off = off_diagonal(c).pow_(2).sum()
    return on + lambd * off, c


def vicreg_loss(x, y, sim=25.0, std=25.0, cov=1.0):
    repr_loss = F.mse_loss(x, y)
    x = x - x.mean(dim=0)
    y = y - y.mean(dim=0)
    std_x = torch.sqrt(x.var(dim=0) + 1e-4)
    std_y = torch.sqrt(y.var(dim=0) + 1e-4)
    std_loss = torch.mean(F.relu(1 - std_x)) / 2 + torch.mean(F.relu(1 - std_y)) / 2
    n, d = x.shape
    cov_x = (x.T @ x) / (n - 1)
    cov_y = (y.T @ y) / (n - 1)
    cov_loss = off_diagonal(cov_x).pow_(2).sum().div(d) + off_diagonal(cov_y).pow_(2).sum().div(d)
    return sim * repr_loss + std * std_loss + cov * cov_loss, (repr_loss, std_loss, cov_loss)


print("off_diagonal", off_diagonal(torch.arange(9.).view(3, 3)).tolist())
for name in ("barlow", "vicreg"):
    torch.manual_seed(1)
    enc = Backbone()
    proj = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16))
    params = list(enc.parameters()) + list(proj.parameters())
    opt = torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)
    for step in range(6):
        x, _ = sample(32)
        z1, z2 = proj(enc(augment(x))), proj(enc(augment(x)))
        if name == "barlow":
            loss, c = barlow_loss(z1, z2)
        else:
            loss, parts = vicreg_loss(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 2:
            extra = (f"diag {torch.diagonal(c).mean().item():.4f}" if name == "barlow"
                     else "parts " + " ".join(f"{p.item():.4f}" for p in parts))
            print(f"{name} step {step + 1} loss {loss.item():.4f} {extra}")

with torch.autocast("cpu", dtype=torch.bfloat16):
    z = proj(enc(sample(8)[0]))
    lb, _ = vicreg_loss(z, z)
print("autocast", z.dtype, lb.dtype)

buf = io.BytesIO()
torch.save({"teacher": teacher.state_dict(), "center": dino.center}, buf)
buf.seek(0)
ck = torch.load(buf)
t2 = copy.deepcopy(student)
print("load", t2.load_state_dict(ck["teacher"]), tuple(ck["center"].shape))
t2.eval()
with torch.no_grad():
    print("same", torch.equal(t2(xb[:4]), teacher(xb[:4])))
