"""Soak: a long mixed run (eager and compiled training with a new batch size every step, checkpoints
saved and reloaded every 50 steps or minute, DataLoader epochs with worker processes every 200 steps or two
minutes, whichever comes first) that must neither crash nor grow in memory.

    python bench/bench_soak.py                 # 30 minutes
    python bench/bench_soak.py --minutes 5     # shorter

Prints RSS and the number of XLA programs compiled so far every report interval and, at the end, RSS at
the middle of the run against the final RSS; the verdict is "flat" when the final RSS is within 10% of the
midpoint figure.  (Warm-up is over when the compile count stops rising: every batch size's programs are
cached.  On a loaded machine that takes a third of a 30-minute run; measuring from the first fifth called a
plateau "growing".)  Not a test.
"""
import argparse
import os
import random
import tempfile
import time

import torchlike as torch
from torchlike import nn
from torchlike.utils.data import DataLoader, TensorDataset


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def make_model():
    return nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.LayerNorm(64), nn.Dropout(0.1), nn.Linear(64, 4))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--report", type=float, default=60.0, help="seconds between RSS lines")
    a = p.parse_args()
    torch.manual_seed(0)
    rnd = random.Random(0)
    eager, compiled = make_model(), make_model()
    opt_e = torch.optim.AdamW(eager.parameters(), lr=1e-3)
    opt_c = torch.optim.SGD(compiled.parameters(), lr=1e-2, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    @torch.compile
    def compiled_step(x, y):
        loss = loss_fn(compiled(x), y)
        loss.backward()
        return loss

    data = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    ckpt = os.path.join(tempfile.mkdtemp(), "soak.pt")
    t0 = time.time()
    end = t0 + a.minutes * 60
    warm_at, warm_rss = t0 + a.minutes * 60 / 2, None
    next_report = t0
    next_save, next_epoch = t0 + 60, t0 + 120
    steps = epochs = saves = 0
    print(f"{'min':>6} {'steps':>7} {'epochs':>6} {'saves':>5} {'RSS MB':>8} {'compiled':>9}", flush=True)
    while time.time() < end:
        b = rnd.randint(1, 96)  # a new batch size most steps
        x, y = torch.randn(b, 16), torch.randint(0, 4, (b,))
        loss = loss_fn(eager(x), y)
        opt_e.zero_grad()
        loss.backward()
        opt_e.step()
        opt_c.zero_grad()
        compiled_step(x, y)
        opt_c.step()
        steps += 1
        if steps % 50 == 0 or time.time() >= next_save:
            next_save = time.time() + 60
            torch.save({"model": eager.state_dict(), "opt": opt_e.state_dict(), "step": steps}, ckpt)
            state = torch.load(ckpt)
            eager.load_state_dict(state["model"])
            opt_e.load_state_dict(state["opt"])
            saves += 1
        if steps % 200 == 0 or time.time() >= next_epoch:  # also by time, so a slow machine still soaks workers
            next_epoch = time.time() + 120
            loader = DataLoader(data, batch_size=rnd.randint(8, 64), shuffle=True, num_workers=2)
            with torch.no_grad():
                for xb, yb in loader:
                    loss_fn(eager(xb), yb).item()
            epochs += 1
        now = time.time()
        if warm_rss is None and now >= warm_at:
            warm_rss = rss_mb()
        if now >= next_report:
            compiled = torch.cache_info()["compiled"]
            print(f"{(now - t0) / 60:6.1f} {steps:7d} {epochs:6d} {saves:5d} {rss_mb():8.0f} {compiled:9d}", flush=True)
            next_report = now + a.report
    final = rss_mb()
    warm_rss = warm_rss or final
    verdict = "flat" if final <= 1.1 * warm_rss else "GROWING"
    print(f"done: {steps} steps, {epochs} DataLoader epochs, {saves} checkpoints in {(time.time() - t0) / 60:.1f} min; "
          f"RSS at mid-run {warm_rss:.0f} MB, final {final:.0f} MB ({final / warm_rss:.2f}x): {verdict}")


if __name__ == "__main__":
    main()
