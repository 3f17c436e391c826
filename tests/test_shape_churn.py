"""Ops whose shapes keep changing (a growing KV cache, ids, masks) run on the host instead of compiling a
program per shape (torchlike/_shape_churn.py): same values as torch, far fewer compilations."""
import numpy as np
import torch

import torchlike
from torchlike import _jit_cache, _shape_churn
from conftest import assert_close_values


def _generation_loop(lib, steps):
    """A greedy-decoding-shaped loop: ids, mask and a KV cache grow by one each step; the stopping check uses
    isin, the positions integer arithmetic, a clone and comparisons on the growing ids."""
    g = np.random.default_rng(0)
    ids = lib.tensor(g.integers(0, 50, (2, 3)))
    mask = lib.ones(2, 3, dtype=lib.int64)
    cache = lib.tensor(g.standard_normal((2, 4, 3, 8)).astype(np.float32))
    news = [lib.tensor(g.standard_normal((2, 4, 1, 8)).astype(np.float32)) for _ in range(steps)]
    toks = [lib.tensor(g.integers(0, 50, (2, 1))) for _ in range(steps)]
    seen = []
    for t in range(steps):
        cache = lib.cat([cache, news[t]], dim=-2)
        ids = lib.cat([ids, toks[t]], dim=-1)
        mask = lib.cat([mask, mask.new_ones((2, 1))], dim=-1)
        pos = mask.cumsum(-1) * mask - 1
        done = lib.isin(ids[:, -1:], lib.tensor([7, 11]))
        last = ids[:, -3:].clone()
        seen.append((pos.sum().item(), done.tolist(), (ids > 25).sum().item(), (ids * 3 - last.sum()).max().item(),
                     (ids == ids.flip(-1)).sum().item()))
    return seen, ids, mask, cache


def test_growing_shapes_match_torch_and_compile_few_programs():
    torchlike.clear_caches()
    c0 = _jit_cache._Budget.compiled
    seen, ids, mask, cache = _generation_loop(torchlike, 60)
    compiled = _jit_cache._Budget.compiled - c0
    r_seen, r_ids, r_mask, r_cache = _generation_loop(torch, 60)
    assert seen == r_seen
    assert_close_values(ids, r_ids)
    assert_close_values(mask, r_mask)
    assert_close_values(cache, r_cache)
    # without the host path each of the ~15 growing-shape ops compiles once per step (903 programs measured);
    # with it each compiles its first WATCH_AFTER shapes, plus the fixed-shape programs (25 measured)
    assert compiled < 60, compiled


def test_a_shape_used_often_compiles_and_gradients_never_take_the_host_path():
    torchlike.clear_caches()
    for n in range(1, 6):  # watch cat
        torchlike.cat([torchlike.arange(n), torchlike.arange(2)])
    a, b = torchlike.arange(3), torchlike.arange(4)
    c0 = _jit_cache._Budget.compiled
    for _ in range(_shape_churn.COMPILE_AFTER + 3):
        out = torchlike.cat([a, b])
    assert out.tolist() == torch.cat([torch.arange(3), torch.arange(4)]).tolist()
    assert _jit_cache._Budget.compiled - c0 == 1  # compiled once, after COMPILE_AFTER host calls
    for n in range(1, 6):  # recorded: the compiled op and its pullback, values and gradients as torch's
        x = torchlike.ones(n, 2, requires_grad=True)
        r = torch.ones(n, 2, requires_grad=True)
        y, ry = torchlike.cat([x, x * 2]), torch.cat([r, r * 2])
        (y * torchlike.arange(2 * n * 2.0).reshape(2 * n, 2)).sum().backward()
        (ry * torch.arange(2 * n * 2.0).reshape(2 * n, 2)).sum().backward()
        assert_close_values(x.grad, r.grad)


def test_casts_floats_and_errors_keep_the_compiled_path():
    for n in range(1, 8):
        x = np.arange(n, dtype=np.float32) / 3
        q = torchlike.cat([torchlike.tensor(x), torchlike.arange(2)])  # a cast: XLA's
        assert_close_values(q, torch.cat([torch.tensor(x), torch.arange(2)]))
        m = torchlike.tensor(x) * 3  # float arithmetic: XLA's
        assert_close_values(m, torch.tensor(x) * 3)
        big = torchlike.tensor([2 ** 62] * n) * 4  # integer overflow wraps as torch's does
        assert big.tolist() == (torch.tensor([2 ** 62] * n) * 4).tolist()
        b = torchlike.tensor([True] * n) + torchlike.tensor([False] * n)
        assert b.tolist() == (torch.tensor([True] * n) + torch.tensor([False] * n)).tolist()
    try:
        torchlike.cat([torchlike.zeros(2, 3, dtype=torchlike.int64), torchlike.zeros(2, 4, dtype=torchlike.int64)])
    except RuntimeError as e:
        assert "Sizes of tensors must match" in str(e)
    else:
        raise AssertionError("cat of mismatched sizes must raise")
