"""PyTorch's benchmark recipe (torch.utils.benchmark), shortened: Timer.timeit, blocked_autorange,
adaptive_autorange and Compare over two batched-dot implementations and two sizes."""
import pickle

import torch
import torch.utils.benchmark as benchmark


def batched_dot_mul_sum(a, b):
    """Computes batched dot by multiplying and summing"""
    return a.mul(b).sum(-1)


def batched_dot_bmm(a, b):
    """Computes batched dot by reducing to ``bmm``"""
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)


x = torch.randn(1000, 64)
t0 = benchmark.Timer(stmt="batched_dot_mul_sum(x, x)", setup="from __main__ import batched_dot_mul_sum",
                     globals={"x": x})
t1 = benchmark.Timer(stmt="batched_dot_bmm(x, x)", setup="from __main__ import batched_dot_bmm", globals={"x": x})
print(t0.timeit(100))
print(t1.timeit(100))
m = t0.blocked_autorange(min_run_time=0.05)
print(type(m).__module__, type(m).__name__, m.number_per_run >= 1, len(m.times) >= 1, m.mean > 0, m.median > 0)
a = t1.adaptive_autorange(threshold=10.0, max_run_time=2.0)
print(len(a.times) > 3, a.iqr >= 0)
back = pickle.loads(pickle.dumps(m))
print(type(back).__name__, back.times == m.times)

results = []
for n in (1, 64):
    for threads in (1, 2):
        y = torch.randn(n, 32)
        for stmt, name in (("batched_dot_mul_sum(y, y)", "mul/sum"), ("batched_dot_bmm(y, y)", "bmm")):
            results.append(benchmark.Timer(stmt=stmt, setup=f"from __main__ import {stmt.split('(')[0]}",
                                           globals={"y": y}, num_threads=threads, label="Batched dot",
                                           sub_label=name, description=f"[{n}, 32]").blocked_autorange(
                                               min_run_time=0.02))
compare = benchmark.Compare(results)
compare.print()
compare.trim_significant_figures()
compare.colorize()
print(str(compare).replace("\033", "ESC"))
