"""The demo: train a small character-level GPT on a poem shipped with torchlike, then sample from it.

    python -m torchlike demo [--steps 500] [--eager]

The model is ordinary PyTorch-style code (nn.Embedding, LayerNorm, scaled_dot_product_attention, AdamW,
a warm-up + cosine LambdaLR, clip_grad_norm_); the training step — forward, backward, clipping and the
optimizer update — is one ``torchlike.compile``d XLA program.  About a minute on 2 CPU cores.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_demo", "lighthouse.txt")


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class CharGPT(nn.Module):
    def __init__(self, vocab, block=64, dim=96, heads=4, layers=3):
        super().__init__()
        self.block = block
        self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(block, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # weight tying
        for name, p in self.named_parameters():  # GPT-2 style init: small embeddings and projections
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, mean=0.0, std=0.02)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def _bar(done, total, width=28):
    filled = int(width * done / total)
    return "[" + "#" * filled + "-" * (width - filled) + "]"


@torch.no_grad()
def sample(model, prompt, n, stoi, itos, temperature=0.8, top_k=12):
    """Continue ``prompt`` by ``n`` characters.  The context is always a full window (left-padded with
    newlines), so every step has the same shapes and reuses one compiled program per op."""
    model.eval()
    idx = torch.tensor([[stoi["\n"]] * model.block + [stoi[c] for c in prompt]])
    for _ in range(n):
        logits = model(idx[:, -model.block:])[:, -1, :] / temperature
        kth = torch.topk(logits, top_k).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
        idx = torch.cat([idx, torch.multinomial(F.softmax(logits, dim=-1), 1)], dim=1)
    return "".join(itos[i] for i in idx[0, model.block:].tolist())


def main(argv=()):
    ap = argparse.ArgumentParser(prog="python -m torchlike demo")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--eager", action="store_true", help="don't compile the training step")
    args = ap.parse_args(list(argv))

    torch.manual_seed(0)
    text = open(CORPUS, encoding="utf-8").read()
    chars = sorted(set(text))
    stoi, itos = {c: i for i, c in enumerate(chars)}, dict(enumerate(chars))
    data = torch.tensor([stoi[c] for c in text])
    model = CharGPT(len(chars))
    T = model.block
    print(f"corpus {os.path.basename(CORPUS)}: {len(text)} characters, vocabulary {len(chars)}; "
          f"model {sum(p.numel() for p in model.parameters()):,} parameters")

    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95))
    warmup = 30
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps)))

    def train_step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x).view(-1, len(chars)), y.view(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    step_fn = train_step if args.eager else torch.compile(train_step)
    model.train()
    t0 = time.perf_counter()
    tokens, smooth = 0, None
    for step in range(1, args.steps + 1):
        ix = torch.randint(len(data) - T - 1, (args.batch,))
        x = torch.stack([data[i:i + T] for i in ix.tolist()])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix.tolist()])
        loss = step_fn(x, y)
        sched.step()
        tokens += x.numel()
        if step % 10 == 0 or step == args.steps:
            value = loss.item()
            smooth = value if smooth is None else 0.9 * smooth + 0.1 * value
            rate = tokens / (time.perf_counter() - t0)
            sys.stdout.write(f"\r{_bar(step, args.steps)} step {step}/{args.steps}  loss {smooth:.3f}  "
                             f"{rate / 1e3:.1f}k tok/s ")
            sys.stdout.flush()
    print(f"\ntrained {args.steps} steps in {time.perf_counter() - t0:.1f} s "
          f"({'eager' if args.eager else 'compiled step'})\n")
    print("sample:\n" + sample(model, "The keeper ", 240, stoi, itos))


if __name__ == "__main__":
    main(sys.argv[1:])
