"""Knowledge-graph embedding models in the style of KnowledgeGraphEmbedding (DeepGraphLearning) and OpenKE (own
code; a synthetic graph of triples in place of FB15k): TransE (L1/L2 distance ``torch.norm(h + r - t, p=...)``
with ``margin_ranking_loss`` over corrupted heads/tails), RotatE (relation phases turned into unit complex numbers
by ``torch.polar``, entities as ``view_as_complex`` of a ``(..., 2)`` float tensor, ``abs`` of the complex
difference, self-adversarial negative sampling weights by ``softmax(...).detach()`` and ``logsigmoid``), ComplEx
(``torch.complex`` from real/imaginary embeddings, ``Re(<h, r, conj(t)>)`` by ``(h * r * t.conj()).real``, N3
regularisation) and DistMult. Negative sampling by ``torch.randint`` with a head/tail mode mask, Adagrad/Adam,
``clip_grad_norm_``, entity renormalisation under ``torch.no_grad`` with ``F.normalize``, filtered ranking
evaluation (``scatter_`` of a filter mask, ``argsort`` ranks, MRR and Hits@k) and a ``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_ENT, N_REL, DIM = 30, 4, 16


def make_triples(n):
    h = torch.randint(0, N_ENT, (n,))
    r = torch.randint(0, N_REL, (n,))
    t = (h * (r + 2) + 3) % N_ENT  # a functional relation per r: learnable structure
    return torch.stack([h, r, t], 1)


train = make_triples(120)
test = make_triples(16)
known = {tuple(x) for x in torch.cat([train, test]).tolist()}
print("triples", tuple(train.shape), train.dtype, train[:3].tolist())


def corrupt(pos, k, generator=None):
    """k negatives per positive, replacing the head or the tail (mode chosen per row)."""
    n = pos.size(0)
    neg = pos.unsqueeze(1).repeat(1, k, 1)
    rand_ent = torch.randint(0, N_ENT, (n, k), generator=generator)
    head_mode = torch.rand(n, 1, generator=generator) < 0.5
    neg[..., 0] = torch.where(head_mode, rand_ent, neg[..., 0])
    neg[..., 2] = torch.where(head_mode, neg[..., 2], rand_ent)
    return neg


class TransE(nn.Module):
    def __init__(self, p=1, margin=2.0):
        super().__init__()
        self.p, self.margin = p, margin
        self.ent = nn.Embedding(N_ENT, DIM)
        self.rel = nn.Embedding(N_REL, DIM)
        bound = 6 / math.sqrt(DIM)
        nn.init.uniform_(self.ent.weight, -bound, bound)
        nn.init.uniform_(self.rel.weight, -bound, bound)
        with torch.no_grad():
            self.rel.weight.div_(self.rel.weight.norm(p=2, dim=1, keepdim=True))

    def forward(self, trip):
        h, r, t = self.ent(trip[..., 0]), self.rel(trip[..., 1]), self.ent(trip[..., 2])
        return -torch.norm(h + r - t, p=self.p, dim=-1)  # higher is better


class RotatE(nn.Module):
    def __init__(self, gamma=6.0):
        super().__init__()
        self.gamma = gamma
        self.eps = 2.0
        self.range = (gamma + self.eps) / DIM
        self.ent = nn.Parameter(torch.empty(N_ENT, DIM, 2).uniform_(-self.range, self.range))
        self.phase = nn.Parameter(torch.empty(N_REL, DIM).uniform_(-self.range, self.range))

    def forward(self, trip):
        h = torch.view_as_complex(self.ent[trip[..., 0]])
        t = torch.view_as_complex(self.ent[trip[..., 2]])
        theta = self.phase[trip[..., 1]] / (self.range / math.pi)
        r = torch.polar(torch.ones_like(theta), theta)
        return self.gamma - (h * r - t).abs().sum(-1)


class ComplEx(nn.Module):
    def __init__(self):
        super().__init__()
        self.re = nn.Embedding(N_ENT, DIM)
        self.im = nn.Embedding(N_ENT, DIM)
        self.rel_re = nn.Embedding(N_REL, DIM)
        self.rel_im = nn.Embedding(N_REL, DIM)
        for e in (self.re, self.im, self.rel_re, self.rel_im):
            nn.init.normal_(e.weight, std=0.1)

    def embed(self, trip):
        h = torch.complex(self.re(trip[..., 0]), self.im(trip[..., 0]))
        r = torch.complex(self.rel_re(trip[..., 1]), self.rel_im(trip[..., 1]))
        t = torch.complex(self.re(trip[..., 2]), self.im(trip[..., 2]))
        return h, r, t

    def forward(self, trip):
        h, r, t = self.embed(trip)
        return (h * r * t.conj()).real.sum(-1)

    def n3(self, trip):
        h, r, t = self.embed(trip)
        return (h.abs() ** 3 + r.abs() ** 3 + t.abs() ** 3).sum() / trip.size(0)


class DistMult(nn.Module):
    def __init__(self):
        super().__init__()
        self.ent = nn.Embedding(N_ENT, DIM)
        self.rel = nn.Embedding(N_REL, DIM)
        nn.init.xavier_uniform_(self.ent.weight)
        nn.init.xavier_uniform_(self.rel.weight)

    def forward(self, trip):
        return (self.ent(trip[..., 0]) * self.rel(trip[..., 1]) * self.ent(trip[..., 2])).sum(-1)


@torch.no_grad()
def evaluate(model, triples):
    """Filtered tail ranking: score every entity as tail, mask other known true tails, rank the true one."""
    model.eval()
    n = triples.size(0)
    cand = triples.unsqueeze(1).repeat(1, N_ENT, 1)
    cand[..., 2] = torch.arange(N_ENT)
    scores = model(cand)
    filt = torch.zeros(n, N_ENT, dtype=torch.bool)
    for i, (h, r, t) in enumerate(triples.tolist()):
        others = [e for e in range(N_ENT) if e != t and (h, r, e) in known]
        if others:
            filt[i].scatter_(0, torch.tensor(others), True)
    scores = scores.masked_fill(filt, float("-inf"))
    order = scores.argsort(dim=1, descending=True)
    ranks = (order == triples[:, 2:3]).nonzero()[:, 1] + 1
    model.train()
    return (1.0 / ranks.float()).mean().item(), (ranks <= 3).float().mean().item(), (ranks <= 10).float().mean().item()


gen = torch.Generator().manual_seed(1)
neg = corrupt(train[:4], 3, generator=gen)
print("negatives", tuple(neg.shape), (neg[..., 1] == train[:4, 1:2]).all().item(),
      ((neg[..., 0] == train[:4, 0:1]) | (neg[..., 2] == train[:4, 2:3])).all().item())

# TransE with margin ranking
transe = TransE(p=1)
opt = torch.optim.SGD(transe.parameters(), lr=0.05)
for epoch in range(4):
    total = 0.0
    for batch in train.split(40):
        negs = corrupt(batch, 2)
        pos_s = transe(batch).unsqueeze(1).expand(-1, 2)
        neg_s = transe(negs)
        loss = F.margin_ranking_loss(pos_s, neg_s, torch.ones_like(pos_s), margin=transe.margin)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            transe.ent.weight.data = F.normalize(transe.ent.weight.data, p=2, dim=1)
        total += loss.item()
    print(f"transe epoch {epoch} loss {total:.4f}")
print("transe ent norms", [round(v, 4) for v in transe.ent.weight.norm(dim=1)[:3].tolist()])
mrr, h3, h10 = evaluate(transe, test)
print(f"transe mrr {mrr:.4f} hits@3 {h3:.4f} hits@10 {h10:.4f}")
l2 = TransE(p=2)
l2.load_state_dict(transe.state_dict())
print(f"transe l2 score {l2(test[:2]).tolist()[0]:.4f} {torch.cdist(l2.ent.weight[:2], l2.ent.weight[2:4]).sum():.4f}")

# RotatE with self-adversarial negative sampling
rotate = RotatE()
opt = torch.optim.Adam(rotate.parameters(), lr=0.02)
h = torch.view_as_complex(rotate.ent[:2])
print("rotate complex", h.dtype, tuple(h.shape), torch.view_as_real(h).shape == rotate.ent[:2].shape)
theta = torch.tensor([0.0, math.pi / 2])
print("polar", [round(v, 4) for v in torch.view_as_real(torch.polar(torch.ones(2), theta)).flatten().tolist()])
for epoch in range(4):
    total = 0.0
    for batch in train.split(40):
        negs = corrupt(batch, 4)
        pos = F.logsigmoid(rotate(batch))
        neg_scores = rotate(negs)
        weights = F.softmax(neg_scores * 1.0, dim=1).detach()
        negl = (weights * F.logsigmoid(-neg_scores)).sum(1)
        loss = -(pos.mean() + negl.mean()) / 2
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(rotate.parameters(), 5.0)
        opt.step()
        total += loss.item()
    print(f"rotate epoch {epoch} loss {total:.4f} grad norm {gn:.4f}")
mrr, h3, h10 = evaluate(rotate, test)
print(f"rotate mrr {mrr:.4f} hits@3 {h3:.4f} hits@10 {h10:.4f}")
r = torch.polar(torch.ones(3), rotate.phase[0, :3] / (rotate.range / math.pi))
print("rotate relation moduli", [round(v, 4) for v in r.abs().tolist()], r.angle().dtype)

# ComplEx with N3 and full 1-vs-all cross entropy; DistMult with BCE
complex_model = ComplEx()
opt = torch.optim.Adagrad(complex_model.parameters(), lr=0.1)
for epoch in range(4):
    cand = train.unsqueeze(1).repeat(1, N_ENT, 1)
    cand[..., 2] = torch.arange(N_ENT)
    logits = complex_model(cand)
    loss = F.cross_entropy(logits, train[:, 2]) + 1e-3 * complex_model.n3(train)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"complex epoch {epoch} loss {loss.item():.4f}")
mrr, h3, h10 = evaluate(complex_model, test)
print(f"complex mrr {mrr:.4f} hits@3 {h3:.4f} hits@10 {h10:.4f}")
grad = complex_model.re.weight.grad
print("complex grad", grad.dtype, tuple(grad.shape), f"{grad.abs().sum():.4f}")

distmult = DistMult()
opt = torch.optim.Adam(distmult.parameters(), lr=0.05)
for epoch in range(3):
    negs = corrupt(train, 2).reshape(-1, 3)
    trips = torch.cat([train, negs])
    labels = torch.cat([torch.ones(len(train)), torch.zeros(len(negs))])
    loss = F.binary_cross_entropy_with_logits(distmult(trips), labels * 0.9 + 0.05)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"distmult epoch {epoch} loss {loss.item():.4f}")

buf = io.BytesIO()
torch.save({"rotate": rotate.state_dict(), "complex": complex_model.state_dict()}, buf)
buf.seek(0)
state = torch.load(buf)
again = RotatE()
print("load", again.load_state_dict(state["rotate"]), sorted(state["complex"]))
print("same scores", torch.equal(again(test), rotate(test)))
