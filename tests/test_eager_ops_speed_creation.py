"""Correctness of the fast eager paths for creation and number writes (not timed): zeros/ones from one cached
program per shape and dtype, and ``t[k] = number`` written into the root by one program -- compared with torch."""
import numpy as np
import pytest

from tests.conftest import raises_like_torch, same_as_torch

D = np.arange(24, dtype=np.int64)
F = np.arange(24, dtype=np.float32).reshape(6, 4) / 3


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "bool", "uint8",
                                "complex64"])
def test_zeros_ones_dtypes(dt):
    def fn(m, x):
        d = getattr(m, dt)
        return m.zeros(3, 2, dtype=d), m.ones(5, dtype=d), m.zeros((), dtype=d), m.ones(0, 3, dtype=d), \
            m.zeros_like(x, dtype=d), m.ones_like(x, dtype=d)
    same_as_torch(fn, F, grad=False)


def test_zeros_ones_defaults_grad_and_independence():
    def fn(m, x):
        a = m.zeros(4)
        b = m.zeros(4)
        a[1] = 5.0
        c = m.ones(2, 2, requires_grad=True)
        m.set_default_dtype(m.float64)
        try:
            d = m.zeros(2)
        finally:
            m.set_default_dtype(m.float32)
        return a, b, c, c.requires_grad, c.is_leaf, d, m.full((2,), -0.0), m.empty(3).shape, m.zeros(3, device="cpu")
    same_as_torch(fn, F, grad=False)
    raises_like_torch(lambda m, x: m.zeros(-1), F)


@pytest.mark.parametrize("value", [1.5, -2, 0, 7.25e8, float("inf"), float("nan"), 2 ** 40])
def test_set_number_float_tensors(value):
    def fn(m, x):
        x = x.clone().detach()
        h = x.to(m.float16)
        row = x[2]
        x[1] = value
        x[-1] = value
        h[0] = value
        f = x.flatten()
        f[3] = value
        return x, row, h, f, x._version
    same_as_torch(fn, F, grad=False)


@pytest.mark.parametrize("value", [5, -3, 2 ** 62, 1.5, -2.7, True])
def test_set_number_int_tensors(value):
    def fn(m, x):
        x = x.clone()
        y = x.to(m.int32)
        v = x[3:9]
        x[4] = value
        y[2] = value if abs(value) < 2 ** 31 else 1
        w = x.view(4, 6)
        w[1] = value
        return x, y, v, w
    same_as_torch(fn, D, grad=False)


def test_set_number_views_and_loops():
    def fn(m, x):
        x = x.clone().detach()
        losses = m.zeros(10)
        for k in range(10):
            losses[k] = float(k) / 4
        t = x.t()
        t[1] = 9.0  # a non-contiguous view's row: writes a column of x
        s = x[1:5]
        s[0] = -1.0
        return losses, losses.mean(), x, t, s
    same_as_torch(fn, F, grad=False)


def test_set_number_errors_and_autograd():
    raises_like_torch(lambda m, x: x.__setitem__(6, 1.0), F)
    raises_like_torch(lambda m, x: x.__setitem__(-7, 1.0), F)
    raises_like_torch(lambda m, x: x.requires_grad_().__setitem__(0, 1.0), F)
    raises_like_torch(lambda m, x: m.tensor(3.0).__setitem__(0, 1.0), F)

    def fn(m, x):
        y = x * 2
        y[1] = 5.0  # in the graph: recorded like torch
        return y
    same_as_torch(fn, F)
