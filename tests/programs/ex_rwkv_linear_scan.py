"""Recurrent-transformer scans in the style of BlinkDL/RWKV-LM (RWKV-4 "GPT mode" and "RNN mode") and of
parallel selective-scan reference code (own code; random tokens, tiny widths).

RWKV: token shift by ``nn.ZeroPad2d((0, 0, 1, -1))``, time-mix interpolation parameters, the WKV recurrence
computed three ways — a step-by-step RNN with the numerically stable running max (``torch.maximum``), a parallel
form over the whole sequence with a decay matrix built from ``torch.arange`` differences, and a chunked
``torch.cumsum`` form — all checked against each other; channel mix with squared ReLU; ``torch.compile`` of the
channel-mix module. A diagonal linear recurrence h_t = a_t * h_{t-1} + b_t x_t solved by ``torch.cumprod``
(and in log space by ``cumsum`` of ``log``) and ``torch.einsum``, against a Python loop, with gradients through
both. Training of a small RWKV language model with AdamW, warmup + ``CosineAnnealingLR`` via ``SequentialLR``,
``clip_grad_norm_``, ``bfloat16`` autocast evaluation on CPU, and generation in RNN mode reproducing the GPT-mode
logits."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def wkv_rnn(w, u, k, v):
    """w: (C,) log-decay (negative), u: (C,) bonus, k/v: (B, T, C)."""
    B, T, C = k.shape
    aa = torch.zeros(B, C)
    bb = torch.zeros(B, C)
    pp = torch.full((B, C), -1e38)
    out = []
    for t in range(T):
        kk, vv = k[:, t], v[:, t]
        ww = u + kk
        p = torch.maximum(pp, ww)
        e1, e2 = torch.exp(pp - p), torch.exp(ww - p)
        out.append((e1 * aa + e2 * vv) / (e1 * bb + e2))
        ww = pp + w
        p = torch.maximum(ww, kk)
        e1, e2 = torch.exp(ww - p), torch.exp(kk - p)
        aa = e1 * aa + e2 * vv
        bb = e1 * bb + e2
        pp = p
    return torch.stack(out, 1)


def wkv_parallel(w, u, k, v):
    B, T, C = k.shape
    t = torch.arange(T)
    diff = (t[:, None] - t[None, :] - 1).clamp(min=0).float()  # (T, T): steps of decay between j and i
    logits = k[:, None, :, :] + diff[None, :, :, None] * w  # (B, Ti, Tj, C)
    causal = (t[None, :] < t[:, None])[None, :, :, None]
    logits = torch.where(causal, logits, torch.tensor(float("-inf")))
    diag = (u + k)[:, :, None, :]  # the current token with its bonus
    all_logits = torch.cat([logits, diag], 2)
    weights = torch.softmax(all_logits, dim=2)
    values = torch.cat([v[:, None].expand(B, T, T, C), v[:, :, None]], 2)
    return (weights * values).sum(2)


def wkv_cumsum(w, u, k, v):
    B, T, C = k.shape
    t = torch.arange(T, dtype=torch.float32)[None, :, None]
    shift = k.max()
    ek = torch.exp(k - t * w - shift)  # exp(k_j - j*w), shifted for range
    num = torch.cumsum(ek * v, 1) - ek * v
    den = torch.cumsum(ek, 1) - ek
    scale = torch.exp((t - 1) * w)
    eu = torch.exp(u + k - shift)
    return (num * scale + eu * v) / (den * scale + eu)


class RWKV_TimeMix(nn.Module):
    def __init__(self, n_embd, layer_id, n_layer):
        super().__init__()
        ratio_0_to_1 = layer_id / max(n_layer - 1, 1)
        ratio_1_to_almost0 = 1.0 - layer_id / n_layer
        decay_speed = torch.ones(n_embd)
        for h in range(n_embd):
            decay_speed[h] = -5 + 8 * (h / (n_embd - 1)) ** (0.7 + 1.3 * ratio_0_to_1)
        self.time_decay = nn.Parameter(decay_speed)
        zigzag = torch.tensor([(i + 1) % 3 - 1 for i in range(n_embd)]) * 0.5
        self.time_first = nn.Parameter(torch.ones(n_embd) * math.log(0.3) + zigzag)
        x = torch.arange(n_embd).float()[None, None, :] / n_embd
        self.time_mix_k = nn.Parameter(torch.pow(x, ratio_1_to_almost0))
        self.time_mix_v = nn.Parameter(torch.pow(x, ratio_1_to_almost0) + 0.3 * ratio_0_to_1)
        self.time_mix_r = nn.Parameter(torch.pow(x, 0.5 * ratio_1_to_almost0))
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.output = nn.Linear(n_embd, n_embd, bias=False)

    def mix(self, x, xx):
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xv = x * self.time_mix_v + xx * (1 - self.time_mix_v)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        return self.key(xk), self.value(xv), torch.sigmoid(self.receptance(xr))

    def forward(self, x):
        k, v, sr = self.mix(x, self.time_shift(x))
        w = -torch.exp(self.time_decay)
        return self.output(sr * wkv_parallel(w, self.time_first, k, v))


class RWKV_ChannelMix(nn.Module):
    def __init__(self, n_embd, layer_id, n_layer):
        super().__init__()
        self.time_shift = nn.ZeroPad2d((0, 0, 1, -1))
        x = torch.arange(n_embd).float()[None, None, :] / n_embd
        self.time_mix_k = nn.Parameter(torch.pow(x, 1.0 - layer_id / n_layer))
        self.time_mix_r = nn.Parameter(torch.pow(x, 1.0 - layer_id / n_layer))
        self.key = nn.Linear(n_embd, 4 * n_embd, bias=False)
        self.receptance = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(4 * n_embd, n_embd, bias=False)

    def forward(self, x, xx=None):
        xx = self.time_shift(x) if xx is None else xx
        xk = x * self.time_mix_k + xx * (1 - self.time_mix_k)
        xr = x * self.time_mix_r + xx * (1 - self.time_mix_r)
        k = torch.square(torch.relu(self.key(xk)))
        return torch.sigmoid(self.receptance(xr)) * self.value(k)


class Block(nn.Module):
    def __init__(self, n_embd, layer_id, n_layer):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
        self.att = RWKV_TimeMix(n_embd, layer_id, n_layer)
        self.ffn = RWKV_ChannelMix(n_embd, layer_id, n_layer)

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class RWKV(nn.Module):
    def __init__(self, vocab, n_embd, n_layer):
        super().__init__()
        self.emb = nn.Embedding(vocab, n_embd)
        self.ln0 = nn.LayerNorm(n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, i, n_layer) for i in range(n_layer)])
        self.ln_out = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab, bias=False)

    def forward(self, idx):
        x = self.ln0(self.emb(idx))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_out(x))

    @torch.no_grad()
    def forward_rnn(self, token, state):
        """One token; state per layer: [att_xx, aa, bb, pp, ffn_xx]."""
        x = self.ln0(self.emb(token))
        for i, block in enumerate(self.blocks):
            s = state[i]
            a = block.att
            xa = block.ln1(x)
            k, v, sr = a.mix(xa, s[0])
            w, u = -torch.exp(a.time_decay), a.time_first
            ww = u + k
            p = torch.maximum(s[3], ww)
            e1, e2 = torch.exp(s[3] - p), torch.exp(ww - p)
            wkv = (e1 * s[1] + e2 * v) / (e1 * s[2] + e2)
            ww = s[3] + w
            p = torch.maximum(ww, k)
            e1, e2 = torch.exp(ww - p), torch.exp(k - p)
            s[1], s[2], s[3], s[0] = e1 * s[1] + e2 * v, e1 * s[2] + e2, p, xa
            x = x + a.output(sr * wkv)
            xf = block.ln2(x)
            x = x + block.ffn(xf, s[4])
            s[4] = xf
        return self.head(self.ln_out(x)).view(token.shape[0], -1), state


def linear_scan_loop(a, b, x):
    h = torch.zeros_like(x[:, 0])
    hs = []
    for t in range(x.shape[1]):
        h = a[:, t] * h + b[:, t] * x[:, t]
        hs.append(h)
    return torch.stack(hs, 1)


def linear_scan_cumprod(a, b, x):
    A = torch.cumprod(a, dim=1)  # prod_{s<=t} a_s
    return A * torch.cumsum(b * x / A, dim=1)


def linear_scan_log(a, b, x):
    log_a = torch.log(a)
    L = torch.cumsum(log_a, 1)  # (B, T, D)
    T = a.shape[1]
    seg = L[:, :, None, :] - L[:, None, :, :]  # (B, Ti, Tj, D)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))[None, :, :, None]
    weights = torch.where(mask, torch.exp(seg.masked_fill(~mask, 0.0)), torch.zeros(()))
    return torch.einsum("btsd,bsd->btd", weights, b * x)


B, T, C = 2, 6, 4
k, v = torch.randn(B, T, C), torch.randn(B, T, C)
w, u = -torch.exp(torch.randn(C) * 0.5), torch.randn(C) * 0.3
r1, r2, r3 = wkv_rnn(w, u, k, v), wkv_parallel(w, u, k, v), wkv_cumsum(w, u, k, v)
print("wkv", [round(x, 4) for x in r1[0, :3, 0].tolist()], torch.allclose(r1, r2, atol=1e-5),
      torch.allclose(r1, r3, atol=1e-4))
shift = nn.ZeroPad2d((0, 0, 1, -1))
print("token shift", shift(torch.arange(6.).view(1, 3, 2)).tolist())
a = torch.rand(B, T, C) * 0.5 + 0.45
a.requires_grad_(True)
bb, x = torch.randn(B, T, C), torch.randn(B, T, C)
h1, h2, h3 = linear_scan_loop(a, bb, x), linear_scan_cumprod(a, bb, x), linear_scan_log(a, bb, x)
print("scan", [round(z, 4) for z in h1[0, :, 0].tolist()], torch.allclose(h1, h2, atol=1e-4),
      torch.allclose(h1, h3, atol=1e-4))
g1, = torch.autograd.grad(h1.sum(), a)
g3, = torch.autograd.grad(h3.sum(), a)
print("scan grads", torch.allclose(g1, g3, atol=1e-3), round(g1.norm().item(), 4))
print("cumprod", torch.cumprod(torch.tensor([[1., 2., 0.5, 3.]]), 1).tolist(),
      torch.einsum("ij,j->i", torch.ones(2, 3), torch.arange(3.)).tolist())

vocab, n_embd, n_layer, ctx = 16, 16, 2, 12
model = RWKV(vocab, n_embd, n_layer)
print("params", sum(p.numel() for p in model.parameters()),
      [round(z, 4) for z in model.blocks[1].att.time_decay[:4].tolist()])
data = torch.tensor([(i * 5 + i // 3) % vocab for i in range(400)])
decay, no_decay = [], []
for n, p in model.named_parameters():
    (no_decay if ("time_" in n or "ln" in n or p.ndim < 2) else decay).append(p)
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=3e-3, betas=(0.9, 0.99), eps=1e-8)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7, eta_min=1e-4)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
for step in range(10):
    ix = torch.randint(len(data) - ctx - 1, (8,))
    xb = torch.stack([data[i:i + ctx] for i in ix])
    yb = torch.stack([data[i + 1:i + ctx + 1] for i in ix])
    logits = model(xb)
    loss = F.cross_entropy(logits.view(-1, vocab), yb.view(-1))
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 3 == 0 or step == 9:
        print(f"step {step} loss {loss.item():.4f} norm {norm.item():.4f} lr {sched.get_last_lr()[0]:.5f}")

model.eval()
prompt = data[:ctx][None]
with torch.no_grad():
    gpt_logits = model(prompt)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        bf = model(prompt)
state = [[torch.zeros(1, n_embd), torch.zeros(1, n_embd), torch.zeros(1, n_embd), torch.full((1, n_embd), -1e38),
          torch.zeros(1, n_embd)] for _ in range(n_layer)]
rnn_logits = []
for t in range(ctx):
    out, state = model.forward_rnn(prompt[:, t], state)
    rnn_logits.append(out)
rnn_logits = torch.stack(rnn_logits, 1)
print("rnn == gpt", torch.allclose(rnn_logits, gpt_logits, atol=1e-4), bf.dtype,
      torch.allclose(bf.float(), gpt_logits, atol=0.3))
tokens = [int(prompt[0, -1])]
for _ in range(8):
    out, state = model.forward_rnn(torch.tensor(tokens[-1:]), state)
    tokens.append(int(out.argmax(-1)))
print("generated", tokens, "expected", data[ctx - 1:ctx + 8].tolist())
ffn = torch.compile(model.blocks[0].ffn)
xs = torch.randn(2, 5, n_embd)
with torch.no_grad():
    print("compiled ffn", torch.allclose(ffn(xs), model.blocks[0].ffn(xs), atol=1e-6), tuple(ffn(xs).shape))
