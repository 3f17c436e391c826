"""A tiny character bigram language model trained eagerly, run under real torch and under torchlike.

The training script (``TRAIN`` below) is plain PyTorch in the style of the well-known bigram example:
a ~65-character vocabulary from a generated text, ``nn.Embedding(vocab, vocab)`` logits, cross entropy,
AdamW (lr 1e-3), batch 32, block 8, batches built from ``torch.randint`` start indices, slicing and
``torch.stack``, and a periodic 200-batch loss estimate under ``torch.no_grad()`` with
``model.eval()``/``model.train()``.  The same source is executed once with ``torch`` bound to PyTorch
and once with it bound to torchlike (in separate processes, so neither import disturbs the other);
the script prints its own wall and CPU time and this driver prints the ratios.

    python bench/bench_bigram.py [--iters 500] [--eval-interval 250]
"""
import argparse
import os
import subprocess
import sys
import tempfile

TRAIN = r'''
import sys, time
import torch
import torch.nn as nn
from torch.nn import functional as F

max_iters, eval_interval, eval_iters = int(sys.argv[1]), int(sys.argv[2]), 200
batch_size, block_size, learning_rate = 32, 8, 1e-3
torch.manual_seed(1337)

# a fixed, generated "text" over a 65-character alphabet (like the Shakespeare one)
chars = sorted(set("\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
vocab_size = len(chars)
words = ["the", "and", "of", "to", "thou", "king", "lord", "my", "what", "shall", "be", "HAMLET:",
         "ROMEO:", "is", "not", "with", "love", "good", "you", "me", "3", "O!", "$&", "-", "it;", "so?"]
import random
rnd = random.Random(0)
text = "".join(rnd.choice(words) + rnd.choice("  \n,.:") for _ in range(60000))
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]

def get_batch(split):
    data = train_data if split == "train" else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    return x, y

@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out

class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        logits = logits.view(B * T, C)
        targets = targets.view(B * T)
        return logits, F.cross_entropy(logits, targets)

model = BigramLanguageModel(vocab_size)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
t0, c0 = time.perf_counter(), time.process_time()
for it in range(max_iters):
    if it % eval_interval == 0 or it == max_iters - 1:
        losses = estimate_loss()
        print(f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    xb, yb = get_batch("train")
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print(f"TIME {time.perf_counter() - t0:.3f} {time.process_time() - c0:.3f}")
'''


def _run(module, iters, interval):
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    env = dict(os.environ)
    env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")  # torch's idle OpenMP threads spin on a busy machine
    if module == "torch":
        cmd = [sys.executable, "-c", TRAIN, str(iters), str(interval)]
    else:  # the same source with ``torch`` resolving to torchlike (the drop-in runner)
        fd, path = tempfile.mkstemp(suffix="_bigram.py")
        with os.fdopen(fd, "w") as f:
            f.write(TRAIN)
        cmd = [sys.executable, "-m", "torchlike", "run", path, str(iters), str(interval)]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    finally:
        if module != "torch":
            os.unlink(path)
    if out.returncode:
        raise SystemExit(f"{module} run failed:\n{out.stdout}\n{out.stderr}")
    lines = out.stdout.strip().splitlines()
    _, wall, cpu = lines[-1].split()
    return (float(wall), float(cpu)), lines[:-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=500)
    ap.add_argument("--eval-interval", type=int, default=250)
    a = ap.parse_args()
    t_torch, log_t = _run("torch", a.iters, a.eval_interval)
    t_tl, log_l = _run("torchlike", a.iters, a.eval_interval)
    print(f"bigram LM, {a.iters} AdamW steps, 200-batch eval every {a.eval_interval} steps "
          f"(batch 32, block 8)")
    for lt, ll in zip(log_t, log_l):
        print(f"  torch:     {lt}\n  torchlike: {ll}")
    (wt, ct), (wl, cl) = t_torch, t_tl
    print(f"wall: torch {wt:.2f} s, torchlike {wl:.2f} s, ratio {wl / wt:.1f}x (goal <= 3x)")
    print(f"cpu:  torch {ct:.2f} s, torchlike {cl:.2f} s, ratio {cl / ct:.1f}x (steadier on a shared machine)")


if __name__ == "__main__":
    main()
