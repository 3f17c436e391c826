"""A CLIP-style contrastive image-text model (openai/CLIP, mlfoundations/open_clip idioms); own code, synthetic
"images" whose class is drawn as a coloured square and "captions" naming the class.

A small ConvNet image tower with attention pooling (a learned query over the flattened feature map through
``nn.MultiheadAttention``), a text transformer over token embeddings with a causal mask (``torch.triu`` filled
with ``-inf``), the end-of-text feature picked by ``argmax`` of the token ids, linear projections and
``F.normalize``; a learnable ``logit_scale`` initialised to ``log(1/0.07)``, exponentiated and clamped at 100 after
each step (``clamp_`` under ``no_grad``); the symmetric cross-entropy over image-to-text and text-to-image logits
with ``torch.arange`` labels; AdamW with a ``LambdaLR`` warmup + cosine schedule, ``clip_grad_norm_``; bfloat16
``autocast`` on CPU; zero-shot classification by prompt embeddings; retrieval recall@1; ``torch.compile`` of the
projection head; ``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
C, IMG, V, T, D, E = 4, 16, 12, 6, 32, 24   # classes, image size, vocab, text length, width, embed dim
SOT, EOT = 10, 11


def make_batch(n):
    labels = torch.randint(0, C, (n,))
    imgs = torch.randn(n, 3, IMG, IMG) * 0.3
    for i, c in enumerate(labels.tolist()):
        r, col = 2 + 3 * c, c % 3
        imgs[i, col, r:r + 5, r:r + 5] += 2.0
    words = torch.stack([labels * 2, labels * 2 + 1], 1) % 10
    text = torch.cat([torch.full((n, 1), SOT), words, torch.full((n, 1), EOT), torch.zeros(n, T - 4, dtype=torch.long)], 1)
    return imgs, text, labels


class AttnPool(nn.Module):
    def __init__(self, dim, heads, out):
        super().__init__()
        self.query = nn.Parameter(torch.randn(1, 1, dim) / dim ** 0.5)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.proj = nn.Linear(dim, out)

    def forward(self, x):
        x = x.flatten(2).transpose(1, 2)
        q = self.query.expand(x.size(0), -1, -1)
        out, w = self.attn(q, x, x)
        return self.proj(out.squeeze(1)), w


class ImageTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.Conv2d(16, D, 3, stride=2, padding=1), nn.BatchNorm2d(D), nn.ReLU(),
                                  nn.AvgPool2d(2))
        self.pool = AttnPool(D, 4, E)

    def forward(self, x):
        return self.pool(self.stem(x))


class TextTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.pos = nn.Parameter(torch.empty(T, D))
        nn.init.normal_(self.pos, std=0.01)
        layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(D)
        self.proj = nn.Parameter(torch.empty(D, E))
        nn.init.normal_(self.proj, std=D ** -0.5)
        self.register_buffer("causal", torch.empty(T, T).fill_(float("-inf")).triu_(1), persistent=False)

    def forward(self, text):
        x = self.tok(text) + self.pos
        x = self.ln(self.enc(x, mask=self.causal))
        return x[torch.arange(x.size(0)), text.argmax(dim=-1)] @ self.proj


class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.visual = ImageTower()
        self.text = TextTower()
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, imgs, text):
        img, _ = self.visual(imgs)
        txt = self.text(text)
        return F.normalize(img, dim=-1), F.normalize(txt, dim=-1), self.logit_scale.exp()


def clip_loss(img, txt, scale):
    logits_per_image = scale * img @ txt.t()
    labels = torch.arange(img.size(0))
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.t(), labels)) / 2


model = CLIP()
print("params", sum(p.numel() for p in model.parameters()), f"scale {model.logit_scale.exp().item():.4f}")
print("causal mask", model.text.causal[:3, :3].tolist(), list(dict(model.named_buffers())))
imgs, text, labels = make_batch(8)
print("text", text[:2].tolist(), text.argmax(-1)[:2].tolist())

decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "pos" not in n]
rest = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "pos" not in n)]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                        lr=2e-3, betas=(0.9, 0.98), eps=1e-6)
steps, warm = 16, 3


def lr_lambda(s):
    if s < warm:
        return (s + 1) / warm
    return 0.5 * (1 + math.cos(math.pi * (s - warm) / (steps - warm)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
for step in range(steps):
    imgs, text, labels = make_batch(16)
    img, txt, scale = model(imgs, text)
    loss = clip_loss(img, txt, scale)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    if step % 4 == 3:
        print(f"step {step + 1} loss {loss.item():.4f} gn {gn.item():.4f} scale {scale.item():.4f} "
              f"lr {sched.get_last_lr()[0]:.6f}")

model.eval()
with torch.no_grad():
    imgs, text, labels = make_batch(24)
    img, txt, scale = model(imgs, text)
    sims = img @ txt.t()
    i2t = (sims.argmax(1) == torch.arange(24)).float().mean()
    # zero-shot: one prompt per class; a caption's class equals the image's
    prompts = make_batch(C)[1]
    prompts[:, 1] = (torch.arange(C) * 2) % 10
    prompts[:, 2] = (torch.arange(C) * 2 + 1) % 10
    cls_emb = F.normalize(model.text(prompts), dim=-1)
    probs = (scale * img @ cls_emb.t()).softmax(-1)
    zs = (probs.argmax(-1) == labels).float().mean()
print(f"eval i2t recall@1 {i2t:.4f} zero-shot acc {zs:.4f}")
print("probs", probs[:2].round(decimals=2))
print("norms", img.norm(dim=-1)[:3].round(decimals=4), txt.norm(dim=-1).allclose(torch.ones(24)))
_, attn_w = model.visual(imgs[:2])
print("attn pool weights", tuple(attn_w.shape), [round(v, 5) for v in attn_w.sum(-1).flatten().tolist()])

with torch.autocast("cpu", dtype=torch.bfloat16):
    img_bf, txt_bf, sc = model(imgs[:4], text[:4])
    lbf = clip_loss(img_bf, txt_bf, sc)
print("autocast", img_bf.dtype, txt_bf.dtype, sc.dtype, lbf.dtype)

head = torch.compile(model.visual.pool.proj)
with torch.no_grad():
    h = torch.randn(5, D)
    print("compiled head", torch.allclose(head(h), model.visual.pool.proj(h), atol=1e-6))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
m2 = CLIP()
print("load", m2.load_state_dict(torch.load(buf)), "text.causal" in model.state_dict())
m2.eval()
with torch.no_grad():
    a, b = m2(imgs[:3], text[:3]), model(imgs[:3], text[:3])
print("same", all(torch.allclose(x, y, atol=1e-6) for x, y in zip(a, b)))
