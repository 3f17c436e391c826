"""Property-based: random broadcasting binary expressions and their gradients equal torch's."""
import numpy as np
import torch
from hypothesis import given, settings, strategies as st

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch

OPS = ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "pow"]
DTYPES = ["float32", "float64", "int64", "bool"]


@st.composite
def broadcast_pair(draw):
    nd = draw(st.integers(0, 3))
    shape = [draw(st.integers(1, 3)) for _ in range(nd)]
    a = [s if draw(st.booleans()) else 1 for s in shape]
    b = [s if draw(st.booleans()) else 1 for s in shape][draw(st.integers(0, nd)):]
    return tuple(a), tuple(b)


def _arr(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "int64":
        return rng.integers(1, 5, shape).astype(np.int64)
    return (rng.random(shape) + 0.5).astype(dtype)


@settings(max_examples=60, deadline=None)
@given(broadcast_pair(), st.sampled_from(OPS), st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       st.integers(0, 2 ** 16))
def test_binary_broadcasting_matches_torch(shapes, op, da, db, seed):
    a, b = np.asarray(_arr(shapes[0], da, seed)), np.asarray(_arr(shapes[1], db, seed + 1))  # 0-d: arrays
    fn = lambda m, x, y: getattr(m, op)(x, y)  # noqa: E731
    try:
        fn(torch, torch.tensor(a), torch.tensor(b))
    except Exception:  # noqa: BLE001 - torch refuses (e.g. bool - bool): so must we, with its type and message
        raises_like_torch(fn, a, b)
        return
    same_as_torch(fn, a, b, grad=False, rtol=1e-5, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(broadcast_pair(), st.sampled_from(["add", "mul", "div", "sub", "atan2"]), st.integers(0, 2 ** 16))
def test_broadcast_gradients_reduce_like_torch(shapes, op, seed):
    a, b = _arr(shapes[0], "float64", seed), _arr(shapes[1], "float64", seed + 1)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    oa, ob = torchlike.tensor(a, requires_grad=True), torchlike.tensor(b, requires_grad=True)
    (getattr(torch, op)(ta, tb) ** 2).sum().backward()
    (getattr(torchlike, op)(oa, ob) ** 2).sum().backward()
    assert_same(oa.grad, ta.grad, rtol=1e-10, atol=1e-12)
    assert_same(ob.grad, tb.grad, rtol=1e-10, atol=1e-12)
