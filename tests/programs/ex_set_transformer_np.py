"""Permutation-invariant set models and Neural Processes (juho-lee/set_transformer, manzilzaheer/DeepSets,
deepmind/neural-processes and soobinseo/Attentive-Neural-Process idioms; own code, synthetic data).

DeepSets: a shared phi MLP, sum pooling with a padding mask, rho MLP, predicting a set statistic; Set Transformer:
MAB/SAB/ISAB/PMA blocks with a hand-written multi-head attention (``split``/``cat`` over heads,
``torch.bmm``, softmax scaled by ``sqrt(dim_V)``, ``LayerNorm`` optional) and ``nn.MultiheadAttention`` with a
``key_padding_mask``; permutation-invariance checked by ``randperm``. A Conditional Neural Process (mean-pooled
deterministic path) and an Attentive Neural Process (self-attention over context pairs, a latent path with
``Normal``/``kl_divergence`` and ``rsample``, cross-attention from targets to contexts) trained on random GP-like
1-D functions (RBF covariance via ``torch.cdist``, ``torch.linalg.cholesky``), ``Normal.log_prob`` likelihood with
``softplus``-bounded scale, Adam with ``CosineAnnealingWarmRestarts``, ``clip_grad_norm_``, ``torch.no_grad``
evaluation and a ``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)


class MAB(nn.Module):
    def __init__(self, dim_Q, dim_K, dim_V, num_heads, ln=False):
        super().__init__()
        self.dim_V, self.num_heads = dim_V, num_heads
        self.fc_q = nn.Linear(dim_Q, dim_V)
        self.fc_k = nn.Linear(dim_K, dim_V)
        self.fc_v = nn.Linear(dim_K, dim_V)
        if ln:
            self.ln0 = nn.LayerNorm(dim_V)
            self.ln1 = nn.LayerNorm(dim_V)
        self.fc_o = nn.Linear(dim_V, dim_V)

    def forward(self, Q, K):
        Q = self.fc_q(Q)
        K, V = self.fc_k(K), self.fc_v(K)
        dim_split = self.dim_V // self.num_heads
        Q_ = torch.cat(Q.split(dim_split, 2), 0)
        K_ = torch.cat(K.split(dim_split, 2), 0)
        V_ = torch.cat(V.split(dim_split, 2), 0)
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(self.dim_V), 2)
        O = torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
        O = O if getattr(self, "ln0", None) is None else self.ln0(O)
        O = O + F.relu(self.fc_o(O))
        O = O if getattr(self, "ln1", None) is None else self.ln1(O)
        return O


class SAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, ln=False):
        super().__init__()
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln=ln)

    def forward(self, X):
        return self.mab(X, X)


class ISAB(nn.Module):
    def __init__(self, dim_in, dim_out, num_heads, num_inds, ln=False):
        super().__init__()
        self.I = nn.Parameter(torch.Tensor(1, num_inds, dim_out))
        nn.init.xavier_uniform_(self.I)
        self.mab0 = MAB(dim_out, dim_in, dim_out, num_heads, ln=ln)
        self.mab1 = MAB(dim_in, dim_out, dim_out, num_heads, ln=ln)

    def forward(self, X):
        H = self.mab0(self.I.repeat(X.size(0), 1, 1), X)
        return self.mab1(X, H)


class PMA(nn.Module):
    def __init__(self, dim, num_heads, num_seeds, ln=False):
        super().__init__()
        self.S = nn.Parameter(torch.Tensor(1, num_seeds, dim))
        nn.init.xavier_uniform_(self.S)
        self.mab = MAB(dim, dim, dim, num_heads, ln=ln)

    def forward(self, X):
        return self.mab(self.S.repeat(X.size(0), 1, 1), X)


class SetTransformer(nn.Module):
    def __init__(self, dim_input, num_outputs, dim_output, num_inds=4, dim_hidden=16, num_heads=4, ln=True):
        super().__init__()
        self.enc = nn.Sequential(ISAB(dim_input, dim_hidden, num_heads, num_inds, ln=ln),
                                 ISAB(dim_hidden, dim_hidden, num_heads, num_inds, ln=ln))
        self.dec = nn.Sequential(PMA(dim_hidden, num_heads, num_outputs, ln=ln),
                                 SAB(dim_hidden, dim_hidden, num_heads, ln=ln), nn.Linear(dim_hidden, dim_output))

    def forward(self, X):
        return self.dec(self.enc(X))


class DeepSets(nn.Module):
    def __init__(self, dim_in, dim_hidden=16, dim_out=1):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(dim_in, dim_hidden), nn.ELU(), nn.Linear(dim_hidden, dim_hidden))
        self.rho = nn.Sequential(nn.ELU(), nn.Linear(dim_hidden, dim_hidden), nn.ELU(), nn.Linear(dim_hidden, dim_out))

    def forward(self, X, mask=None):
        h = self.phi(X)
        if mask is not None:
            h = h * mask.unsqueeze(-1)
        return self.rho(h.sum(1))


def make_sets(n, max_len=10):
    lens = torch.randint(3, max_len + 1, (n,))
    X = torch.randn(n, max_len, 2)
    mask = torch.arange(max_len)[None] < lens[:, None]
    X = X * mask.unsqueeze(-1)
    target = (X.norm(dim=-1) * mask).amax(1)  # the largest norm in the set
    return X, mask, target


X, mask, target = make_sets(64)
print("sets", tuple(X.shape), mask.sum(1)[:6].tolist(), f"{target[:3].sum():.4f}")
ds = DeepSets(2)
st = SetTransformer(2, 1, 1)
print("params deepsets", sum(p.numel() for p in ds.parameters()), "set transformer",
      sum(p.numel() for p in st.parameters()))
for name, model in (("deepsets", ds), ("settransformer", st)):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        total = 0.0
        for i in range(0, 64, 16):
            xb, mb, tb = X[i:i + 16], mask[i:i + 16], target[i:i + 16]
            pred = model(xb, mb).squeeze(-1) if name == "deepsets" else model(xb[:, :8]).squeeze(-1).squeeze(-1)
            loss = F.l1_loss(pred, tb)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            opt.step()
            total += loss.item()
        print(f"{name} epoch {epoch} l1 {total / 4:.4f}")

with torch.no_grad():
    perm = torch.randperm(8)
    a = st(X[:4, :8])
    b = st(X[:4, perm])
    print("st invariant", tuple(a.shape), torch.allclose(a, b, atol=1e-5))
    enc = st.enc(X[:2, :8])
    print("st equivariant", torch.allclose(enc[:, perm], st.enc(X[:2, perm]), atol=1e-5))
    p10 = torch.randperm(10)
    d1, d2 = ds(X[:4], mask[:4]), ds(X[:4, p10], mask[:4, p10])
    print("deepsets invariant", tuple(d1.shape), torch.allclose(d1, d2, atol=1e-5))

mha = nn.MultiheadAttention(8, 2, batch_first=True)
seeds = torch.randn(3, 1, 8)
feats = torch.randn(3, 10, 8)
pad = ~mask[:3]
pooled, attn = mha(seeds, feats, feats, key_padding_mask=pad)
print("mha pool", tuple(pooled.shape), tuple(attn.shape), attn[pad[:, None, :]].abs().max().item(),
      [round(v, 4) for v in attn.sum(-1).flatten().tolist()])


# ---------------------------------------------------------------- neural processes
def gp_batch(b, n, ls=0.4, gen=None):
    x = torch.rand(b, n, 1, generator=gen) * 4 - 2
    k = torch.exp(-0.5 * torch.cdist(x, x).pow(2) / ls ** 2) + 1e-4 * torch.eye(n)
    L = torch.linalg.cholesky(k)
    y = L @ torch.randn(b, n, 1, generator=gen)
    return x, y


class CNP(nn.Module):
    def __init__(self, h=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, h))
        self.decoder = nn.Sequential(nn.Linear(h + 1, h), nn.ReLU(), nn.Linear(h, 2))

    def forward(self, xc, yc, xt):
        r = self.encoder(torch.cat([xc, yc], -1)).mean(1, keepdim=True)
        out = self.decoder(torch.cat([r.expand(-1, xt.size(1), -1), xt], -1))
        mu, log_sigma = out.chunk(2, -1)
        return Normal(mu, 0.1 + 0.9 * F.softplus(log_sigma))


class ANP(nn.Module):
    def __init__(self, h=16, heads=2):
        super().__init__()
        self.det_in = nn.Linear(2, h)
        self.self_attn = nn.MultiheadAttention(h, heads, batch_first=True)
        self.q_proj = nn.Linear(1, h)
        self.k_proj = nn.Linear(1, h)
        self.cross_attn = nn.MultiheadAttention(h, heads, batch_first=True)
        self.lat = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h))
        self.lat_out = nn.Linear(h, 2 * h)
        self.decoder = nn.Sequential(nn.Linear(2 * h + 1, h), nn.ReLU(), nn.Linear(h, 2))

    def latent(self, x, y):
        s = self.lat(torch.cat([x, y], -1)).mean(1)
        mu, raw = self.lat_out(F.relu(s)).chunk(2, -1)
        return Normal(mu, 0.1 + 0.9 * torch.sigmoid(raw))

    def forward(self, xc, yc, xt, yt=None):
        d = self.det_in(torch.cat([xc, yc], -1))
        d, _ = self.self_attn(d, d, d)
        r, weights = self.cross_attn(self.q_proj(xt), self.k_proj(xc), d)
        prior = self.latent(xc, yc)
        post = self.latent(xt, yt) if yt is not None else prior
        z = post.rsample().unsqueeze(1).expand(-1, xt.size(1), -1)
        out = self.decoder(torch.cat([r, z, xt], -1))
        mu, log_sigma = out.chunk(2, -1)
        kl = kl_divergence(post, prior).sum(-1).mean() if yt is not None else None
        return Normal(mu, 0.1 + 0.9 * F.softplus(log_sigma)), kl, weights


gen = torch.Generator().manual_seed(11)
cnp, anp = CNP(), ANP()
for name, model in (("cnp", cnp), ("anp", anp)):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=1, eta_min=1e-4)
    for step in range(8):
        x, y = gp_batch(8, 14, gen=gen)
        nc = 5 + step % 4
        xc, yc = x[:, :nc], y[:, :nc]
        if name == "cnp":
            dist = model(xc, yc, x)
            loss = -dist.log_prob(y).mean()
        else:
            dist, kl, w = model(xc, yc, x, y)
            loss = -dist.log_prob(y).sum(1).mean() / x.size(1) + kl / x.size(1)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        if step % 2 == 1:
            print(f"{name} step {step} nll {loss.item():.4f} lr {sched.get_last_lr()[0]:.6f}")
print("anp attention", tuple(w.shape), f"{w.sum(-1).mean():.4f}", "kl", f"{kl.item():.4f}")

with torch.no_grad():
    x, y = gp_batch(2, 20, gen=gen)
    xt = torch.linspace(-2, 2, 9).view(1, 9, 1).expand(2, -1, -1)
    pred = cnp(x[:, :6], y[:, :6], xt)
    print("cnp predict", tuple(pred.mean.shape), [round(v, 4) for v in pred.stddev[0, :3, 0].tolist()])
    torch.manual_seed(3)
    pa, _, _ = anp(x[:, :6], y[:, :6], xt)
    print("anp predict", [round(v, 4) for v in pa.mean[1, :3, 0].tolist()], f"{pa.log_prob(pa.mean).mean():.4f}")
buf = io.BytesIO()
torch.save({"cnp": cnp.state_dict(), "st": st.state_dict()}, buf)
buf.seek(0)
sd = torch.load(buf)
st2 = SetTransformer(2, 1, 1)
print("load", st2.load_state_dict(sd["st"]), [k for k in sd["st"] if k.endswith(".I")])
