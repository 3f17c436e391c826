"""vmap over ops whose output shape or arguments depend on data, against torch.func.vmap: argwhere runs per
example and stacks (torch's fallback), nonzero and boolean masks raise torch's RuntimeError, linspace takes
batched tensor bounds, and aten::max_pool2d_with_indices_backward batches."""
import numpy as np
import pytest

import torchlike
from conftest import torch


def _both(fn, *arrays, in_dims=0):
    """(torch result or exception, torchlike result or exception) of vmap(fn) on the same inputs."""
    out = []
    for lib in (torch, torchlike):
        args = [lib.tensor(a) for a in arrays]
        try:
            out.append(lib.func.vmap(lambda *a, lib=lib: fn(lib, *a), in_dims=in_dims)(*args))
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


def _same(t, l):  # noqa: E741
    if isinstance(t, Exception):
        assert type(l) is type(t) and str(l) == str(t), (t, l)
    else:
        assert not isinstance(l, Exception), l
        assert str(l.dtype) == str(t.dtype) and tuple(l.shape) == tuple(t.shape)
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


SAME_COUNT = np.array([[1., 0, 2, 0], [0.5, 0, 1, 0]], np.float32)
OTHER_COUNT = np.array([[1., 0, 2, 0], [0.5, 1, 1, 0]], np.float32)


@pytest.mark.parametrize("x", [SAME_COUNT, OTHER_COUNT, SAME_COUNT.reshape(2, 2, 2)], ids=["same", "differ", "2d"])
def test_argwhere_runs_per_example_like_torch(x):
    _same(*_both(lambda L, t: L.argwhere(t), x))


@pytest.mark.parametrize("fn", [lambda L, t: L.nonzero(t), lambda L, t: t.nonzero()], ids=["nonzero", "method"])
def test_nonzero_raises_torchs_dynamic_shape_error(fn):
    t, l = _both(fn, SAME_COUNT)  # noqa: E741
    assert isinstance(t, RuntimeError)
    _same(t, l)


def test_data_dependent_ops_raise_runtime_error_not_jax_errors():
    for fn in (lambda L, t: t[t > 0], lambda L, t: L.unique(t)):
        t, l = _both(fn, SAME_COUNT)  # noqa: E741
        assert isinstance(t, RuntimeError) and type(l) is RuntimeError, (t, l)
        assert str(l).startswith("vmap: "), l


@pytest.mark.parametrize("kw", [{}, {"dtype": "int64"}, {"steps": 1}, {"steps": 2}])
def test_linspace_with_batched_tensor_bounds(kw):
    steps = kw.get("steps", 5)

    def fn(L, s, e):
        dt = getattr(L, kw["dtype"]) if "dtype" in kw else None
        return L.linspace(s, e, steps, dtype=dt)
    _same(*_both(fn, np.array([0., -2.5, 1.], np.float32), np.array([3., 4., 1.], np.float32)))
    _same(*_both(fn, np.array([0., -2.5, 1.], np.float32), np.float32(3.), in_dims=(0, None)))


def test_max_pool2d_with_indices_backward_batches_like_torch():
    x = np.random.default_rng(0).standard_normal((2, 1, 2, 5, 6)).astype(np.float32)

    def fn(L, t):
        out, idx = L.nn.functional.max_pool2d_with_indices(t, 3, 2, ceil_mode=True)
        return L.ops.aten.max_pool2d_with_indices_backward.default(L.ones_like(out), t, [3, 3], [2, 2], [0, 0],
                                                                   [1, 1], True, idx)
    _same(*_both(fn, x))


def test_batch_norm_with_unbatched_running_stats_raises_torchs_error():
    x = np.random.default_rng(1).standard_normal((2, 4, 3)).astype(np.float32)
    t, l = _both(lambda L, i: L.nn.functional.batch_norm(i, L.zeros(3), L.ones(3), training=True), x)  # noqa: E741
    assert isinstance(t, RuntimeError)
    _same(t, l)
    t, l = _both(lambda L, i: L.nn.BatchNorm1d(3)(i), x)  # noqa: E741
    _same(t, l)
    _same(*_both(lambda L, i: L.nn.functional.batch_norm(i, L.zeros(3), L.ones(3), training=False), x))


def test_in_place_writes_to_batched_inputs_reach_the_callers_tensors():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 4, 3)
    got = []
    for lib in (torch, torchlike):
        m, v = lib.zeros(2, 3), lib.ones(2, 3)
        lib.func.vmap(lambda i, m, v, L=lib: L.nn.functional.batch_norm(i, m, v, training=True))(lib.tensor(x), m, v)
        a = lib.arange(6.0).reshape(2, 3)
        r = lib.func.vmap(lambda e: e.add_(1), in_dims=1)(a)
        b = lib.arange(6.0).reshape(2, 3)
        r2 = lib.func.vmap(lambda e: e[0].mul_(5), chunk_size=1)(b)
        got.append([m.numpy(), v.numpy(), a.numpy(), r.numpy(), b.numpy(), r2.numpy()])
    for g, w in zip(got[1], got[0]):
        np.testing.assert_allclose(g, w, rtol=1e-6)
