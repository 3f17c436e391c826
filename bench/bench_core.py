"""Per-op eager overhead and MLP forward+backward: torchlike vs raw jnp vs torch (ratios from one run).

    python bench/bench_core.py
"""
import statistics
import time

import numpy as np


def timeit(fn, n=2000, warmup=50):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(ts)


def main():
    import jax
    import jax.numpy as jnp
    import torch
    import torchlike as tl
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((4, 4)).astype(np.float32)
    b_np = rng.standard_normal((4, 4)).astype(np.float32)
    ja, jb = jnp.asarray(a_np), jnp.asarray(b_np)
    ta, tb = torch.tensor(a_np), torch.tensor(b_np)
    la, lb = tl.tensor(a_np), tl.tensor(b_np)
    rows = []
    for name, fj, ft, fl in [
        ("a+b", lambda: jnp.add(ja, jb).block_until_ready(), lambda: ta + tb, lambda: (la + lb)._value.block_until_ready()),
        ("a@b", lambda: jnp.matmul(ja, jb).block_until_ready(), lambda: ta @ tb, lambda: (la @ lb)._value.block_until_ready()),
        ("x.sum()", lambda: jnp.sum(ja).block_until_ready(), lambda: ta.sum(), lambda: la.sum()._value.block_until_ready()),
    ]:
        j, t, l = timeit(fj), timeit(ft), timeit(fl)
        rows.append((name, l, j, t))
    print(f"{'op (4x4 f32)':<14}{'torchlike us':>14}{'jnp us':>10}{'torch us':>10}{'tl/jnp':>9}{'tl/torch':>10}")
    for name, l, j, t in rows:
        print(f"{name:<14}{l:>14.2f}{j:>10.2f}{t:>10.2f}{l / j:>9.2f}{l / t:>10.2f}")

    # 3-layer MLP written with raw tensor ops: forward + backward
    B, D, H, C = 128, 784, 512, 10
    x_np = rng.standard_normal((B, D)).astype(np.float32)
    ws = [rng.standard_normal(s).astype(np.float32) * 0.02 for s in [(D, H), (H, H), (H, C)]]
    bs = [np.zeros(s, np.float32) for s in (H, H, C)]

    def fwd_tl(x, params):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < 2:
                h = h.relu()
        return (h * h).mean()

    lp = [(tl.tensor(w, requires_grad=True), tl.tensor(b, requires_grad=True)) for w, b in zip(ws, bs)]
    lx = tl.tensor(x_np)

    def step_tl():
        for w, b in lp:
            w.grad = None
            b.grad = None
        loss = fwd_tl(lx, lp)
        loss.backward()
        lp[-1][0].grad._value.block_until_ready()

    tp = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in zip(ws, bs)]
    tx = torch.tensor(x_np)

    def step_torch():
        for w, b in tp:
            w.grad = None
            b.grad = None
        fwd_tl(tx, tp).backward()

    def fwd_j(params, x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < 2:
                h = jax.nn.relu(h)
        return (h * h).mean()

    vg = jax.jit(jax.value_and_grad(fwd_j))
    jp = [(jnp.asarray(w), jnp.asarray(b)) for w, b in zip(ws, bs)]
    jx = jnp.asarray(x_np)

    def step_jax():
        jax.block_until_ready(vg(jp, jx))

    l, t, j = timeit(step_tl, n=50, warmup=5), timeit(step_torch, n=50, warmup=5), timeit(step_jax, n=50, warmup=5)
    print(f"\nMLP fwd+bwd (B{B}, {D}-{H}-{H}-{C}): torchlike {l / 1e3:.3f} ms, torch {t / 1e3:.3f} ms, "
          f"jax.jit value_and_grad {j / 1e3:.3f} ms")
    print(f"ratios: torchlike/jit-jax {l / j:.2f}x (goal <= 2x), torchlike/torch {l / t:.2f}x")


if __name__ == "__main__":
    main()
