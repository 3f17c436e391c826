"""Indexing, scatter/gather, masked ops and where, compared with torch on the same inputs."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st, HealthCheck

import torchlike
from conftest import assert_close_values, assert_same, raises_like_torch, same_as_torch, to_tl, torch_or_tl

warnings.filterwarnings("ignore", message=".*non-tuple sequence.*")
warnings.filterwarnings("ignore", message=".*uint8.*")

RNG = np.random.default_rng(0)


def _conv(v, mod):
    """Build the same argument for torch / torchlike: numpy arrays become tensors of that module."""
    if isinstance(v, np.ndarray):
        return mod.tensor(v)
    if isinstance(v, tuple):
        return tuple(_conv(e, mod) for e in v)
    if isinstance(v, list):
        return [_conv(e, mod) for e in v]
    return v


def both(f, *args, grad=False):
    """``same_as_torch`` where only the first input requires grad (with ``grad``)."""
    return same_as_torch(f, *args, grad=grad, grad_inputs={0})


def _torch_raises(f, *args):
    """Whether ``f(torch, *args)`` raises (for generated cases whose validity is not known in advance)."""
    try:
        f(torch, *[_conv(a, torch) for a in args])
    except Exception:  # noqa: BLE001
        return True
    return False


def arr(*shape, dtype=np.float32):
    n = int(np.prod(shape))
    return (np.arange(n) * 1.5 - 3).astype(dtype).reshape(shape)


A = arr(2, 3, 4)
MASK = RNG.random((2, 3)) > 0.4
IDX = np.array([0, 2, -1, 1])

GET_CASES = [
    1, -1, (0, 1), (1, -1, 2), slice(None), slice(1, None), slice(None, None, 2), (slice(None), slice(0, 3, 2)),
    (Ellipsis, 1), (None, 0), (0, None, Ellipsis, None), Ellipsis, (), (None,), (Ellipsis, None),
    (slice(5, 10),), (slice(-10, 1),), (1, slice(2, 1)), (slice(None), slice(None), slice(1, 3)),
    [0, 1], [[0, 1]], (IDX[[0, 2]],), (slice(None), IDX[:3]), (IDX[[0, 2]], IDX[1:3]), (0, slice(None), [0, 3]),
    (IDX[[0, 2]], slice(None), IDX[1:3]), (slice(None), [[0], [2]], [1, 3]), (None, [0, 1], None, [1, 2]),
    (Ellipsis, [0, 3]), (MASK,), (MASK[:, 0],), (slice(None), MASK[0]), (MASK, [0, 1, 0, 1][:1]),
    True, False, (True, [0, 1]), (0, False), [], (slice(None), []), np.array([1, 0]), [True, False],
    ([0, 1], Ellipsis, [2, 3]), (slice(None), None, [0, 2], slice(None)), (Ellipsis, Ellipsis),
]
GET_ERRORS = [
    5, (0, 5), (-3,), (slice(None), 3), (0, 0, 0, 0), ([0, 5],), (slice(None), [0, 7]),
    ([0, 1], [0, 5]), ([0, 1, 0], [0, 1]), (MASK[:1, :2],), 1.5, (slice(None, None, -1),),
    (slice(None, None, 0),), ("a",),
]


@pytest.mark.parametrize("idx", GET_CASES, ids=[repr(c)[:40] for c in GET_CASES])
def test_getitem_matches_torch(idx):
    both(lambda m, a: a[_conv(idx, m)], A, grad=True)


@pytest.mark.parametrize("idx", GET_ERRORS, ids=[repr(c)[:40] for c in GET_ERRORS])
def test_getitem_errors_match_torch(idx):
    raises_like_torch(lambda m, a: a[_conv(idx, m)], A)


@pytest.mark.parametrize("make", [
    lambda m: m.tensor([0, 1]), lambda m: m.tensor([0, 1], dtype=m.int32), lambda m: m.tensor(1),
    lambda m: m.tensor([True, False]), lambda m: m.tensor(True), lambda m: m.tensor([1, 0], dtype=m.uint8),
    lambda m: (m.tensor([[0], [1]]), m.tensor([1, 2, 0])),
    lambda m: (slice(m.tensor(0), m.tensor(2)), Ellipsis), lambda m: m.tensor(1, dtype=m.int16),
    lambda m: np.array([1, 0], np.uint8), lambda m: np.array([1, 0], np.int8),
    lambda m: [np.int64(1)], lambda m: m.tensor(1, dtype=m.uint8),
    lambda m: (slice(None), range(0, 3, 2)),
])
def test_getitem_tensor_indices(make):
    both(lambda m, a: a[make(m)], A, grad=True)


@pytest.mark.parametrize("make", [
    lambda m: m.tensor([0.]), lambda m: m.tensor([0, 1], dtype=m.int16), lambda m: m.tensor(1.),
    lambda m: range(1, 3),  # index 2 is out of bounds for dimension 0
])
def test_getitem_tensor_index_errors(make):
    raises_like_torch(lambda m, a: a[make(m)], A)



@pytest.mark.parametrize("shape,make", [
    ((0,), lambda m: m.tensor([], dtype=m.int64)), ((0, 3), lambda m: m.tensor([], dtype=m.int64)),
    ((2, 0), lambda m: (slice(None), m.tensor([], dtype=m.int64))), ((0,), lambda m: m.tensor([], dtype=m.bool)),
])
def test_empty_index_into_empty_tensor(shape, make):
    # torchmetrics ranks an empty selection with ``ranks[inverse]``, both empty
    both(lambda m, a: a[make(m)], np.zeros(shape, np.float32), grad=True)


@pytest.mark.parametrize("shape,make", [
    ((0,), lambda m: m.tensor([0])), ((2, 0), lambda m: (slice(None), m.tensor([0]))),
    ((0, 2), lambda m: (m.tensor([1]), m.tensor([0]))), ((3, 0), lambda m: (1, m.tensor([0]))),
])
def test_index_into_a_size_0_dimension_errors_like_torch(shape, make):
    raises_like_torch(lambda m, a: a[make(m)], np.zeros(shape, np.float32))

def test_basic_getitem_is_view_and_aliases():
    ta, oa = torch.tensor(A), torchlike.tensor(A)
    for a in (ta, oa):
        v = a[1:, ::2]
        assert v._base is a
        v.mul_(-1)
        a[0][1] = 100.
        a[None, 0, ..., 3] = a[1, :, 0]
        assert a[0, 1]._base is a and a[[0, 1]]._base is None
        assert a[torch.tensor(1) if a is ta else torchlike.tensor(1)]._base is a
        assert a[[0, 1]]._base is None and a[MASK if a is oa else torch.tensor(MASK)]._base is None
    assert_same(oa, ta)
    assert oa[:, 1:, ::2].stride() == ta[:, 1:, ::2].stride()
    assert oa[:, 1:, ::2].storage_offset() == ta[:, 1:, ::2].storage_offset()


def test_index_put_inplace_forms_and_augmented_assignment():
    res = []
    for m in (torch, torchlike):
        x = m.arange(6.).reshape(2, 3)
        x[[0, 1], [1, 2]] += 10
        x[0] += 1
        x[:, 1] *= 2
        x[x > 20] -= 100
        m.index_put_(x, (m.tensor([1]),), m.tensor(0.))
        x.index_put_((m.tensor([0, 0]), m.tensor([2, 2])), m.tensor(1.), accumulate=True)
        res.append(x)
    assert_same(res[1], res[0])


@pytest.mark.parametrize("v", [np.array([0, 3, 4]), np.array([[1, 0], [0, 2]]), np.array(3), np.array(0),
                               np.zeros((0, 2))])
def test_nonzero_static(v):
    for size in (0, 1, 3):
        both(lambda m, x: x.nonzero_static(size=size, fill_value=-5), v)
        both(lambda m, x: m.nonzero_static(x, size=size), v)


def test_0dim_getitem():
    s = np.array(3.5, dtype=np.float32)
    for idx in [(), None, Ellipsis, (None, None), True, False, (Ellipsis, None)]:
        both(lambda m, a: a[idx], s, grad=True)
    raises_like_torch(lambda m, a: a[0], s)  # invalid index of a 0-dim tensor


def _set(idx, value, dtype=np.float32):
    def f(m, a):
        a = a.clone()
        a[_conv(idx, m)] = _conv(value, m)
        return a
    return f


SET_CASES = [
    (0, 1.0), (0, np.ones(4, np.float32)), ((0, 1), np.arange(4.).astype(np.float32)), (slice(1, None), 2),
    ((slice(None), slice(None, None, 2)), np.ones((2, 1, 4), np.float32)), (Ellipsis, 0.5), ((None, 1), 3),
    (0, np.ones((1, 1, 3, 4), np.float32)),
    ([0, 1], 7.), ([1, 0], np.arange(24.).astype(np.float32).reshape(2, 3, 4)), (MASK, -1.),
    (MASK, np.arange(4.).astype(np.float32)), ((0, slice(None), [0, 2]), np.ones((3, 2), np.float32)),
    (([0, 1], slice(None), [1, 2]), np.array([[5.], [6.], [7.]], np.float32).T),
    ((Ellipsis, [1]), np.ones((1, 1, 3, 1), np.float32)),
    (0, np.arange(12).reshape(3, 4)), (True, 2.), (False, 2.), (0, True),
]
SET_ERRORS = [
    (0, np.ones((2, 3), np.float32)), (0, np.ones((2, 3, 4), np.float32)), ([0, 1], np.ones((2, 2, 3, 4), np.float32)),
    ([0, 1], np.ones(3, np.float32)), (5, 1.), ([0, 5], 1.),
]


@pytest.mark.parametrize("idx,value", SET_CASES, ids=[f"{c[0]!r}"[:30] for c in SET_CASES])
def test_setitem_matches_torch(idx, value):
    both(_set(idx, value), A)


@pytest.mark.parametrize("idx,value", SET_ERRORS, ids=[f"{c[0]!r}"[:30] for c in SET_ERRORS])
def test_setitem_errors_match_torch(idx, value):
    raises_like_torch(_set(idx, value), A)


def test_setitem_int_tensor_casts_and_scalar_tensor_value():
    both(_set((0, [1, 2]), 2.7), arr(2, 4, dtype=np.int64))
    # a float tensor value into an int64 tensor through an index: torch requires matching dtypes
    raises_like_torch(lambda m, a: _set([0], m.tensor(9.))(m, a), arr(2, 4, dtype=np.int64))
    both(lambda m, a: _set((slice(None), 1), m.tensor([1, 2]))(m, a), arr(2, 4))
    both(_set(np.array([True, False]), 3), arr(2, dtype=np.int32))


def test_setitem_on_nonleaf_gradients():
    for idx, val in [((0, slice(1, 3)), "v"), (([0, 1], [1, 2]), "v"), (MASK, "s"), ((Ellipsis, 0), "s")]:
        grads = []
        for m in (torch, torchlike):
            x = m.tensor(arr(2, 3)).requires_grad_()
            v = m.tensor([10., 20.]).requires_grad_()
            y = x * 2
            y[_conv(idx, m)] = v if val == "v" else 5.
            (y * m.tensor(arr(2, 3))).sum().backward()
            grads.append((x.grad, v.grad))
        assert_same(grads[1][0], grads[0][0])
        if val == "v":
            assert_same(grads[1][1], grads[0][1])


def test_duplicate_writers_all_get_gradient_like_torch():
    i = np.array([0, 0, 2])
    w = np.array([1., 2., 3.], np.float32)
    for f in [lambda m, v, x, i: _set(i, v)(m, x * 1), lambda m, v, x, i: x.scatter(0, i, v),
              lambda m, v, x, i: x.index_copy(0, i, v), lambda m, v, x, i: x.put(i, v),
              lambda m, v, x, i: m.index_put(x, (i,), v)]:
        both(lambda m, v, x, i: f(m, v, x, i) * m.tensor(w), w, np.zeros(3, np.float32), i, grad=True)
        both(lambda m, x, v, i: f(m, v, x, i) * m.tensor(w), np.zeros(3, np.float32), w, i, grad=True)


def test_setitem_leaf_requires_grad_errors():
    for m in (torch, torchlike):
        x = m.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x[0] = 1.
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x[[0, 1]] = 1.


# --- index_put ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", range(8))
def test_index_put(case):
    idx = [([np.array([0, 1, 0])], np.float32(1.5), True), ([np.array([0, 1, 0])], np.ones((3, 3, 4), np.float32), False),
           ([np.array([1]), np.array([2])], np.arange(4.).astype(np.float32), True), ([MASK], np.float32(3), False),
           ([np.array(1)], np.ones(4, np.float32), False), ([np.array([0, 1])], np.ones(3, np.float32), False),
           ([np.array([0, 1])], np.ones((2, 4), np.int64), False), ([np.array([0, 4])], np.float32(1), False)][case]
    ind, val, acc = idx
    if case >= 5:  # value not broadcastable / int64 value into float32 / index out of range: torch raises
        raises_like_torch(lambda m, a: m.index_put(a, tuple(_conv(ind, m)), m.tensor(val), accumulate=acc), A)
        raises_like_torch(lambda m, a: a.clone().index_put_(tuple(_conv(ind, m)), m.tensor(val), accumulate=acc), A)
        return
    both(lambda m, a: m.index_put(a, tuple(_conv(ind, m)), m.tensor(val), accumulate=acc), A, grad=True)
    both(lambda m, a: a.clone().index_put_(tuple(_conv(ind, m)), m.tensor(val), accumulate=acc), A)


# --- gather / scatter -----------------------------------------------------------------------------
G_IDX = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])


@pytest.mark.parametrize("dim,index", [(1, G_IDX), (0, np.array([[1, 0, 1]])), (1, G_IDX.astype(np.int32)),
                                       (0, np.array([[1, 0, 0], [0, 0, 0], [1, 1, 1]]))])
def test_gather(dim, index):
    both(lambda m, x, i: m.gather(x, dim, i), arr(2, 3), index, grad=True)
    both(lambda m, x, i: x.gather(dim, i), arr(2, 3), index)


@pytest.mark.parametrize("dim,index", [(-1, np.array([[3], [0]])), (1, np.array([[0, 3]])), (1, G_IDX[:, :1, None]),
                                       (1, G_IDX.astype(np.float32)), (1, np.array([[-1]]))])
def test_gather_errors(dim, index):
    raises_like_torch(lambda m, x, i: m.gather(x, dim, i), arr(2, 3), index)
    raises_like_torch(lambda m, x, i: x.gather(dim, i), arr(2, 3), index)


def test_gather_0dim_and_empty():
    both(lambda m, x, i: x.gather(0, i), np.array(2., np.float32), np.array(0))
    both(lambda m, x, i: x.gather(0, i), arr(3), np.zeros(0, np.int64))


S_IDX = np.array([[0, 1, 0], [2, 0, 0]])
S_SRC = np.array([[1., 2., 3.], [4., 0., 6.]], np.float32)


@pytest.mark.parametrize("kind", ["src", "value", "add", "multiply", "scatter_add", "int32", "bad_dtype",
                                  "oob", "too_big", "bad_reduce"])
def test_scatter(kind):
    x = arr(3, 3)
    if kind == "src":
        both(lambda m, x, i, s: m.scatter(x, 0, i, s), x, S_IDX[:, :2], S_SRC, grad=True)
    elif kind == "value":
        both(lambda m, x, i: x.scatter(1, i, 2.5), x, S_IDX, grad=True)
        both(lambda m, x, i: x.clone().scatter_(1, i, value=-1), x, S_IDX)
    elif kind in ("add", "multiply"):
        both(lambda m, x, i, s: x.clone().scatter_(0, i, s, reduce=kind), x, S_IDX, S_SRC)
    elif kind == "scatter_add":
        both(lambda m, x, i, s: m.scatter_add(x, 0, i, s), x, S_IDX, S_SRC, grad=True)
        both(lambda m, x, i, s: x.clone().scatter_add_(1, i, s), x, S_IDX, S_SRC)
    elif kind == "int32":
        both(lambda m, x, i, s: x.scatter(0, i, s), x, S_IDX.astype(np.int32), S_SRC)
    elif kind == "bad_dtype":
        raises_like_torch(lambda m, x, i, s: x.scatter(0, i, s), x, S_IDX, S_SRC.astype(np.int64))
        raises_like_torch(lambda m, x, i, s: x.scatter(0, i, s), x, S_IDX.astype(np.float32), S_SRC)
    elif kind == "oob":
        raises_like_torch(lambda m, x, i, s: x.scatter(0, i, s), x, S_IDX + 1, S_SRC)
    elif kind == "too_big":
        raises_like_torch(lambda m, x, i, s: x.scatter(0, i, s), x, S_IDX, S_SRC[:, :2])
    else:
        raises_like_torch(lambda m, x, i, s: x.scatter(0, i, s, reduce="mean"), x, S_IDX, S_SRC)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_values_and_grads(reduce, include_self):
    x = np.array([[1., 0., 3.], [2., 2., 5.], [0., 4., 1.]], np.float32)
    src = np.array([[5., 0., 3., 0.], [2., 2., 0., 7.]], np.float32)
    idx = np.array([[0, 1, 0, 0], [2, 1, 1, 0]])
    # gradient with respect to self, then src
    both(lambda m, x, i, s: m.scatter_reduce(x, 1, i, s, reduce, include_self=include_self), x, idx, src,
         grad=True)
    both(lambda m, s, x, i: m.scatter_reduce(x, 1, i, s, reduce, include_self=include_self), src, x, idx,
         grad=True)
    xi = np.array([3, -4, 7], np.int64)
    both(lambda m, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), xi,
         np.array([0, 0, 2, 0]), np.array([-3, 4, 5, 8], np.int64))


def test_scatter_reduce_bad_reduce():
    raises_like_torch(lambda m, x, i, s: x.scatter_reduce(0, i, s, "foo"), arr(3), np.array([0]), arr(1))


# --- index_* -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim,index", [(0, np.array([1, 0, 1])), (1, np.array([2])), (1, np.array(0)),
                                       (-1, np.array([0, 2], np.int32))])
def test_index_select(dim, index):
    both(lambda m, x, i: m.index_select(x, dim, i), arr(2, 3), index, grad=True)


@pytest.mark.parametrize("dim,index", [(0, np.array([3])), (1, np.array([3])), (0, np.array([[0]])),
                                       (0, np.array([0.]))])
def test_index_select_errors(dim, index):
    raises_like_torch(lambda m, x, i: m.index_select(x, dim, i), arr(2, 3), index)


def test_index_add_copy_fill():
    x, src = arr(3, 2), arr(2, 2) + 10
    i = np.array([2, 2])
    both(lambda m, x, i, s: m.index_add(x, 0, i, s), x, i, src, grad=True)
    both(lambda m, s, x, i: m.index_add(x, 0, i, s, alpha=-2), src, x, i, grad=True)
    both(lambda m, x, i, s: x.clone().index_add_(1, i[:1] - 1, s[:, :1] * 0 + 1), x, i, arr(3, 1))
    raises_like_torch(lambda m, x, i, s: m.index_add(x, 0, i, s), x, np.array([0, 3]), src)
    raises_like_torch(lambda m, x, i, s: m.index_add(x, 0, i, s), x[:, 0], np.array([0, 3]), src[:, 0])
    raises_like_torch(lambda m, x, i, s: m.index_add(x, 0, i, s), x, i, arr(3, 2))
    raises_like_torch(lambda m, x, i, s: m.index_add(x, 0, i, s), x, i, arr(2, 3))
    raises_like_torch(lambda m, x, i, s: m.index_add(x, 0, i, s), x, i, src.astype(np.int64))
    both(lambda m, x, i, s: x.index_add(0, i, s, alpha=2), arr(3, 2, dtype=np.int64), i,
         arr(2, 2, dtype=np.int64))
    both(lambda m, x, i, s: m.index_copy(x, 0, i, s), x, np.array([2, 0]), src, grad=True)
    both(lambda m, s, x, i: m.index_copy(x, 0, i, s), src, x, np.array([2, 0]), grad=True)
    raises_like_torch(lambda m, x, i, s: x.index_copy(0, i, s), x, np.array([-1, 0]), src)
    both(lambda m, x, i: m.index_fill(x, 1, i, -2.), x, np.array([1, -1]), grad=True)
    both(lambda m, x, i: x.clone().index_fill_(0, i, m.tensor(7.)), x, np.array([1]))
    both(lambda m, v, x, i: x.index_fill(1, i, v) * 2, np.array(3., np.float32), x, np.array([1, 1, 0]), grad=True)
    raises_like_torch(lambda m, x, i: x.index_fill(0, i, m.tensor([7.])), x, np.array([1]))
    raises_like_torch(lambda m, x, i: x.index_fill(0, i, 1), x, np.array([1], np.int32))
    raises_like_torch(lambda m, x, i: x.index_fill(0, i, 1), x, np.array([5]))
    raises_like_torch(lambda m, x, i, s: x.index_reduce(0, i, s, "amax"), x, np.array([0, 3]), src)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin", "sum"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    x = np.array([[1., 2.], [0., 3.], [4., -1.]], np.float32)
    src = np.array([[2., 0.], [3., 5.], [-1., 2.]], np.float32)
    i = np.array([0, 2, 0])
    if reduce == "sum":  # index_reduce has no "sum" (that is index_add): torch raises
        raises_like_torch(lambda m, x, i, s: m.index_reduce(x, 0, i, s, reduce, include_self=include_self), x, i, src)
        raises_like_torch(lambda m, s, x, i: x.index_reduce(0, i, s, reduce, include_self=include_self), src, x, i)
        raises_like_torch(lambda m, x, i, s: x.clone().index_reduce_(1, i[:2] - i[:2], s[:, :2], reduce), x, i, src)
        return
    both(lambda m, x, i, s: m.index_reduce(x, 0, i, s, reduce, include_self=include_self), x, i, src, grad=True)
    both(lambda m, s, x, i: x.index_reduce(0, i, s, reduce, include_self=include_self), src, x, i, grad=True)
    both(lambda m, x, i, s: x.clone().index_reduce_(1, i[:2] - i[:2], s[:, :2], reduce), x, i, src)


_INDEX_REDUCE_WARNINGS = """
import warnings
import {lib} as torch
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        torch.ones(3).index_reduce(0, torch.tensor([0]), torch.ones(1), "sum")
    except RuntimeError:
        pass
    torch.ones(3).index_reduce_(0, torch.tensor([0]), torch.ones(1), "prod")
    torch.ones(3).index_reduce(0, torch.tensor([0]), torch.ones(1), "amax")
    torch.index_reduce(torch.ones(3), 0, torch.tensor([1]), torch.ones(1), "mean")
print([(x.category.__name__, str(x.message)) for x in w])
"""


def test_index_reduce_warns_beta_once_per_process_like_torch():
    # torch's kernel gives TORCH_WARN_ONCE "index_reduce() is in beta ..." after the reduce-name check: one
    # warning per process, whatever the filters say (each library in a fresh process)
    import os
    import subprocess
    import sys
    pytest.importorskip("torch")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = [subprocess.run([sys.executable, "-c", _INDEX_REDUCE_WARNINGS.format(lib=lib)], capture_output=True,
                          text=True, timeout=300, check=True, cwd=root).stdout for lib in ("torch", "torchlike")]
    assert out[1] == out[0] and "index_reduce() is in beta" in out[0] and out[0].count("UserWarning") == 1


# --- masked ops ------------------------------------------------------------------------------------
def test_masked_fill():
    x = arr(2, 3)
    m3 = np.array([True, False, True])
    both(lambda m, x, k: x.masked_fill(k, 9.), x, MASK, grad=True)
    both(lambda m, x, k: m.masked_fill(x, k, -1), x, m3, grad=True)
    both(lambda m, x, k: x.masked_fill(k, 2.5), arr(3, dtype=np.int64), m3)
    both(lambda m, x, k: x.masked_fill(k, m.tensor(2.5, dtype=m.float64)), arr(3), m3)
    raises_like_torch(lambda m, x, k: x.masked_fill(k, m.tensor([1.])), arr(3), m3)
    raises_like_torch(lambda m, x, k: x.masked_fill(k, 1.), arr(3), m3.astype(np.int64))
    both(lambda m, x, k: x.masked_fill(k, 1.), arr(3), m3[None])
    raises_like_torch(lambda m, x, k: x.clone().masked_fill_(k, 1.), arr(3), m3[None])
    both(lambda m, x, k: x.clone().masked_fill_(k, 1.), arr(2, 3), m3)
    # gradient with respect to a 0-dim value tensor
    grads = []
    for mod in (torch, torchlike):
        v = mod.tensor(2.0, requires_grad=True)
        (mod.tensor(x).masked_fill(mod.tensor(MASK), v) * 3).sum().backward()
        grads.append(v.grad)
    assert_same(grads[1], grads[0])


def test_masked_select_and_scatter():
    x = arr(2, 3)
    both(lambda m, x, k: x.masked_select(k), x, MASK, grad=True)
    both(lambda m, x, k: m.masked_select(x, k), x, np.array([True, False, True]), grad=True)
    both(lambda m, x, k: m.masked_select(x, k), x[0], MASK, grad=True)
    raises_like_torch(lambda m, x, k: x.masked_select(k), x, MASK.astype(np.int64))
    src = arr(6) + 100
    both(lambda m, x, k, s: x.masked_scatter(k, s), x, MASK, src, grad=True)
    both(lambda m, s, x, k: x.masked_scatter(k, s), src, x, MASK, grad=True)
    both(lambda m, x, k, s: x.clone().masked_scatter_(k, s), x, np.array([True, False, True]), src)
    both(lambda m, x, k, s: x.masked_scatter(k, s), x, np.zeros((2, 3), bool), src)
    raises_like_torch(lambda m, x, k, s: x.masked_scatter(k, s), x, np.ones((2, 3), bool), src[:2])
    raises_like_torch(lambda m, x, k, s: x.masked_scatter(k, s), x, MASK, src.astype(np.int64))


# --- take / put / take_along_dim ------------------------------------------------------------------------
def test_take_put():
    x = arr(2, 3)
    both(lambda m, x, i: m.take(x, i), x, np.array([[0, -1], [5, 2]]), grad=True)
    raises_like_torch(lambda m, x, i: x.take(i), x, np.array([6]))
    raises_like_torch(lambda m, x, i: x.take(i), x, np.array([0], np.int32))
    both(lambda m, x, i, s: x.put(i, s), x, np.array([0, -1, 0]), np.array([1., 2., 3.], np.float32), grad=True)
    both(lambda m, x, i, s: x.clone().put_(i, s, accumulate=True), x, np.array([0, -1, 0]),
         np.array([1., 2., 3.], np.float32))
    both(lambda m, x, i, s: x.put(i, s, True), x, np.array([[1, 1]]), np.array([1., 2.], np.float32),
         grad=True)
    raises_like_torch(lambda m, x, i, s: x.put(i, s), x, np.array([6]), np.array([1.], np.float32))
    raises_like_torch(lambda m, x, i, s: x.put(i, s), x, np.array([1, 2]), np.array([1.], np.float32))
    raises_like_torch(lambda m, x, i, s: x.put(i, s), x, np.array([1]), np.array([1]))


def test_take_along_dim():
    x = arr(2, 3)
    both(lambda m, x, i: m.take_along_dim(x, i, 1), x, np.array([[0, 2], [1, 1]]), grad=True)
    both(lambda m, x, i: m.take_along_dim(x, i, 0), x, np.array([[1, 0, 1]]), grad=True)
    both(lambda m, x, i: m.take_along_dim(x, i, 1), x, np.array([[2]]), grad=True)
    both(lambda m, x, i: m.take_along_dim(x, i), x, np.array([5, 0]), grad=True)
    raises_like_torch(lambda m, x, i: x.take_along_dim(i, 1), x, np.array([[0]], np.int32))
    raises_like_torch(lambda m, x, i: x.take_along_dim(i, 1), x, np.array([0]))


# --- nonzero / argwhere / where ----------------------------------------------------------------------------
@pytest.mark.parametrize("v", [np.array([0, 3, 0, 4]), np.array([[0., 1.], [2., 0.]]), np.array(3.), np.array(0),
                               np.zeros((2, 0)), np.array([[True, False, True]])])
def test_nonzero_argwhere(v):
    both(lambda m, x: m.nonzero(x), v)
    both(lambda m, x: x.nonzero(as_tuple=True), v)
    both(lambda m, x: m.argwhere(x), v)
    both(lambda m, x: m.where(x), v)


@pytest.mark.parametrize("make", [
    lambda m, c, x, y: m.where(c, x, y), lambda m, c, x, y: m.where(c, x, 2.5), lambda m, c, x, y: m.where(c, 1, 2.),
    lambda m, c, x, y: m.where(c, 1, 2), lambda m, c, x, y: m.where(c, True, False),
    lambda m, c, x, y: m.where(c, x.to(m.int32), 2), lambda m, c, x, y: m.where(c, x.to(m.int64), y.double()),
    lambda m, c, x, y: x.where(c, y),
    lambda m, c, x, y: m.where(c.to(m.uint8), x, y), lambda m, c, x, y: m.where(c[0], x, y[:1]),
    lambda m, c, x, y: m.where(c, x, y[:2]),
])
def test_where(make):
    c = np.array([[True, False, True], [False, False, True]])
    both(lambda m, x, c, y: make(m, c, x, y), arr(2, 3), c, arr(2, 3) * -1, grad=True)
    both(lambda m, y, c, x: make(m, c, x, y), arr(2, 3) * -1, c, arr(2, 3), grad=True)


def test_where_int64_condition_errors():
    c = np.array([[True, False, True], [False, False, True]])
    raises_like_torch(lambda m, x, c, y: m.where(c.to(m.int64), x, y), arr(2, 3), c, arr(2, 3) * -1)
    raises_like_torch(lambda m, y, c, x: m.where(c.to(m.int64), x, y), arr(2, 3) * -1, c, arr(2, 3))


# --- *_scatter ------------------------------------------------------------------------------------------
def test_view_scatters():
    x = arr(3, 4)
    both(lambda m, x, s: m.diagonal_scatter(x, s), x, arr(3) + 10, grad=True)
    both(lambda m, s, x: m.diagonal_scatter(x, s, 1), arr(3) + 10, x, grad=True)
    both(lambda m, x, s: m.diagonal_scatter(x, s, -1, 1, 0), x, arr(3) + 10, grad=True)
    raises_like_torch(lambda m, x, s: m.diagonal_scatter(x, s), x, arr(4))
    both(lambda m, x, s: m.select_scatter(x, s, 1, -1), x, arr(3) + 10, grad=True)
    both(lambda m, s, x: x.select_scatter(s, 0, 2), arr(4) + 10, x, grad=True)
    raises_like_torch(lambda m, x, s: m.select_scatter(x, s, 0, 3), x, arr(4))
    both(lambda m, x, s: m.slice_scatter(x, s, 1, 0, 4, 2), x, arr(3, 2) + 10, grad=True)
    both(lambda m, s, x: m.slice_scatter(x, s, 0, 1), arr(2, 4) + 10, x, grad=True)
    both(lambda m, x, s: m.slice_scatter(x, s, end=2), x, arr(2, 4, dtype=np.int64))
    raises_like_torch(lambda m, x, s: m.slice_scatter(x, s), x, arr(2, 4))


# --- gradients through chains ------------------------------------------------------------------------------
def test_gradient_chain_getitem_gather_scatter():
    grads = []
    for m in (torch, torchlike):
        x = m.tensor(arr(3, 4)).requires_grad_()
        y = x[[0, 2, 0]] * 2                              # duplicate rows accumulate
        z = y.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]]))
        w = m.zeros(3, 4).scatter(1, m.tensor([[1, 0], [2, 3], [0, 1]]), z)
        v = w[x.detach() > 0].sum() + w.index_select(0, m.tensor([1, 1])).pow(2).sum()
        v.backward()
        grads.append(x.grad)
    assert_same(grads[1], grads[0])


# --- hypothesis: random basic + advanced index expressions ---------------------------------------------------
@st.composite
def index_exprs(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))

    def item(d):
        n = shape[d]
        k = draw(st.sampled_from(["int", "slice", "list", "mask", "full"]))
        if k == "int":
            return draw(st.integers(-n, n - 1))
        if k == "slice":
            a = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            b = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            return slice(a, b, draw(st.one_of(st.none(), st.integers(1, 3))))
        if k == "list":
            ln = draw(st.integers(1, 3))
            return np.array(draw(st.lists(st.integers(-n, n - 1), min_size=ln, max_size=ln)))
        if k == "mask":
            return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        return slice(None)

    p = draw(st.integers(0, ndim))
    items = [item(d) for d in range(p)]
    if draw(st.booleans()):
        q = draw(st.integers(p, ndim))
        items += [Ellipsis] + [item(d) for d in range(q, ndim)]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return shape, tuple(items)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index_exprs(), st.booleans())
def test_hypothesis_index_expressions(case, do_set):
    shape, idx = case
    x = arr(*shape)

    def get(m, a):
        return a[_conv(idx, m)]

    # generated expressions may be invalid (index tensors that do not broadcast): then torch's error is the
    # expected outcome, decided by torch for each example
    if _torch_raises(get, x):
        raises_like_torch(get, x)
        return
    res = both(get, x, grad=True)
    if not do_set:
        return
    out_shape = tuple(res.shape)
    val = (np.arange(int(np.prod(out_shape))).reshape(out_shape) + 100).astype(np.float32)
    f = _set(idx, val)  # a 0-d result makes val a numpy scalar, which torch rejects for some index forms
    (raises_like_torch if _torch_raises(f, x) else both)(f, x)
    both(_set(idx, -7.0), x)
    f = _set(idx, np.float32(1))  # a numpy scalar value: torch rejects it for some index forms
    (raises_like_torch if _torch_raises(f, x) else both)(f, x)


# (was test_core_fixes.py) --- gather / index_select / take_along_dim ---------------------------------------------------
@pytest.mark.parametrize("index", [torch.tensor([], dtype=torch.uint8), torch.tensor([[], []], dtype=torch.uint8),
                                   torch.zeros(0, 3, dtype=torch.float32)])
def test_gather_empty_index_any_dtype(index):
    x = torch.randn(5, requires_grad=True)
    xt = to_tl(x).requires_grad_()
    r, q = torch.gather(x, 0, index), torchlike.gather(xt, 0, to_tl(index))
    assert tuple(r.shape) == tuple(q.shape) and str(r.dtype) == str(q.dtype)


def test_gather_int32_index_and_grad():
    x = torch.randn(4, 3, requires_grad=True)
    i = torch.tensor([[0, 1, 2], [3, 0, 1]], dtype=torch.int32)
    xt = to_tl(x).requires_grad_()
    r, q = torch.gather(x, 0, i), torchlike.gather(xt, 0, to_tl(i))
    assert_close_values(q, r)
    r.sum().backward()
    q.sum().backward()
    assert_close_values(xt.grad, x.grad)


def test_gather_nonempty_bad_dtype_and_out_checks():
    x, i = torch.randn(5), torch.tensor([1], dtype=torch.uint8)
    raises_like_torch(torch_or_tl(lambda: torch.gather(x, 0, i),
                                  lambda: torchlike.gather(to_tl(x), 0, to_tl(i))))
    src, idx = torch.tensor([[1., 2], [3, 4]]), torch.tensor([[0, 0], [1, 0]])
    raises_like_torch(torch_or_tl(lambda: torch.gather(src, 1, idx, out=torch.empty(2, 2, dtype=torch.float64)),
                                  lambda: torchlike.gather(to_tl(src), 1, to_tl(idx), out=torchlike.empty(2, 2, dtype=torchlike.float64))))
    s = torch.rand(6)
    st = to_tl(s)
    raises_like_torch(torch_or_tl(lambda: torch.gather(s, 0, torch.tensor([2, 1, 0]), out=s),
                                  lambda: torchlike.gather(st, 0, torchlike.tensor([2, 1, 0]), out=st)))
    out = torchlike.empty(2, 2)
    torchlike.gather(to_tl(src), 1, to_tl(idx), out=out)
    assert_close_values(out, torch.gather(src, 1, idx))


@pytest.mark.parametrize("index", [torch.tensor([0]), torch.tensor(0)])
def test_index_select_scalar_input(index):
    x = torch.tensor(3.0, requires_grad=True)
    xt = to_tl(x).requires_grad_()
    r, q = torch.index_select(x, 0, index), torchlike.index_select(xt, 0, to_tl(index))
    assert tuple(r.shape) == tuple(q.shape)
    assert_close_values(q, r)
    r.backward()
    q.backward()
    assert_close_values(xt.grad, x.grad)


def test_index_select_scalar_input_errors():
    x = torch.tensor(3.0)
    for i in (torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), torch.tensor([1])):
        raises_like_torch(torch_or_tl(lambda: torch.index_select(x, 0, i),
                                      lambda: torchlike.index_select(to_tl(x), 0, to_tl(i))))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_take_along_dim_wraps_indices(dim):
    x = torch.randn(3, 5, requires_grad=True)
    i = torch.randint(-12, 12, (3, 5) if dim else (4, 5))
    xt = to_tl(x).requires_grad_()
    r, q = torch.take_along_dim(x, i, dim), torchlike.take_along_dim(xt, to_tl(i), dim)
    assert_close_values(q, r)
    g = torch.randn(r.shape)
    r.backward(g)
    q.backward(to_tl(g))
    assert_close_values(xt.grad, x.grad)


# --- put(accumulate=True) of bools ----------------------------------------------------------------
@pytest.mark.parametrize("accumulate", [False, True])
def test_put_bool_matches_torch(accumulate):
    x = torch.tensor([[True, False, False], [False, False, True]])
    idx = torch.tensor([1, 1, 2, -1, 4])
    src = torch.tensor([True, True, False, False, True])
    assert_same(torchlike.put(to_tl(x), to_tl(idx), to_tl(src), accumulate=accumulate),
                torch.put(x, idx, src, accumulate=accumulate), rtol=None, atol=None)


def test_unsafe_masked_index_and_put_accumulate():
    x = torch.arange(25.).reshape(5, 5)
    m = torch.tensor([[True, False], [True, True]])
    idx = [torch.tensor([[0], [9]]), torch.tensor([[1, -7]])]  # out of range only where clamped
    lidx = [to_tl(i) for i in idx]
    assert_same(torchlike._unsafe_masked_index(to_tl(x), to_tl(m), lidx, -1.5),
                torch._unsafe_masked_index(x, m, idx, -1.5),
                rtol=None, atol=None)
    xi = x.long()
    assert_same(torchlike._unsafe_masked_index(to_tl(xi), to_tl(m), lidx, 2), torch._unsafe_masked_index(xi, m, idx, 2),
                rtol=None, atol=None)
    v = torch.arange(1., 5.).reshape(2, 2)
    assert_same(torchlike._unsafe_masked_index_put_accumulate(to_tl(x), to_tl(m), lidx, to_tl(v)),
                torch._unsafe_masked_index_put_accumulate(x, m, idx, v), rtol=None, atol=None)
    for bad in (torch.tensor([[0.]]), torch.tensor([[True]])):
        raises_like_torch(torch_or_tl(lambda: torch._unsafe_masked_index(x, m, [bad], 1.),
                                      lambda: torchlike._unsafe_masked_index(to_tl(x), to_tl(m), [to_tl(bad)], 1.)))


# index_put_ writes a one-element value through a lone bool/uint8 mask with masked_fill_: uint8 masks are refused
# there (torchlike wrote them with a deprecation warning), and the value is cast whatever its dtype
@pytest.mark.parametrize("case", ["scalar", "0d", "1elem", "3vals", "2d", "tuple", "ellipsis", "bool_f64", "bool_slice",
                                  "bool_3vals_f64"])
def test_setitem_through_a_lone_mask_is_torchs_masked_fill_path(case):
    def run(m):
        u8 = m.tensor([1, 0, 1, 0, 1, 0], dtype=m.uint8)
        b = u8.bool()
        x = m.arange(6.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            {"scalar": lambda: x.__setitem__(u8, 0), "0d": lambda: x.__setitem__(u8, m.tensor(5.0)),
             "1elem": lambda: x.__setitem__(u8, m.tensor([5.0])), "3vals": lambda: x.__setitem__(u8, m.tensor([5.0, 6, 7])),
             "2d": lambda: x.view(2, 3).__setitem__(u8.view(2, 3), 1.0), "tuple": lambda: x.__setitem__((u8,), 1.0),
             "ellipsis": lambda: x.__setitem__((Ellipsis, u8), 1.0),
             "bool_f64": lambda: x.__setitem__(b, m.tensor([5.0], dtype=m.float64)),
             "bool_slice": lambda: x.view(2, 3).__setitem__((slice(None), b[:3]), m.tensor([7])),
             "bool_3vals_f64": lambda: x.__setitem__(b, m.tensor([5.0, 6, 7], dtype=m.float64))}[case]()
        return x
    if case in ("3vals", "bool_f64", "bool_slice"):
        same_as_torch(run, grad=False)
    else:
        raises_like_torch(run, match="masked_fill_ only supports boolean masks|Index put requires the source and")


@pytest.mark.parametrize("make", [lambda m: m.arange(6).reshape(2, 3)[[[0, 1], [1, 0]]],
                                  lambda m: m.arange(6)[m.tensor([1, 0, 1, 0, 1, 0], dtype=m.uint8)]],
                         ids=["non_tuple_sequence", "uint8_index"])
def test_indexing_deprecation_warnings_name_the_users_line(make):
    got = {}
    for m in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            make(m)
        # (torch appends where in its C++ the warning was raised)
        got[m.__name__] = [(x.category, x.filename, str(x.message).split(" (Triggered internally")[0]) for x in w]
    assert got["torch"] and got["torch"] == got["torchlike"]
    assert got["torch"][0][1] == __file__


# uint8 masks elsewhere: index_put(_) hands a one-element value under a lone mask to masked_fill_ (which refuses a
# uint8 mask, with no uint8 warning, and casts the value, so no dtype-mismatch error); other index_put calls warn
# about uint8 each time; masked_scatter warns, then refuses it naming the dtype as "Byte"
U8_CALLS = {
    "index_put_": lambda m, x, u: x.index_put_((u,), m.tensor(5.)),
    "index_put": lambda m, x, u: x.index_put((u,), m.tensor([5.])),
    "torch.index_put_": lambda m, x, u: m.index_put_(x, (u,), m.tensor(5.)),
    "index_put_2vals": lambda m, x, u: x.index_put_((u,), m.tensor([5., 6.])),
    "index_put_accumulate": lambda m, x, u: x.index_put_((u,), m.tensor(5.), accumulate=True),
    "index_put_bad_shape": lambda m, x, u: x.index_put_((u[:2],), m.tensor(5.)),
    "index_put_bool_int_value": lambda m, x, u: x.index_put_((u.bool(),), m.tensor(5)),
    "index_put_bool_f64_value": lambda m, x, u: x.index_put((u.bool(),), m.tensor([5.], dtype=m.float64)),
    "index_put_bool_complex_value": lambda m, x, u: x.index_put_((u.bool(),), m.tensor(5. + 1j)),
    "index_put_bool_float_into_int": lambda m, x, u: m.arange(3).index_put_((u.bool(),), m.tensor(2.7)),
    "setitem": lambda m, x, u: x.__setitem__(u, 5.),
    "setitem_bad_shape": lambda m, x, u: x.__setitem__(u[:2], 5.),
    "setitem_2vals": lambda m, x, u: x.__setitem__(u, m.tensor([5., 6.])),
    "masked_scatter": lambda m, x, u: x.masked_scatter(u, m.ones(3)),
    "masked_scatter_": lambda m, x, u: x.masked_scatter_(u, m.ones(3)),
    "masked_scatter_int8": lambda m, x, u: m.masked_scatter(x, u.to(m.int8), m.ones(3)),
    "masked_scatter_half": lambda m, x, u: x.masked_scatter(u.half(), m.ones(3)),
}


@pytest.mark.parametrize("call", list(U8_CALLS))
def test_uint8_masks_outcome_and_warnings_match_torch(call):
    def run(m):
        x, u = m.arange(3.0), m.tensor([1, 0, 1], dtype=m.uint8)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = U8_CALLS[call](m, x, u)
                out = (str(r.dtype), r.tolist()) if r is not None else None
            except Exception as e:  # (the outcome compared is the exception's type and text)
                out = (type(e).__name__, str(e))
        return out, x.tolist(), [(c.category.__name__, str(c.message)) for c in w]
    assert run(torchlike) == run(torch)
