"""entmax's sparse probability maps and losses: sparsemax / entmax15 (sorting and top-k forms, any dim),
entmax_bisect with a learnable per-row alpha, sparsemax_bisect, normmax_bisect and budget_bisect, their custom
autograd Functions' gradients (checked with gradcheck in float64), the Fenchel-Young losses, and a small
attention classifier trained a few Adam steps with entmax15 attention and Entmax15Loss. Seeded, CPU."""
import torch
import torch.nn as nn
from entmax import (Entmax15, Entmax15Loss, EntmaxBisect, EntmaxBisectLoss, Sparsemax, SparsemaxLoss, budget_bisect,
                    entmax15, entmax_bisect, entmax15_loss, normmax_bisect, sparsemax, sparsemax_bisect,
                    sparsemax_loss)


def r(x, n=4):
    return round(float(x), n)


def rl(t, n=4):
    return [round(float(v), n) for v in t.flatten().tolist()]


torch.manual_seed(0)
x = torch.randn(3, 6) * 2
for name, fn in [("sparsemax", sparsemax), ("entmax15", entmax15), ("softmax", torch.softmax)]:
    p = fn(x, dim=-1)
    print(name, p.dtype, rl(p[0]), rl(p.sum(-1)), int((p == 0).sum()))
print("sparsemax dim0", rl(sparsemax(x, dim=0)[:, 0]), "entmax15 dim0", rl(entmax15(x, dim=0)[:, 1]))
print("topk", bool(torch.allclose(sparsemax(x, k=3), sparsemax(x), atol=1e-6)),
      bool(torch.allclose(entmax15(x, k=2), entmax15(x), atol=1e-6)))
print("bisect", rl(entmax_bisect(x, alpha=1.5)[0], 4), rl(sparsemax_bisect(x)[1], 4))
print("alpha 1.25 2.0", rl(entmax_bisect(x, alpha=1.25)[2], 4), rl(entmax_bisect(x, alpha=2.0)[2], 4))
print("normmax budget", rl(normmax_bisect(x, alpha=2)[0], 4), rl(budget_bisect(x, budget=2)[0], 4))
x3 = torch.randn(2, 3, 5)
print("3d", rl(entmax15(x3, dim=1).sum(1)), rl(sparsemax(x3, dim=-1)[1, 2]))
half = entmax15(x.half())
print("half", half.dtype, rl(half[0], 3))

# gradients of the custom autograd Functions
xd = (torch.randn(2, 5, dtype=torch.float64) * 2).requires_grad_()
for name, fn in [("sparsemax", lambda z: sparsemax(z, dim=-1)), ("entmax15", lambda z: entmax15(z, dim=-1)),
                 ("entmax_bisect", lambda z: entmax_bisect(z, alpha=1.5, n_iter=80)),
                 ("sparsemax_k", lambda z: sparsemax(z, k=2))]:
    ok = torch.autograd.gradcheck(fn, (xd,), atol=1e-5)
    w = torch.arange(5, dtype=torch.float64)
    (g,) = torch.autograd.grad((fn(xd) * w).sum(), xd)
    print("grad", name, ok, rl(g[0]))
alpha = torch.full((2, 1), 1.3, dtype=torch.float64, requires_grad=True)
y = entmax_bisect(xd, alpha=alpha, n_iter=80)
ga, gx = torch.autograd.grad((y * torch.arange(5.0, dtype=torch.float64)).sum(), (alpha, xd))
print("alpha grad", rl(ga), rl(gx[1]))

# the Fenchel-Young losses
target = torch.tensor([1, 4, 0])
for name, loss in [("sparsemax_loss", sparsemax_loss(x, target)), ("entmax15_loss", entmax15_loss(x, target)),
                   ("SparsemaxLoss", SparsemaxLoss(reduction="elementwise_mean")(x, target)),
                   ("Entmax15Loss", Entmax15Loss(reduction="sum", k=3)(x, target)),
                   ("EntmaxBisectLoss", EntmaxBisectLoss(alpha=1.5, n_iter=60, reduction="none")(x, target))]:
    print(name, rl(loss))
xl = x.clone().requires_grad_()
Entmax15Loss(reduction="sum")(xl, target).backward()
print("loss grad", rl(xl.grad[0]))
ignore = SparsemaxLoss(ignore_index=4, reduction="elementwise_mean")(x, target)
print("ignore_index", r(ignore))


# a tiny attention classifier with entmax15 attention, trained with a Fenchel-Young loss
class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Parameter(torch.randn(8) * 0.5)
        self.proj = nn.Linear(4, 8)
        self.out = nn.Linear(8, 3)
        self.norm = Entmax15(dim=-1)

    def forward(self, seq):
        h = torch.tanh(self.proj(seq))
        att = self.norm(h @ self.q)
        return self.out((att.unsqueeze(-1) * h).sum(1)), att


torch.manual_seed(1)
model = Attn()
seqs = torch.randn(16, 7, 4)
labels = (seqs[:, :, 0].sum(1) > 0).long() + (seqs[:, :, 1].sum(1) > 1).long()
opt = torch.optim.Adam(model.parameters(), lr=5e-2)
crit = Entmax15Loss(reduction="elementwise_mean")
losses = []
for step in range(8):
    logits, att = model(seqs)
    loss = crit(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(r(loss))
logits, att = model(seqs)
print("train", losses)
print("attention", rl(att[0]), int((att == 0).sum()), r(model.q.grad.norm(), 5))
print("modules", rl(Sparsemax(dim=0)(x)[:, 2]), rl(EntmaxBisect(alpha=1.7, n_iter=60)(x)[1], 4))
