"""vmap over ops whose output shape or arguments depend on data, against torch.func.vmap: argwhere runs per
example and stacks (torch's fallback, nested vmaps too), nonzero, unique, masked_select and boolean masks raise
torch's RuntimeError with torch's text, linspace takes batched tensor bounds, and
aten::max_pool2d_with_indices_backward batches."""
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


def _set_masked(L, t):
    t = t.clone()
    t[t > 0] = 0
    return t


DYNAMIC_SHAPE = {
    "mask_index": lambda L, t: t[t > 0],
    "mask_index_2d": lambda L, t: t[:, None][t[:, None] > 0],
    "mask_setitem": _set_masked,
    "index_put_mask": lambda L, t: t.index_put((t > 0,), L.tensor(0.)),
    "masked_select": lambda L, t: L.masked_select(t, t > 0),
    "unique": lambda L, t: L.unique(t),
    "unique_method_inverse": lambda L, t: t.unique(return_inverse=True)[1],
    "unique_dim": lambda L, t: L.unique(t, dim=0),
    "unique_consecutive": lambda L, t: L.unique_consecutive(t),
    "unique_consecutive_dim": lambda L, t: L.unique_consecutive(t, dim=0),
    "nonzero_as_tuple": lambda L, t: L.nonzero(t, as_tuple=True)[0],
    "where_condition_only": lambda L, t: L.where(t)[0],
}


@pytest.mark.parametrize("name", sorted(DYNAMIC_SHAPE))
def test_data_dependent_shapes_raise_torchs_vmap_error(name):
    t, l = _both(DYNAMIC_SHAPE[name], SAME_COUNT)  # noqa: E741
    assert isinstance(t, RuntimeError), t
    _same(t, l)  # type and text


def test_masked_select_with_an_unbatched_mask_runs_like_torch():
    _same(*_both(lambda L, t: L.masked_select(t, L.tensor([True, False, True, False])), SAME_COUNT))


NESTED = {  # vmap(vmap(argwhere)): torch's fallback loops over both levels, innermost first
    "same_counts": (np.array([[[1., 0, 3], [2, 0, 1]], [[0, 1, 5], [1, 3, 0]]], np.float32), 0),
    "same_counts_in_dim_1": (np.array([[[1., 0, 3], [2, 0, 1]], [[0, 1, 5], [1, 3, 0]]], np.float32), 1),
    "differ_inner": (np.array([[[1., 0, 3], [2, 0, 1]], [[0.5, 1, 0], [1, 0, 0]]], np.float32), 0),
    "differ_outer": (np.array([[[1., 0, 3], [2, 0, 1]], [[0.5, 1, 0], [1, 0, 0]]], np.float32), 1),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_vmap_argwhere_falls_back_per_example_like_torch(name):
    x, inner = NESTED[name]
    out = []
    for lib in (torch, torchlike):
        try:
            out.append(lib.func.vmap(lib.func.vmap(lib.argwhere, in_dims=inner), in_dims=1)(lib.tensor(x)))
        except Exception as e:  # noqa: BLE001
            out.append(e)
    _same(*out)


def test_triple_vmap_argwhere_like_torch():
    x = np.random.default_rng(2).integers(0, 2, (2, 3, 2, 4)).astype(np.float32)  # counts differ: torch's error
    same = np.broadcast_to(x[:1, :1, :1], x.shape).copy()  # one count everywhere: stacked indices
    for arr in (x, same):
        out = []
        for lib in (torch, torchlike):
            try:
                out.append(lib.func.vmap(lib.func.vmap(lib.func.vmap(lib.argwhere)))(lib.tensor(arr)))
            except Exception as e:  # noqa: BLE001
                out.append(e)
        _same(*out)


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
