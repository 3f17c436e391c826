"""Issue-10 benchmark: a nanoGPT-style training step with ``model = torch.compile(model)``.

The same torch-style source (below) runs in three processes: real torch eager, torchlike eager and
torchlike with the compiled module (``torch`` aliased to torchlike through the drop-in runner).
Median step time in ms and ratios against torch eager, from one run (not a timed test):

    python bench/bench_nanogpt.py [--steps 60] [--warmup 10]
    python bench/bench_nanogpt.py --worker torchlike --compile   # one configuration, JSON line
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build(torch, n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65, dropout=0.0):
    """A nanoGPT-style GPT written against the torch API (torch or torchlike)."""
    nn = torch.nn
    F = torch.nn.functional

    class LayerNorm(nn.Module):
        def __init__(self, ndim):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim))

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.resid_dropout = nn.Dropout(dropout)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                               dropout_p=dropout if self.training else 0, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(n_embd, 4 * n_embd)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * n_embd, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = LayerNorm(n_embd)
            self.attn = Attention()
            self.ln_2 = LayerNorm(n_embd)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
                drop=nn.Dropout(dropout), h=nn.ModuleList([Block() for _ in range(n_layer)]),
                ln_f=LayerNorm(n_embd)))
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas):
            params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
            decay = [p for p in params.values() if p.dim() >= 2]
            nodecay = [p for p in params.values() if p.dim() < 2]
            groups = [{"params": decay, "weight_decay": weight_decay},
                      {"params": nodecay, "weight_decay": 0.0}]
            return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    return GPT()


def train(torch, compile_model, steps, warmup, batch_size=12, block_size=64, vocab_size=65, seed=1337):
    """nanoGPT's inner loop; returns per-step wall and CPU seconds (after warm-up) and the losses."""
    torch.manual_seed(seed)
    model = build(torch, block_size=block_size, vocab_size=vocab_size)
    model.train()
    optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99))
    if compile_model:
        model = torch.compile(model)
    data = torch.randint(vocab_size, (20000,))

    def get_batch():
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([data[i:i + block_size] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
        return x, y

    batches = [get_batch() for _ in range(8)]  # batching is not what is measured
    times, cpu, losses = [], [], []
    for it in range(warmup + steps):
        X, Y = batches[it % len(batches)]
        t0, c0 = time.perf_counter(), time.process_time()
        _, loss = model(X, Y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        lossf = loss.item()  # nanoGPT reads the loss (a sync point) when it logs
        if it >= warmup:
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        losses.append(lossf)
    return times, cpu, losses


def worker(impl, compile_model, steps, warmup, profile=None, threads=0):
    if impl == "torch":
        import torch
        if threads:  # (torch's spinning intra-op threads suffer most when other processes load the CPUs)
            torch.set_num_threads(threads)
    else:
        sys.path.insert(0, ROOT)
        from torchlike._runner import install
        install()
        import torch  # noqa: F811  (torchlike through the runner's alias)
    if profile:
        import cProfile
        import pstats
        train(torch, compile_model, 2, 3)
        pr = cProfile.Profile()
        pr.enable()
        train(torch, compile_model, steps, 0)
        pr.disable()
        pstats.Stats(pr, stream=sys.stderr).sort_stats(profile).print_stats(40)
    times, cpu, losses = train(torch, compile_model, steps, warmup)
    print(json.dumps({"median_ms": 1000 * statistics.median(times), "cpu_ms": 1000 * statistics.median(cpu),
                      "losses": [round(x, 4) for x in losses[:5]]}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--worker", choices=["torch", "torchlike"])
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--threads", type=int, default=0, help="torch worker: set_num_threads (0: torch's default)")
    ap.add_argument("--only", default="", help="comma-separated row numbers to run (0: torch eager, ...)")
    ap.add_argument("--profile", default=None, help="cProfile sort key (worker mode): tottime, cumtime")
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.compile, a.steps, a.warmup, a.profile, a.threads)
        return
    rows = [("torch eager", "torch", False), ("torchlike eager", "torchlike", False),
            ("torchlike compiled module", "torchlike", True), ("torch eager, 1 thread", "torch", False)]
    if a.only:
        rows = [rows[int(i)] for i in a.only.split(",")]
    res = {}
    for name, impl, comp in rows:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--steps", str(a.steps),
               "--warmup", str(a.warmup)] + (["--compile"] if comp else []) + \
            (["--threads", "1"] if name.endswith("1 thread") else [])
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if out.returncode != 0:
            res[name] = {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
        else:
            res[name] = json.loads(out.stdout.strip().splitlines()[-1])
    base = res.get("torch eager", {}).get("median_ms")
    cbase = res.get("torch eager", {}).get("cpu_ms")
    print(f"{'configuration':28s} {'wall ms':>9s} {'x torch':>8s} {'cpu ms':>9s} {'x torch':>8s}  first losses")
    for name, r in res.items():
        if "error" in r:
            print(f"{name:28s} error: {r['error']}")
            continue
        ratio = r["median_ms"] / base if base else float("nan")
        cratio = r["cpu_ms"] / cbase if cbase else float("nan")
        print(f"{name:28s} {r['median_ms']:9.2f} {ratio:8.2f} {r['cpu_ms']:9.2f} {cratio:8.2f}  {r['losses']}")
    print("(median per step, one run; wall time on a shared machine varies with its load, CPU time less so)")


if __name__ == "__main__":
    main()
