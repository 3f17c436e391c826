"""Eager CPU random generation (torch's MT19937 streams): torchlike vs torch for 10^7 elements.

    python bench/bench_rng.py [n]

Prints the median time of each framework and the ratio torchlike / torch (both produce the same values).
"""
import statistics
import sys
import time


def _median(fn, reps=3):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main(n=10 ** 7):
    import numpy as np
    import torch

    import torchlike as tl
    torch.set_num_threads(1)  # torch's CPU generators are serial anyway
    cases = [("rand float32", lambda m: m.rand(n)), ("randn float32", lambda m: m.randn(n)),
             ("rand float64", lambda m: m.rand(n, dtype=m.float64)),
             ("randn float64", lambda m: m.randn(n, dtype=m.float64)),
             ("randint(0, 1000)", lambda m: m.randint(0, 1000, (n,))),
             ("randperm(10^6)", lambda m: m.randperm(10 ** 6))]
    print(f"{'case':20s} {'torchlike s':>12s} {'torch s':>10s} {'ratio':>7s}  same values")
    for name, f in cases:
        tl.manual_seed(0)
        a = f(tl).numpy()
        torch.manual_seed(0)
        same = bool(np.array_equal(a, f(torch).numpy()))
        t_tl = _median(lambda: f(tl).numpy())
        t_t = _median(lambda: f(torch))
        print(f"{name:20s} {t_tl:12.3f} {t_t:10.3f} {t_tl / t_t:7.1f}  {same}")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10 ** 7)
