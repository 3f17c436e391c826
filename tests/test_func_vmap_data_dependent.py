"""vmap over ops whose output shape or arguments depend on data, against torch.func.vmap: argwhere runs per
example and stacks (torch's fallback, nested vmaps too), nonzero, unique, masked_select and boolean masks raise
torch's RuntimeError with torch's text, linspace takes batched tensor bounds, and
aten::max_pool2d_with_indices_backward batches."""
import numpy as np
import pytest

import torchlike
from conftest import raises_like_torch, same_as_torch, torch


def _vmapped(fn, in_dims=0):
    """``fn(lib, *tensors)`` under ``lib.func.vmap``, in the ``fn(module, *inputs)`` form of ``same_as_torch`` and
    ``raises_like_torch`` (each case says which it expects: a run where torch raises is never a silent pass)."""
    return lambda lib, *args: lib.func.vmap(lambda *a: fn(lib, *a), in_dims=in_dims)(*args)


def _argwhere_nested(levels, inner=0):
    def run(lib, t):
        f = lib.func.vmap(lib.argwhere, in_dims=inner)
        for _ in range(levels - 1):
            f = lib.func.vmap(f, in_dims=1 if levels == 2 else 0)
        return f(t)
    return run


SAME_COUNT = np.array([[1., 0, 2, 0], [0.5, 0, 1, 0]], np.float32)
OTHER_COUNT = np.array([[1., 0, 2, 0], [0.5, 1, 1, 0]], np.float32)


@pytest.mark.parametrize("x", [SAME_COUNT, SAME_COUNT.reshape(2, 2, 2)], ids=["same", "2d"])
def test_argwhere_runs_per_example_like_torch(x):
    same_as_torch(_vmapped(lambda L, t: L.argwhere(t)), x, grad=False)


def test_argwhere_with_counts_that_differ_raises_torchs_stack_error():
    raises_like_torch(_vmapped(lambda L, t: L.argwhere(t)), OTHER_COUNT, quiet=True)


@pytest.mark.parametrize("fn", [lambda L, t: L.nonzero(t), lambda L, t: t.nonzero()], ids=["nonzero", "method"])
def test_nonzero_raises_torchs_dynamic_shape_error(fn):
    assert isinstance(raises_like_torch(_vmapped(fn), SAME_COUNT), RuntimeError)


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
    assert isinstance(raises_like_torch(_vmapped(DYNAMIC_SHAPE[name]), SAME_COUNT), RuntimeError)  # type and text


def test_masked_select_with_an_unbatched_mask_runs_like_torch():
    same_as_torch(_vmapped(lambda L, t: L.masked_select(t, L.tensor([True, False, True, False]))), SAME_COUNT,
                  grad=False)


NESTED = {  # vmap(vmap(argwhere)): torch's fallback loops over both levels, innermost first; whether torch
    # stacks the per-example results or raises its stack error (counts differ) is stated, not found out
    "same_counts": (np.array([[[1., 0, 3], [2, 0, 1]], [[0, 1, 5], [1, 3, 0]]], np.float32), 0, False),
    "same_counts_in_dim_1": (np.array([[[1., 0, 3], [2, 0, 1]], [[0, 1, 5], [1, 3, 0]]], np.float32), 1, True),
    "differ_inner": (np.array([[[1., 0, 3], [2, 0, 1]], [[0.5, 1, 0], [1, 0, 0]]], np.float32), 0, True),
    "differ_outer": (np.array([[[1., 0, 3], [2, 0, 1]], [[0.5, 1, 0], [1, 0, 0]]], np.float32), 1, True),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_vmap_argwhere_falls_back_per_example_like_torch(name):
    x, inner, raises = NESTED[name]
    if raises:
        raises_like_torch(_argwhere_nested(2, inner), x, quiet=True)
    else:
        same_as_torch(_argwhere_nested(2, inner), x, grad=False, quiet=True)


def test_triple_vmap_argwhere_like_torch():
    x = np.random.default_rng(2).integers(0, 2, (2, 3, 2, 4)).astype(np.float32)  # counts differ: torch's error
    same = np.broadcast_to(x[:1, :1, :1], x.shape).copy()  # one count everywhere: stacked indices
    raises_like_torch(_argwhere_nested(3), x, quiet=True)
    same_as_torch(_argwhere_nested(3), same, grad=False, quiet=True)


@pytest.mark.parametrize("kw", [{}, {"dtype": "int64"}, {"steps": 1}, {"steps": 2}])
def test_linspace_with_batched_tensor_bounds(kw):
    steps = kw.get("steps", 5)

    def fn(L, s, e):
        dt = getattr(L, kw["dtype"]) if "dtype" in kw else None
        return L.linspace(s, e, steps, dtype=dt)
    same_as_torch(_vmapped(fn), np.array([0., -2.5, 1.], np.float32), np.array([3., 4., 1.], np.float32), grad=False)
    same_as_torch(_vmapped(fn, in_dims=(0, None)), np.array([0., -2.5, 1.], np.float32), np.array(3., np.float32),
                  grad=False)


def test_max_pool2d_with_indices_backward_batches_like_torch():
    x = np.random.default_rng(0).standard_normal((2, 1, 2, 5, 6)).astype(np.float32)

    def fn(L, t):
        out, idx = L.nn.functional.max_pool2d_with_indices(t, 3, 2, ceil_mode=True)
        return L.ops.aten.max_pool2d_with_indices_backward.default(L.ones_like(out), t, [3, 3], [2, 2], [0, 0],
                                                                   [1, 1], True, idx)
    same_as_torch(_vmapped(fn), x, grad=False)


def test_batch_norm_with_unbatched_running_stats_raises_torchs_error():
    x = np.random.default_rng(1).standard_normal((2, 4, 3)).astype(np.float32)
    e = raises_like_torch(_vmapped(lambda L, i: L.nn.functional.batch_norm(i, L.zeros(3), L.ones(3), training=True)), x)
    assert isinstance(e, RuntimeError)
    raises_like_torch(_vmapped(lambda L, i: L.nn.BatchNorm1d(3)(i)), x)
    same_as_torch(_vmapped(lambda L, i: L.nn.functional.batch_norm(i, L.zeros(3), L.ones(3), training=False)), x,
                  grad=False)


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
