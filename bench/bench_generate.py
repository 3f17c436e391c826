"""Greedy text generation with a KV cache (Hugging Face GPT-2, random weights), under real torch and torchlike.

Generation meets a new shape at every token: the KV cache, ``input_ids`` and the attention mask grow by one.
The script (``GEN`` below) builds a 2-layer, 64-wide GPT-2 with seeded random weights and calls
``model.generate(max_new_tokens=N, do_sample=False)`` three times in one process: the first call pays every
compilation, the later ones show what the caches keep.  It runs once with ``torch`` bound to PyTorch and once
under the drop-in runner (separate processes); the driver prints the times, the ratios and, for torchlike, the
XLA programs compiled per call (``torchlike.cache_info()["compiled"]``).  Needs ``transformers``.

    python bench/bench_generate.py [--tokens 40]
"""
import argparse
import os
import subprocess
import sys
import tempfile

GEN = r'''
import sys, time
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging
logging.set_verbosity_error()
n = int(sys.argv[1])
torch.manual_seed(0)
cfg = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=1000, n_positions=256, bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(cfg).eval()
ids = torch.randint(1, 1000, (1, 8))
info = getattr(torch, "cache_info", None)
for r in range(3):
    c0 = info()["compiled"] if info else 0
    t = time.perf_counter()
    out = model.generate(ids, max_new_tokens=n, do_sample=False, pad_token_id=0)
    dt = time.perf_counter() - t
    print(f"RESULT {r} {dt:.4f} {(info()['compiled'] - c0) if info else -1} {out[0, -4:].tolist()}")
'''


def _run(args, tokens):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(GEN)
        path = f.name
    try:
        out = subprocess.run(args + [path, str(tokens)], capture_output=True, text=True, check=False,
                             cwd=os.path.dirname(os.path.abspath(__file__)) + "/..")
    finally:
        os.unlink(path)
    rows = [line.split(maxsplit=4)[1:] for line in out.stdout.splitlines() if line.startswith("RESULT")]
    if len(rows) != 3:
        sys.exit(f"{' '.join(args)} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
    return [(float(t), int(c), toks) for _, t, c, toks in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=40)
    a = p.parse_args()
    torch_rows = _run([sys.executable], a.tokens)
    tl_rows = _run([sys.executable, "-m", "torchlike", "run"], a.tokens)
    print(f"GPT-2 (2 layers, 64 wide) greedy generate of {a.tokens} tokens from 8, three calls in one process")
    for r, ((tt, _, tok_t), (tl, comp, tok_l)) in enumerate(zip(torch_rows, tl_rows)):
        same = "same tokens" if tok_t == tok_l else f"TOKENS DIFFER: {tok_t} vs {tok_l}"
        print(f"  call {r}: torch {tt:7.3f} s   torchlike {tl:7.3f} s   ratio {tl / tt:6.2f}x   "
              f"programs compiled {comp:4d}   {same}")


if __name__ == "__main__":
    main()
