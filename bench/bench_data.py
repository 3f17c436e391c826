"""DataLoader throughput, torch vs torchlike (issue 10, "The data pipeline at torch's pace").

Workloads (8,192 items, batch 32, shuffled, 3 epochs; the first epoch includes worker start-up):
  full    -- items ``(torch.full((64,), float(i)), i % 10)``          (the issue's workload)
  numpy   -- items ``(np.full(64, float(i), np.float32), i % 10)``   (a dataset that never touches tensors)
  dict    -- items ``{"x": torch.full((64,), float(i)), "y": (torch.tensor(i), torch.zeros(3))}``
each single-process and with ``num_workers=2``. Prints per-epoch seconds and throughput ratios
(torch time / torchlike time: >= 0.5 is the goal), plus a breakdown of the single-process ``full`` epoch
into item creation, collation and loader overhead. One run, not a timed test:

    python bench/bench_data.py [--epochs 3] [--items 8192] [--only full,numpy,dict] [--workers 0,2]

Only numpy is imported at module level: spawned torchlike workers re-import this file as ``__mp_main__``
and must not import torch.
"""
from __future__ import annotations

import argparse
import importlib
import time

import numpy as np


class FullDataset:
    """``(lib.full((64,), float(i)), i % 10)`` -- lib is ``torch`` or ``torchlike``."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t = importlib.import_module(self.lib)
        return t.full((64,), float(i)), i % 10


class NumpyDataset:
    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full(64, float(i), np.float32), i % 10


class DictDataset:
    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t = importlib.import_module(self.lib)
        return {"x": t.full((64,), float(i)), "y": (t.tensor(i), t.zeros(3))}


WORKLOADS = {"full": FullDataset, "numpy": NumpyDataset, "dict": DictDataset}


def run_epochs(lib, workload, n, workers, epochs):
    t = importlib.import_module(lib)
    ds = WORKLOADS[workload](lib, n)
    loader = t.utils.data.DataLoader(ds, batch_size=32, shuffle=True, num_workers=workers,
                                     generator=t.Generator().manual_seed(0))
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        count = 0
        for batch in loader:
            count += 1
        times.append(time.perf_counter() - start)
    assert count == (n + 31) // 32
    return times


def breakdown(lib, n):
    """Single-process ``full`` epoch split into item creation, collation and the rest (loader overhead)."""
    t = importlib.import_module(lib)
    ds = FullDataset(lib, n)
    collate = t.utils.data.default_collate
    order = np.random.default_rng(0).permutation(n).tolist()
    batches = [order[i:i + 32] for i in range(0, n, 32)]
    for _ in range(2):  # warm
        collate([ds[i] for i in batches[0]])
    start = time.perf_counter()
    items = [[ds[i] for i in b] for b in batches]
    made = time.perf_counter() - start
    start = time.perf_counter()
    for b in items:
        collate(b)
    collated = time.perf_counter() - start
    loader = t.utils.data.DataLoader(ds, batch_size=32, shuffle=True)
    for _ in loader:
        pass
    start = time.perf_counter()
    for _ in loader:
        pass
    total = time.perf_counter() - start
    return made, collated, total - made - collated, total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--items", type=int, default=8192)
    p.add_argument("--only", default="full,numpy,dict")
    p.add_argument("--workers", default="0,2")
    p.add_argument("--libs", default="torch,torchlike")
    args = p.parse_args()
    libs = args.libs.split(",")
    print(f"{args.items} items, batch 32, shuffled; seconds per epoch (epoch 1 includes worker start)")
    for workload in args.only.split(","):
        for workers in map(int, args.workers.split(",")):
            res = {lib: run_epochs(lib, workload, args.items, workers, args.epochs) for lib in libs}
            for lib in libs:
                print(f"  {workload:6s} workers={workers} {lib:10s}: "
                      + "  ".join(f"{s:7.3f}" for s in res[lib]))
            if len(libs) == 2:
                print(f"  {workload:6s} workers={workers} throughput ratio (torch/torchlike): "
                      + "  ".join(f"{a / b:6.2f}x" for a, b in zip(res[libs[0]], res[libs[1]])))
    if "full" in args.only.split(","):
        for lib in libs:
            made, collated, rest, total = breakdown(lib, args.items)
            print(f"  breakdown full workers=0 {lib:10s}: items {made:.3f} s, collate {collated:.3f} s, "
                  f"loader overhead {rest:.3f} s, epoch {total:.3f} s")


if __name__ == "__main__":
    main()
