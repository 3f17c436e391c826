"""Eager CPU random ops: torchlike (torch's MT19937 streams) vs torch vs raw ``jax.random``, per op and size.

    python bench/bench_rng.py            # every case
    python bench/bench_rng.py randn      # the cases whose name contains "randn"

For each case: microseconds per call (best of several repeats of a timed loop, after a warm-up) for
torchlike, torch and the closest raw ``jax.random`` call (a fixed key, jitted per shape, so JAX's cost is
its dispatch and kernel only), the ratios torchlike / torch and torchlike / jax, whether torchlike's
values equal torch's for the same seed, and how many XLA programs torchlike compiled for the case's
first call at a size it had not seen (the warm-up).  A benchmark, not a test: run it by hand.
"""
import statistics
import sys
import time


def _best_us(fn, budget=0.25):
    """Best mean time per call (us) over 5 timed loops sized to ~budget/5 seconds each."""
    fn()
    t = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t, 1e-7)
    reps = max(1, min(20000, int(budget / 5 / one)))
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        ts.append((time.perf_counter() - t) / reps)
    return min(ts) * 1e6


class _Compiles:
    """Counts XLA backend compilations (JAX's monitoring events)."""

    def __init__(self):
        import jax.monitoring
        self.n = 0
        jax.monitoring.register_event_duration_secs_listener(self._on)

    def _on(self, name, *_a, **_k):
        if name.endswith("backend_compile_duration"):
            self.n += 1


def _cases(torch, tl, jax, jnp):
    import numpy as np
    key = jax.random.PRNGKey(0)
    jit = {}

    def J(name, f, *shape_args):
        k = (name,) + shape_args
        if k not in jit:
            jit[k] = jax.jit(lambda key: f(key, *shape_args))
        return lambda: jit[k](key).block_until_ready()

    probs = np.random.RandomState(0).rand(4, 1000).astype(np.float32)
    pt, pl, pj = torch.tensor(probs), tl.tensor(probs), jnp.log(jnp.asarray(probs))
    xs = {n: (torch.ones(n), tl.ones(n), jnp.ones(n)) for n in (4096, 1 << 20)}
    w = {s: (torch.empty(s), tl.empty(s)) for s in ((256, 256), (1024, 1024))}
    cases = []
    for n in (32, 1000, 1 << 16, 1 << 20, 10 ** 7):  # 10**7: the size issue 13 asks to compare at
        cases += [
            (f"rand({n})", lambda m, n=n: m.rand(n), J("u", lambda k, n: jax.random.uniform(k, (n,)), n)),
            (f"randn({n})", lambda m, n=n: m.randn(n), J("n", lambda k, n: jax.random.normal(k, (n,)), n)),
            (f"rand({n}) float64", lambda m, n=n: m.rand(n, dtype=m.float64),
             J("u64", lambda k, n: jax.random.uniform(k, (n,), jnp.float64), n)),
            (f"randn({n}) float64", lambda m, n=n: m.randn(n, dtype=m.float64),
             J("n64", lambda k, n: jax.random.normal(k, (n,), jnp.float64), n)),
        ]
    cases += [
        ("randn(1000) bfloat16", lambda m: m.randn(1000, dtype=m.bfloat16),
         J("nb", lambda k, n: jax.random.normal(k, (n,), jnp.bfloat16), 1000)),
        ("randint(0,100,(32,))", lambda m: m.randint(0, 100, (32,)),
         J("ri", lambda k, n: jax.random.randint(k, (n,), 0, 100), 32)),
        ("randint(0,50257,(12,64))", lambda m: m.randint(0, 50257, (12, 64)),
         J("ri2", lambda k, n: jax.random.randint(k, (12, n), 0, 50257), 64)),
        ("randint(0,1000,(1M,))", lambda m: m.randint(0, 1000, (1 << 20,)),
         J("ri3", lambda k, n: jax.random.randint(k, (n,), 0, 1000), 1 << 20)),
    ]
    for n in (100, 1000, 60000, 10 ** 6):
        cases.append((f"randperm({n})", lambda m, n=n: m.randperm(n),
                      J("rp", lambda k, n: jax.random.permutation(k, n), n)))
    cases += [
        ("multinomial(1x1000, 1)", lambda m: m.multinomial(pt[0] if m is torch else pl[0], 1),
         J("mn", lambda k, n: jax.random.categorical(k, pj[0]), 0)),
        ("multinomial(4x1000, 1)", lambda m: m.multinomial(pt if m is torch else pl, 1),
         J("mn4", lambda k, n: jax.random.categorical(k, pj), 0)),
        ("multinomial(4x1000, 8, repl)", lambda m: m.multinomial(pt if m is torch else pl, 8, True),
         J("mn8", lambda k, n: jax.random.categorical(k, pj, shape=(8, 4)), 0)),
    ]
    for n in (4096, 1 << 20):
        cases.append((f"dropout(p=0.1, {n})",
                      lambda m, n=n: (m.nn.functional.dropout(xs[n][0 if m is torch else 1], 0.1, True)),
                      J("do", lambda k, n: jnp.where(jax.random.bernoulli(k, 0.9, (n,)), xs[n][2] / 0.9, 0), n)))
    for s in w:
        cases += [
            (f"normal_ {s}", lambda m, s=s: w[s][0 if m is torch else 1].normal_(0, 0.02),
             J("ni", lambda k, a, b: 0.02 * jax.random.normal(k, (a, b)), *s)),
            (f"uniform_ {s}", lambda m, s=s: w[s][0 if m is torch else 1].uniform_(-0.1, 0.1),
             J("ui", lambda k, a, b: jax.random.uniform(k, (a, b), minval=-0.1, maxval=0.1), *s)),
        ]
    return cases


def main(filt=""):
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch

    import torchlike as tl
    torch.set_num_threads(1)  # torch's CPU generators are serial anyway
    compiles = _Compiles()
    print(f"{'case':30s} {'tl us':>10s} {'torch us':>10s} {'jax us':>10s} {'tl/torch':>9s} {'tl/jax':>7s}"
          f"  same  compiles(new size)")
    ratios = []
    for name, f, jf in _cases(torch, tl, jax, jnp):
        if filt not in name:
            continue
        c0 = compiles.n
        tl.manual_seed(0)
        a = f(tl)
        first = compiles.n - c0
        torch.manual_seed(0)
        b = f(torch)
        same = bool(np.array_equal(a.float().numpy(), b.float().numpy(), equal_nan=True))
        t_tl = _best_us(lambda: f(tl)._value.block_until_ready())
        t_t = _best_us(lambda: f(torch))
        t_j = _best_us(jf)
        ratios.append(t_tl / t_t)
        print(f"{name:30s} {t_tl:10.1f} {t_t:10.1f} {t_j:10.1f} {t_tl / t_t:9.2f} {t_tl / t_j:7.2f}  "
              f"{'yes' if same else 'NO':4s}  {first}", flush=True)
    if ratios:
        print(f"geometric mean tl/torch: {statistics.geometric_mean(ratios):.2f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
