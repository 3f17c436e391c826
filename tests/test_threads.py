"""Eager ops called from several threads at once give torch's results.

Libraries call torch from thread pools: transformers 5 materialises every checkpoint tensor in a pool of four
threads (``tensor[...]``, ``.to(dtype)``, then ``copy_`` into the model), data pipelines decode in threads.
torchlike's caches (compiled programs, shapes, constants) are shared by all threads; a race there would give a
wrong value or an exception in one thread only.  Each job runs on fresh shapes from a small set, so the threads
meet while the caches are still being filled.
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch computes the expected values")


def _job(lib, i):
    r = np.random.default_rng(i)
    n, m = (int(v) for v in r.integers(1, 5, 2))
    a = lib.from_numpy(r.standard_normal((n, m)).astype(np.float32))
    b = a[...].to(dtype=lib.float64)  # what transformers' loader does with each checkpoint tensor
    c = (b * 2 + 1).sum(0)
    d = lib.nn.functional.softmax(a, -1)[: n // 2 + 1]
    x = lib.zeros(n, m)
    x[0] = 3.0
    x.add_(a)
    w = lib.nn.Linear(m, 3)
    with lib.no_grad():
        w.weight.copy_(lib.ones(3, m))
        w.bias.zero_()
    y = w(a)
    g = a.clone().requires_grad_()
    (g * g).sum().backward()
    v = a.view(-1)[::2].contiguous()
    return [t.detach().numpy().copy() for t in (b, c, d, x, y, g.grad, v)]


def test_ops_from_a_thread_pool_match_torch():
    jobs = range(48)
    expected = [_job(torch, i) for i in jobs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda i: _job(torchlike, i), jobs))
    for i, (ours, theirs) in enumerate(zip(got, expected)):
        for k, (o, t) in enumerate(zip(ours, theirs)):
            assert o.dtype == t.dtype and o.shape == t.shape, (i, k)
            np.testing.assert_allclose(o, t, rtol=1e-6, atol=1e-6, err_msg=f"job {i}, result {k}")
