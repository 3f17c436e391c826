"""word2vec (Mikolov et al.) as small PyTorch repositories write it: skip-gram with negative sampling and a CBOW
model on ``nn.EmbeddingBag``; own code, a synthetic corpus drawn from a few topic clusters.

Skip-gram: centre/context ``nn.Embedding(sparse=True)`` tables trained with ``optim.SparseAdam``, negatives drawn
by ``torch.multinomial`` from the unigram distribution raised to 3/4, the loss ``-logsigmoid(u.v) -
sum logsigmoid(-u.n)`` through ``torch.bmm``; subsampling of frequent words by ``torch.rand`` against
``1 - sqrt(t / f)``; a ``LambdaLR`` linear decay; the sparse gradient's layout and ``coalesce``. CBOW: an
``EmbeddingBag(mode='mean')`` over flattened context windows with ``offsets`` and ``per_sample_weights`` (mode
'sum'), Adam with ``clip_grad_norm_``, a ``CyclicLR`` schedule; nearest neighbours by ``F.normalize`` + ``topk``,
``torch.no_grad`` evaluation and ``state_dict`` round trips."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, WIN, NEG = 40, 16, 2, 4

# a corpus: 4 topics of 10 words; each sentence stays inside one topic, word 0 of a topic is frequent
sentences = []
for _ in range(60):
    topic = int(torch.randint(0, 4, (1,)))
    probs = torch.ones(10)
    probs[0] = 6.0
    words = torch.multinomial(probs, 8, replacement=True) + topic * 10
    sentences.append(words.tolist())
corpus = torch.tensor([w for s in sentences for w in s])
counts = torch.bincount(corpus, minlength=V).float()
freq = counts / counts.sum()
print("corpus", corpus.shape, corpus.dtype, counts[:5].tolist(), int((counts == 0).sum()))

# subsampling of frequent words
p_drop = (1 - torch.sqrt(1e-2 / freq.clamp_min(1e-12))).clamp(min=0)
keep = torch.rand(corpus.shape) >= p_drop[corpus]
print("kept", int(keep.sum()), "of", corpus.numel(), f"p_drop max {p_drop.max():.4f}")

# skip-gram pairs inside each sentence
pairs = []
for s in sentences:
    for i, c in enumerate(s):
        for j in range(max(0, i - WIN), min(len(s), i + WIN + 1)):
            if j != i:
                pairs.append((c, s[j]))
pairs = torch.tensor(pairs)
noise = freq ** 0.75
noise = noise / noise.sum()
print("pairs", tuple(pairs.shape), f"noise {noise.max():.4f} {noise.min():.6f}")


class SkipGram(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.u = nn.Embedding(V, D, sparse=True)
        self.v = nn.Embedding(V, D, sparse=True)
        r = 0.5 / D
        nn.init.uniform_(self.u.weight, -r, r)
        nn.init.zeros_(self.v.weight)

    def forward(self, centre, ctx, neg):
        u = self.u(centre)                          # (B, D)
        v = self.v(ctx)                             # (B, D)
        n = self.v(neg)                             # (B, K, D)
        pos = F.logsigmoid((u * v).sum(1).clamp(-10, 10))
        negs = F.logsigmoid(-torch.bmm(n, u.unsqueeze(2)).squeeze(2).clamp(-10, 10)).sum(1)
        return -(pos + negs).mean()


sg = SkipGram(V, D)
opt = torch.optim.SparseAdam(list(sg.parameters()), lr=0.05)
steps = 30
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - s / steps)
B = 64
for step in range(steps):
    idx = torch.randint(0, len(pairs), (B,))
    batch = pairs[idx]
    neg = torch.multinomial(noise, B * NEG, replacement=True).view(B, NEG)
    loss = sg(batch[:, 0], batch[:, 1], neg)
    opt.zero_grad()
    loss.backward()
    if step == 0:
        g = sg.u.weight.grad
        print("sparse grad", g.is_sparse, g.layout, g._nnz(), g.coalesce()._nnz(), tuple(g.shape))
    opt.step()
    sched.step()
    if step % 10 == 9:
        print(f"sg step {step + 1} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f}")

with torch.no_grad():
    emb = F.normalize(sg.u.weight, dim=1)
    sims = emb @ emb.T
    sims.fill_diagonal_(-1)
    top = sims.topk(3, dim=1).indices
    same_topic = (top // 10 == torch.arange(V).unsqueeze(1) // 10).float().mean()
print(f"sg neighbours same topic {same_topic:.4f}", top[:2].tolist())
print("sg sims", sims[0, :4])

# CBOW with EmbeddingBag: contexts flattened with offsets


class CBOW(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.emb = nn.EmbeddingBag(V, D, mode="mean")
        self.out = nn.Linear(D, V)

    def forward(self, flat, offsets):
        return self.out(self.emb(flat, offsets))


flat, offsets, targets = [], [], []
for s in sentences[:30]:
    for i, c in enumerate(s):
        ctx = [s[j] for j in range(max(0, i - WIN), min(len(s), i + WIN + 1)) if j != i]
        offsets.append(len(flat))
        flat.extend(ctx)
        targets.append(c)
flat, offsets, targets = torch.tensor(flat), torch.tensor(offsets), torch.tensor(targets)
print("cbow", flat.shape, offsets[:5].tolist(), targets.shape)
cbow = CBOW(V, D)
opt = torch.optim.Adam(cbow.parameters(), lr=0.01)
cyc = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.005, max_lr=0.05, step_size_up=5, cycle_momentum=False)
for step in range(20):
    logits = cbow(flat, offsets)
    loss = F.cross_entropy(logits, targets)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(cbow.parameters(), 1.0)
    opt.step()
    cyc.step()
    if step % 5 == 4:
        print(f"cbow step {step + 1} loss {loss.item():.4f} gnorm {gn.item():.4f} lr {cyc.get_last_lr()[0]:.4f}")

with torch.no_grad():
    acc = (cbow(flat, offsets).argmax(1) // 10 == targets // 10).float().mean()
print(f"cbow topic acc {acc:.4f}")

# per_sample_weights with mode='sum' equals the weighted mean by hand
bag = nn.EmbeddingBag(V, 4, mode="sum")
w = torch.rand(flat[:12].shape)
out = bag(flat[:12], offsets[:4], per_sample_weights=w)
by_hand = torch.stack([(bag.weight[flat[a:b]] * w[a:b, None]).sum(0)
                       for a, b in zip(offsets[:4].tolist(), offsets[1:5].tolist()[:3] + [12])])
print("per_sample_weights", tuple(out.shape), torch.allclose(out, by_hand, atol=1e-6))
print("bag out", out[0])

buf = io.BytesIO()
torch.save({"sg": sg.state_dict(), "cbow": cbow.state_dict()}, buf)
buf.seek(0)
state = torch.load(buf)
sg2, cbow2 = SkipGram(V, D), CBOW(V, D)
print("load", sg2.load_state_dict(state["sg"]), sorted(state["cbow"]))
cbow2.load_state_dict(state["cbow"])
with torch.no_grad():
    print("same", torch.equal(sg2.u.weight, sg.u.weight), torch.equal(cbow2(flat, offsets), cbow(flat, offsets)))
