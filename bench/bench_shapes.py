"""A new shape every step: 16-32-16 MLP training steps with batch size 1, 2, 3, ... (a benchmark, not a test).

Prints, from one run, the time of the same shape sequence under torch eager, torchlike eager, raw JAX
eager (``jax.value_and_grad``, no jit) and ``jax.jit(jax.value_and_grad)``, the ratios to raw JAX eager,
and torchlike's RSS after 30 / 90 (/ 400 with ``--full``) distinct shapes with its cache state.  Each row
also gives its process CPU time and the CPU-time ratio (steadier than wall time on a shared machine).

    python bench/bench_shapes.py            # 30 timed shapes, torchlike RSS up to 90 shapes
    python bench/bench_shapes.py --full     # 400 timed shapes (slow: raw JAX eager takes minutes)
    python bench/bench_shapes.py --no-jax   # skip the raw-JAX baselines
    TORCHLIKE_EAGER_COMPILE_OPTIONS=1 python bench/bench_shapes.py --no-torch   # the opt-in quick compile options
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

D_IN, D_H, D_OUT = 16, 32, 16


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def data(n):
    rng = np.random.default_rng(n)
    return rng.standard_normal((n, D_IN)).astype(np.float32), rng.standard_normal((n, D_OUT)).astype(np.float32)


def init_params():
    rng = np.random.default_rng(0)
    return {"w1": (rng.standard_normal((D_H, D_IN)) * 0.1).astype(np.float32), "b1": np.zeros(D_H, np.float32),
            "w2": (rng.standard_normal((D_OUT, D_H)) * 0.1).astype(np.float32), "b2": np.zeros(D_OUT, np.float32)}


def run_torchlike(lib, sizes, checkpoints=(), report=None):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(D_IN, D_H), nn.ReLU(), nn.Linear(D_H, D_OUT))
    p = init_params()
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(p["w1"]))
        model[2].weight.copy_(lib.tensor(p["w2"]))
        model[0].bias.zero_()
        model[2].bias.zero_()
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    loss = None
    for k, n in enumerate(sizes, 1):
        x, y = data(n)
        opt.zero_grad()
        loss = loss_fn(model(lib.tensor(x)), lib.tensor(y))
        loss.backward()
        opt.step()
        if k in checkpoints and report is not None:
            report(k, float(loss.item()))
    return float(loss.item())


def run_jax(sizes, use_jit):
    import jax
    import jax.numpy as jnp

    def loss_fn(params, x, y):
        h = jnp.maximum(x @ params["w1"].T + params["b1"], 0)
        out = h @ params["w2"].T + params["b2"]
        return jnp.mean((out - y) ** 2)

    vg = jax.value_and_grad(loss_fn)
    if use_jit:
        vg = jax.jit(vg)
    params = {k: jnp.asarray(v) for k, v in init_params().items()}
    loss = None
    for n in sizes:
        x, y = data(n)
        loss, g = vg(params, jnp.asarray(x), jnp.asarray(y))
        params = {k: params[k] - 0.01 * g[k] for k in params}
    return float(loss)


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t, out, time.process_time() - c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="400 timed shapes and RSS up to 400")
    ap.add_argument("--shapes", type=int, default=None, help="timed shapes (default 30, 400 with --full)")
    ap.add_argument("--no-jax", action="store_true", help="skip the raw JAX baselines")
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args()
    n_timed = args.shapes or (400 if args.full else 30)
    sizes = list(range(1, n_timed + 1))
    import torchlike

    # torchlike first, in a fresh process state, so its RSS is its own; one run over every shape,
    # timed up to n_timed, RSS sampled at the checkpoints
    rss0 = rss_mb()
    extra = [s for s in (30, 90, 400) if s <= (400 if args.full else 90)]
    total = max([n_timed] + extra)
    rss, mark = {}, {}
    t0, c0 = time.perf_counter(), time.process_time()

    def report(k, loss):
        if k == n_timed:
            mark["t"], mark["loss"], mark["cpu"] = time.perf_counter() - t0, loss, time.process_time() - c0
        if k in extra:
            rss[k] = rss_mb()
    run_torchlike(torchlike, list(range(1, total + 1)), checkpoints=set(extra) | {n_timed}, report=report)
    t_tl, loss_tl = mark["t"], mark["loss"]
    info = torchlike.cache_info()

    rows = [("torchlike eager", t_tl, loss_tl, mark["cpu"])]
    if not args.no_torch:
        try:
            import torch
            rows.append(("torch eager", *timed(lambda: run_torchlike(torch, sizes))))
        except ImportError:
            pass
    if not args.no_jax:
        rows.append(("raw JAX eager", *timed(lambda: run_jax(sizes, False))))
        rows.append(("jax.jit(value_and_grad)", *timed(lambda: run_jax(sizes, True))))
    ref = dict((r[0], r[1]) for r in rows).get("raw JAX eager")
    cref = dict((r[0], r[3]) for r in rows).get("raw JAX eager")
    print(f"{n_timed} training steps of a {D_IN}-{D_H}-{D_OUT} MLP, batch size 1..{n_timed} (a new shape every step)")
    for name, t, loss, cpu in rows:
        ratio = f"{t / ref:6.3f}x raw JAX eager" if ref else ""
        cratio = f"{cpu / cref:6.3f}x" if cref else ""
        print(f"  {name:26s} {t:8.2f} s  {ratio}  CPU {cpu:8.2f} s {cratio}  (final loss {loss:.5f})")
    print(f"torchlike RSS: start {rss0:.0f} MB; " + ", ".join(f"after {k} shapes {v:.0f} MB" for k, v in sorted(rss.items())))
    if 30 in rss and 90 in rss:
        print(f"  RSS(90)/RSS(30) = {rss[90] / rss[30]:.3f}")
    print(f"torchlike caches: {info}")


if __name__ == "__main__":
    main()
