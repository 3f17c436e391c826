"""What a tiny training script feels: small eager ops and a tiny model's training step, torchlike vs torch.

    python bench/bench_eager_small.py [--rounds N] [--only SUBSTRING] [--sync]

Rows: pointwise ops on host-resident, device-resident and requires-grad tensors, in-place ops on host tensors,
``detach``, reductions, ``zeros_like``, and a 2-layer MLP (8 -> 32 -> 4, batch 16; and ``MLP16``: 16 -> 32 -> 16,
batch 32) trained with SGD and with Adam (forward, loss, backward, step, zero_grad), with ``MLP16``'s backward and
optimizer step alone.  Each round times every row for torchlike and for torch in turn
(the order alternating between rounds), as CPU time of a loop; the table gives the medians over rounds and the
ratio of the medians.  The machine this runs on is shared: only ratios taken in one run mean anything.
``--sync`` turns JAX's asynchronous CPU dispatch off before torchlike is imported (docs/eager_speed.md: XLA hands
every program of 1000 flops or more to a worker thread, ~15-30 us of CPU per op on this machine's tiny tensors).
A benchmark, not a test: run it by hand.
"""
import statistics
import sys
import time

import numpy as np


def _loop_us(fn, n):
    t = time.process_time()  # CPU time: steadier than wall time on a shared machine
    for _ in range(n):
        fn()
    return (time.process_time() - t) / n * 1e6


def _ready(x):
    """Wait for a torchlike result (torch is synchronous); a host-resident result is ready as it is."""
    if type(getattr(x, "_x", None)) is np.ndarray:
        return x
    v = getattr(x, "_x", None)
    if hasattr(v, "block_until_ready"):
        v.block_until_ready()
    return x


def _op_rows(mod):
    """(name, zero-argument callable) for one library (``mod`` is torch or torchlike)."""
    rng = np.random.default_rng(0)
    hx = rng.standard_normal((4, 4)).astype(np.float32)
    hy = rng.standard_normal((4, 4)).astype(np.float32)

    def host():
        return mod.tensor(hx), mod.tensor(hy)

    def dev():  # moved to the device (what any device op or a view does to a host tensor)
        t, u = host()
        if mod.__name__ == "torchlike":
            t._value, u._value  # noqa: B018
        return t, u

    def grad():
        return mod.tensor(hx, requires_grad=True), mod.tensor(hy, requires_grad=True)

    # every row its own tensors: a device op on a host tensor moves it to the device for every later row
    rows = [
        ("a+b host", host, lambda a, b: a + b),
        ("a*2 host", host, lambda a, b: a * 2),
        ("y.add_(x) host", host, lambda a, b: a.add_(b)),
        ("y.mul_(0.5) host", host, lambda a, b: a.mul_(0.5)),
        ("y.sub_(1) host", host, lambda a, b: a.sub_(1)),
        ("y.zero_() host", host, lambda a, b: a.zero_()),
        ("y.fill_(1.5) host", host, lambda a, b: a.fill_(1.5)),
        ("y.copy_(x) host", host, lambda a, b: a.copy_(b)),
        ("x.detach() host", host, lambda a, b: a.detach()),
        ("x.sum() host", host, lambda a, b: a.sum()),
        ("x.mean() host", host, lambda a, b: a.mean()),
        ("x.sum(0) host", host, lambda a, b: a.sum(0)),
        ("zeros_like host", host, lambda a, b: mod.zeros_like(a)),
        ("a+b device", dev, lambda a, b: a + b),
        ("y.add_(x) device", dev, lambda a, b: a.add_(b)),
        ("x.sum() device", dev, lambda a, b: a.sum()),
        ("a+b grad", grad, lambda a, b: a + b),
        ("a*b grad", grad, lambda a, b: a * b),
        ("x@w grad", grad, lambda a, b: a @ b),
        ("relu grad", grad, lambda a, b: a.relu()),
        ("x.sum() grad", grad, lambda a, b: a.sum()),
        ("x.detach() grad", grad, lambda a, b: a.detach()),
    ]
    out = []
    for name, make, f in rows:
        a, b = make()
        if "add_" in name:  # (zeros written: values stay finite)
            a = mod.zeros(4, 4)
            if make is dev and mod.__name__ == "torchlike":
                a._value  # noqa: B018
        out.append((name, lambda f=f, a=a, b=b: f(a, b)))
    return out


def _mlp(mod, opt_name, sizes=(16, 8, 32, 4), phase="step"):
    """One training step of a 2-layer MLP (batch x n_in -> hidden -> n_out, MSE loss) as a zero-argument
    callable; ``phase`` "backward": ``zero_grad()`` and ``loss.backward(retain_graph=True)`` of one forward made
    outside the loop; "opt": ``opt.step()`` alone (the gradients of one backward kept, lr 0)."""
    batch, n_in, hidden, n_out = sizes
    rng = np.random.default_rng(1)
    mod.manual_seed(0)
    model = mod.nn.Sequential(mod.nn.Linear(n_in, hidden), mod.nn.ReLU(), mod.nn.Linear(hidden, n_out))
    x = mod.tensor(rng.standard_normal((batch, n_in)).astype(np.float32))
    y = mod.tensor(rng.standard_normal((batch, n_out)).astype(np.float32))
    opt = (mod.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if opt_name == "sgd" else
           mod.optim.Adam(model.parameters(), lr=1e-3))
    loss_fn = mod.nn.MSELoss()
    if phase == "backward":
        loss = loss_fn(model(x), y)
        return lambda: (opt.zero_grad(), loss.backward(retain_graph=True))
    if phase == "opt":
        loss_fn(model(x), y).backward()
        opt.param_groups[0]["lr"] = 0.0  # (the parameters stay put however many steps run)
        return lambda: opt.step()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def main():
    if "--sync" in sys.argv:
        import jax
        jax.config.update("jax_cpu_enable_async_dispatch", False)  # (before the first computation)
    import torch
    import torchlike as tl
    torch.set_num_threads(1)
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 7
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    rows = {}
    for m, mod in (("tl", tl), ("torch", torch)):
        for name, f in _op_rows(mod):
            rows.setdefault(name, {})[m] = (lambda f=f: _ready(f()), 300)
        for o in ("sgd", "adam"):
            f = _mlp(mod, o)
            rows.setdefault(f"MLP step {o}", {})[m] = (lambda f=f: _ready(f()), 40)
            # the tiny step of issue 10: 16 -> 32 -> 16, batch 32; and its backward and optimizer step alone
            f = _mlp(mod, o, (32, 16, 32, 16))
            rows.setdefault(f"MLP16 step {o}", {})[m] = (lambda f=f: _ready(f()), 40)
            f = _mlp(mod, o, (32, 16, 32, 16), "opt")
            rows.setdefault(f"MLP16 opt.step {o}", {})[m] = (f, 100)
        f = _mlp(mod, "sgd", (32, 16, 32, 16), "backward")
        rows.setdefault("MLP16 backward", {})[m] = (f, 100)
    rows = {k: v for k, v in rows.items() if only in k}
    for r in rows.values():  # warm-up: compile every program, fill caches
        for f, _ in r.values():
            for _ in range(30):
                f()
    times = {k: {"tl": [], "torch": []} for k in rows}
    for i in range(rounds):
        for k, r in rows.items():
            for m in (("tl", "torch") if i % 2 == 0 else ("torch", "tl")):
                f, n = r[m]
                times[k][m].append(_loop_us(f, n))
    print(f"{'row':<20}{'torchlike us':>14}{'torch us':>10}{'ratio':>8}")
    for k in rows:
        lt, tt = statistics.median(times[k]["tl"]), statistics.median(times[k]["torch"])
        print(f"{k:<20}{lt:>14.2f}{tt:>10.2f}{lt / tt:>8.2f}")


if __name__ == "__main__":
    main()
