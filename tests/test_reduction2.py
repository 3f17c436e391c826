"""Order statistics, scans, diff/trace/renorm compared with torch (values, indices, dtypes, grads, errors)."""
import numpy as np
import pytest

from _reduce_helpers import NAN, arr, both


def _distinct(shape, seed=0, dtype="float64"):
    rng = np.random.default_rng(seed)
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype) - 3


# --- median / nanmedian / mode ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median(name):
    a = _distinct((3, 4))
    both(lambda L, x: getattr(L, name)(x), a, grad=True)
    both(lambda L, x: getattr(L, name)(x, 0), a, grad=True)
    both(lambda L, x: getattr(x, name)(-1, keepdim=True), a)
    both(lambda L, x: getattr(L, name)(x, 1), _distinct((2, 5), dtype="int64"))
    # ties: full reduction shares the gradient evenly
    t = np.array([[1., 2., 2., 3.], [2., 2., 0., 9.]])
    both(lambda L, x: getattr(L, name)(x), t, grad=True)
    n = np.array([[1., NAN, 3., NAN, 0.], [NAN, NAN, NAN, NAN, NAN], [4., 2., 1., 3., NAN]], np.float32)
    both(lambda L, x: getattr(L, name)(x[::2], 1), n, grad=True)
    # all-NaN rows: torch's index there comes from std::nth_element's internals; compare values only
    both(lambda L, x: getattr(L, name)(x, 1).values, n)
    both(lambda L, x: getattr(L, name)(x), n, grad=True)
    both(lambda L, x: getattr(L, name)(x[2:]), n)
    both(lambda L, x: getattr(L, name)(x), np.array([True, False]))
    both(lambda L, x: getattr(L, name)(x, 2), a)


def test_mode():
    a = np.array([[1, 2, 2, 1, 3], [3, 1, 2, 2, 1], [5, 5, 5, 0, 0]], np.float32)
    both(lambda L, x: L.mode(x), a, grad=True)
    both(lambda L, x: x.mode(0, keepdim=True), a, grad=True)
    both(lambda L, x: L.mode(x, 1), a.astype(np.int64))
    both(lambda L, x: L.mode(x), np.array([True, False, False]))
    both(lambda L, x: L.mode(x), np.array(3.0))


# --- quantile / nanquantile --------------------------------------------------------------------
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile(name):
    a = arr((4, 5), "float64")
    a[1, 2] = NAN
    a[3, :] = NAN
    f = lambda L: getattr(L, name)  # noqa: E731
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        g = interp in ("linear", "midpoint")
        both(lambda L, x: f(L)(x, L.tensor([0.0, 0.25, 0.6, 1.0], dtype=L.float64), 1, True, interpolation=interp),
             a, grad=g)
        both(lambda L, x: f(L)(x, L.tensor([0.1, 0.5], dtype=L.float64), keepdim=True, interpolation=interp), a)
    both(lambda L, x: f(L)(x, 0.3), a, grad=True)
    both(lambda L, x: f(L)(x, 0.5, 1), a)
    both(lambda L, x: getattr(x, name)(L.tensor(0.7, dtype=L.float64), 0), a[:3], grad=True)


def test_quantile_errors():
    a = arr((3,), "float32")
    both(lambda L, x: L.quantile(x, 1.5), a)
    both(lambda L, x: L.quantile(x, L.tensor([0.5, 1.2])), a)
    both(lambda L, x: L.quantile(x, L.tensor([0.5], dtype=L.float64)), a)
    both(lambda L, x: L.quantile(x, L.ones(1, 1) / 2), a)
    both(lambda L, x: L.quantile(x, 0.5, interpolation="foo"), a)
    both(lambda L, x: L.quantile(x, 0.5), arr((3,), "int64"))
    both(lambda L, x: L.nanquantile(x, 0.5), np.zeros(0, np.float32))


# --- scans -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float64", "int32", "bool"])
def test_cumsum_cumprod(dt):
    a = arr((3, 4), dt, lo=-2, hi=3)
    for dim in (0, -1):
        both(lambda L, x: L.cumsum(x, dim), a, grad=dim == 0)
        both(lambda L, x: x.cumprod(dim), a, grad=dim == 0)
    z = np.array([[1., 0., 2., 3.], [0., 0., 2., 1.]])
    both(lambda L, x: L.cumprod(x, 1), z, grad=True)

    def inplace(L, x):
        y = x.clone()
        y.cumsum_(0)
        return y
    both(inplace, a)


@pytest.mark.parametrize("kind", ["cummax", "cummin"])
def test_cummax_cummin(kind):
    a = np.array([[1., 3., 3., 2., 3., 0.], [2., NAN, 1., NAN, 5., 5.]], np.float32)
    for dim in (0, 1):
        both(lambda L, x: getattr(L, kind)(x, dim), a, grad=True)
    both(lambda L, x: getattr(x, kind)(1), a[:1].astype(np.int64))
    both(lambda L, x: getattr(L, kind)(x, 0), np.array([True, False, True]))


def test_logcumsumexp():
    a = arr((3, 4), "float64")
    both(lambda L, x: L.logcumsumexp(x, 1), a, grad=True)
    both(lambda L, x: x.logcumsumexp(0), a, grad=True)
    both(lambda L, x: L.logcumsumexp(x, 0), np.array([-np.inf, 0., np.inf, 1.]))
    both(lambda L, x: L.logcumsumexp(x, 0), np.array([1, 2]))


# --- diff / trace / renorm ---------------------------------------------------------------------
def test_diff():
    a = arr((3, 5), "float64")
    for n in (0, 1, 2, 6):
        both(lambda L, x: L.diff(x, n), a, grad=n == 2)
    both(lambda L, x: x.diff(dim=0), a, grad=True)
    both(lambda L, x: L.diff(x, 1, 1, L.ones(3, 1, dtype=L.float64), L.zeros(3, 2, dtype=L.float64)), a,
         grad=True)
    both(lambda L, x: L.diff(x, 2, 0, append=L.ones(1, 5, dtype=L.int64)), arr((3, 5), "int32"))
    both(lambda L, x: L.diff(x), np.array([True, False, False, True]))
    both(lambda L, x: L.diff(x), np.array(1.0))


def test_trace_renorm():
    both(lambda L, x: L.trace(x), arr((3, 4), "float64"), grad=True)
    both(lambda L, x: x.trace(), arr((3, 3), "int8"))
    both(lambda L, x: L.trace(x), arr((3,)))
    a = arr((3, 4), "float64")
    for p, dim, mx in ((2, 0, 1.5), (1, 1, 2.0), (3.0, 0, 0.5)):
        both(lambda L, x: L.renorm(x, p, dim, mx), a, grad=p != 1)
    both(lambda L, x: x.renorm(0, 0, 1.0), a)
