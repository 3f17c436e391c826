"""BERT pretraining from scratch (codertimo/BERT-pytorch, dhlee347/pytorchic-bert idioms); own code, a tiny
vocabulary of synthetic sentence pairs.

Token, segment and learned position embeddings with ``LayerNorm`` + dropout; post-norm encoder layers written out
(multi-head attention with an additive padding mask filled with ``-inf`` via ``masked_fill``, GELU in its tanh
approximation); MLM masking of 15% by ``torch.bernoulli`` with the 80/10/10 split into ``[MASK]``, random and
kept tokens, ``ignore_index=-100`` labels; an NSP head on the pooled ``[CLS]`` (``tanh``); the MLM decoder's weight
tied to the token embedding; AdamW with no weight decay on biases/LayerNorm, ``LambdaLR`` warmup + linear decay,
``clip_grad_norm_``; bfloat16 ``autocast`` on CPU; ``torch.no_grad`` evaluation; a ``torch.compile``'d
pooler; ``state_dict`` round trip keeping the tie."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD, CLS, SEP, MASK = 0, 1, 2, 3
V, D, H, L, T = 30, 32, 4, 2, 16


def make_pair(is_next):
    a = torch.randint(4, V, (int(torch.randint(3, 6, (1,))),))
    b = (a + 1).clamp(max=V - 1) if is_next else torch.randint(4, V, (int(torch.randint(3, 6, (1,))),))
    ids = torch.cat([torch.tensor([CLS]), a, torch.tensor([SEP]), b, torch.tensor([SEP])])
    seg = torch.cat([torch.zeros(len(a) + 2, dtype=torch.long), torch.ones(len(b) + 1, dtype=torch.long)])
    return F.pad(ids, (0, T - len(ids)), value=PAD), F.pad(seg, (0, T - len(seg)), value=0)


pairs = [make_pair(i % 2 == 0) for i in range(64)]
ids = torch.stack([p[0] for p in pairs])
segs = torch.stack([p[1] for p in pairs])
is_next = torch.tensor([i % 2 == 0 for i in range(64)], dtype=torch.long)
print("batch", tuple(ids.shape), ids[0].tolist(), segs[0].tolist())


def mask_tokens(ids, p=0.15):
    labels = ids.clone()
    special = (ids == PAD) | (ids == CLS) | (ids == SEP)
    prob = torch.full(ids.shape, p).masked_fill(special, 0.0)
    masked = torch.bernoulli(prob).bool()
    labels[~masked] = -100
    inputs = ids.clone()
    replace = torch.bernoulli(torch.full(ids.shape, 0.8)).bool() & masked
    inputs[replace] = MASK
    rand = torch.bernoulli(torch.full(ids.shape, 0.5)).bool() & masked & ~replace
    inputs[rand] = torch.randint(4, V, ids.shape)[rand]
    return inputs, labels


inp, lab = mask_tokens(ids)
print("masked", int((lab != -100).sum()), int((inp == MASK).sum()), lab[0].tolist())


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, pad_mask):
        B, T_, _ = x.shape
        q, k, v = self.qkv(x).view(B, T_, 3, H, D // H).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        scores = scores.masked_fill(pad_mask[:, None, None, :], float("-inf"))
        att = self.drop(F.softmax(scores, dim=-1))
        return self.proj((att @ v).transpose(1, 2).reshape(B, T_, D))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attention()
        self.ln1 = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), GELU(), nn.Linear(4 * D, D))
        self.ln2 = nn.LayerNorm(D)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, pad_mask):
        x = self.ln1(x + self.drop(self.attn(x, pad_mask)))
        return self.ln2(x + self.drop(self.ff(x)))


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D, padding_idx=PAD)
        self.seg = nn.Embedding(2, D)
        self.pos = nn.Embedding(T, D)
        self.ln = nn.LayerNorm(D)
        self.drop = nn.Dropout(0.1)
        self.layers = nn.ModuleList([Layer() for _ in range(L)])
        self.pooler = nn.Sequential(nn.Linear(D, D), nn.Tanh())
        self.nsp = nn.Linear(D, 2)
        self.mlm_transform = nn.Sequential(nn.Linear(D, D), nn.GELU(approximate="tanh"), nn.LayerNorm(D))
        self.mlm_decoder = nn.Linear(D, V)
        self.mlm_decoder.weight = self.tok.weight  # weight tying
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)
            if m.padding_idx is not None:
                m.weight.data[m.padding_idx].zero_()

    def forward(self, ids, segs):
        pad_mask = ids == PAD
        pos = torch.arange(ids.size(1)).unsqueeze(0).expand_as(ids)
        x = self.drop(self.ln(self.tok(ids) + self.seg(segs) + self.pos(pos)))
        for layer in self.layers:
            x = layer(x, pad_mask)
        return self.mlm_decoder(self.mlm_transform(x)), self.nsp(self.pooler(x[:, 0]))


model = Bert()
print("params", sum(p.numel() for p in model.parameters()), "tied", model.mlm_decoder.weight is model.tok.weight)
print("gelu tanh", torch.allclose(GELU()(torch.linspace(-3, 3, 7)), F.gelu(torch.linspace(-3, 3, 7),
                                                                       approximate="tanh"), atol=1e-6))
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=5e-3)
steps, warm = 12, 3
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / (steps - warm))))
print("groups", [len(g["params"]) for g in opt.param_groups])
for step in range(steps):
    idx = torch.randint(0, 64, (16,))
    inp, lab = mask_tokens(ids[idx])
    mlm, nsp = model(inp, segs[idx])
    loss_mlm = F.cross_entropy(mlm.view(-1, V), lab.view(-1), ignore_index=-100)
    loss_nsp = F.cross_entropy(nsp, is_next[idx])
    loss = loss_mlm + loss_nsp
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    if step % 4 == 3:
        print(f"step {step + 1} mlm {loss_mlm.item():.4f} nsp {loss_nsp.item():.4f} gn {gn.item():.4f} "
              f"lr {sched.get_last_lr()[0]:.6f}")

model.eval()
with torch.no_grad():
    inp, lab = mask_tokens(ids)
    mlm, nsp = model(inp, segs)
    sel = lab != -100
    mlm_acc = (mlm.argmax(-1)[sel] == lab[sel]).float().mean()
    nsp_acc = (nsp.argmax(-1) == is_next).float().mean()
print(f"eval mlm acc {mlm_acc:.4f} nsp acc {nsp_acc:.4f}")
print("nsp logits", nsp[:2])

# -inf masked attention: the padded keys get exactly zero weight
att = model.layers[0].attn
with torch.no_grad():
    x = torch.randn(2, T, D)
    pm = ids[:2] == PAD
    B_ = 2
    q, k, v = att.qkv(x).view(B_, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
    w = F.softmax((q @ k.transpose(-2, -1)).masked_fill(pm[:, None, None, :], float("-inf")), -1)
print("pad weight", w[pm[:, None, None, :].expand_as(w)].abs().max().item(), w.sum(-1).allclose(torch.ones(1)))

pooler = torch.compile(model.pooler)
with torch.no_grad():
    h = torch.randn(3, D)
    print("compiled pooler", torch.allclose(pooler(h), model.pooler(h), atol=1e-6))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf)
m2 = Bert()
print("load", m2.load_state_dict(sd), "mlm_decoder.weight" in sd, m2.mlm_decoder.weight is m2.tok.weight)
m2.eval()
with torch.no_grad():
    print("same", torch.equal(m2(ids[:4], segs[:4])[1], model(ids[:4], segs[:4])[1]))

with torch.autocast("cpu", dtype=torch.bfloat16):
    mlm_bf, nsp_bf = model(ids[:4], segs[:4])
print("autocast", mlm_bf.dtype, nsp_bf.dtype, tuple(mlm_bf.shape))
