"""Reductions compared with torch: values, dtypes, keepdim/dim forms, empty tensors, errors, gradients; order
statistics (median/mode/quantile), scans, diff/trace/renorm."""
import math

import numpy as np
import pytest
import torch

import torchlike
from _reduce_helpers import NAN, arr, both
from conftest import assert_close_values, assert_same, raises_like_torch, tensor_pair, to_tl, torch_or_tl

pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom")

RNG = np.random.default_rng(0)
DIMS = [None, 0, -1, (0, 2), ()]
DT_ALL = ["float32", "float64", "int64", "int32", "uint8", "bool"]


# --- sum / nansum / mean / nanmean / prod -----------------------------------------------------
@pytest.mark.parametrize("dt", DT_ALL)
def test_sum_forms(dt):
    a = arr((2, 3, 4), dt)
    both(lambda L, x: L.sum(x), a)
    both(lambda L, x: x.sum(), a)
    for dim, keepdim in ((0, False), (-1, True), ((0, 2), False), ((), True)):
        both(lambda L, x: L.sum(x, dim, keepdim), a, grad=dt == "float32")
    both(lambda L, x: x.nansum((0, 2), keepdim=True), a, grad=dt == "float32")


@pytest.mark.parametrize("dt", ["float32", "int32", "bool"])
def test_sum_prod_dtype_kwarg(dt):
    a = arr((3, 4), dt)
    both(lambda L, x: L.sum(x, 1, dtype=L.float64), a)
    both(lambda L, x: L.prod(x, 1, dtype=L.int32), a)
    both(lambda L, x: L.prod(x), a)
    both(lambda L, x: x.prod(0, True), a)
    both(lambda L, x: L.cumsum(x, 1, dtype=L.float64), a)


def test_scalar_and_empty():
    for f in (lambda L, x: L.sum(x, 0), lambda L, x: x.mean(-1), lambda L, x: x.prod(0),
              lambda L, x: x.max(0), lambda L, x: x.argmax(0), lambda L, x: x.amax(0), lambda L, x: x.var(0),
              lambda L, x: x.logsumexp(0), lambda L, x: x.all(0), lambda L, x: x.cumsum(0),
              lambda L, x: x.cummax(0), lambda L, x: x.median(0), lambda L, x: x.norm(dim=0)):
        both(f, np.array(2.5, np.float32), grad=True)
    e = np.zeros((0, 3), np.float32)
    for f in (lambda L, x: x.sum(), lambda L, x: x.sum(0), lambda L, x: x.mean(), lambda L, x: x.mean(1),
              lambda L, x: x.prod(), lambda L, x: x.prod(0), lambda L, x: x.var(), lambda L, x: x.std(0),
              lambda L, x: x.max(1), lambda L, x: x.amin(1), lambda L, x: L.aminmax(x, dim=1),
              lambda L, x: x.all(), lambda L, x: x.any(1),
              lambda L, x: x.logsumexp(1), lambda L, x: x.norm(), lambda L, x: L.count_nonzero(x, 0),
              lambda L, x: x.median(), lambda L, x: x.nanmedian(),
              lambda L, x: x.cumsum(0), lambda L, x: x.cumprod(1),
              lambda L, x: x.nansum(), lambda L, x: x.nanmean(1)):
        both(f, e)
    # reductions with no identity over an empty dimension: torch raises
    for f in (lambda L, x: x.max(), lambda L, x: x.max(0), lambda L, x: x.min(0), lambda L, x: x.amax(),
              lambda L, x: x.amax(0), lambda L, x: x.argmax(), lambda L, x: x.argmin(0), lambda L, x: L.aminmax(x),
              lambda L, x: L.aminmax(x, dim=0), lambda L, x: x.median(0), lambda L, x: L.mode(x, 0)):
        raises_like_torch(f, e)


def test_mean_family():
    a = arr((3, 4, 2), "float64")
    for dim in DIMS:
        both(lambda L, x: L.mean(x, dim), a, grad=dim in (None, (0, 2)))
    both(lambda L, x: x.mean(1, keepdim=True), a, grad=True)
    raises_like_torch(lambda L, x: L.mean(x), arr((3,), "int64"))
    both(lambda L, x: L.mean(x, dtype=L.float32), arr((3,), "int64"))
    raises_like_torch(lambda L, x: L.nanmean(x), arr((3,), "int64"))
    b = np.array([[1., NAN, 3.], [NAN, NAN, NAN]], np.float32)
    both(lambda L, x: L.nanmean(x, 1), b, grad=True)
    both(lambda L, x: L.nanmean(x), b)
    both(lambda L, x: L.nansum(x, 0), b, grad=True)
    raises_like_torch(lambda L, x: L.nansum(x), np.array([1 + 1j], np.complex64))


def test_prod_grad_with_zeros():
    a = np.array([[0., 2., 3.], [0., 0., 1.], [1., 2., 4.]], np.float64)
    both(lambda L, x: x.prod(1), a, grad=True)
    both(lambda L, x: x.prod(), np.array([0., 2., 3.]), grad=True)
    raises_like_torch(lambda L, x: L.prod(x, (0, 1)), a, match=r"^prod\(\) received an invalid combination of arguments - got \(Tensor, tuple\)")


# --- var / std ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_forms(name):
    a = arr((3, 4), "float64")
    f = lambda L: getattr(L, name)  # noqa: E731
    both(lambda L, x: f(L)(x), a, grad=True)
    both(lambda L, x: f(L)(x, 0), a)
    both(lambda L, x: f(L)(x, 0, True), a)
    both(lambda L, x: f(L)(x, 0, False, True), a)
    both(lambda L, x: f(L)(x, False), a)
    both(lambda L, x: f(L)(x, dim=(0, 1), correction=0), a)
    both(lambda L, x: f(L)(x, 1, correction=2.5, keepdim=True), a, grad=True)
    both(lambda L, x: f(L)(x, unbiased=False), a)
    both(lambda L, x: getattr(x, name)(1, keepdim=True), a)
    both(lambda L, x: f(L)(x, 1), np.ones((2, 1)), grad=False)  # N - correction == 0 -> nan
    raises_like_torch(lambda L, x: f(L)(x), arr((3,), "int64"))
    both(lambda L, x: f(L)(x, 0), (arr((3, 2)) + 1j * arr((3, 2), seed=3)).astype(np.complex64))
    both(lambda L, x: getattr(L, name + "_mean")(x, 1), a)
    both(lambda L, x: getattr(L, name + "_mean")(x, (0, 1), correction=0, keepdim=True), a, grad=True)
    both(lambda L, x: getattr(L, name + "_mean")(x), a)


# --- max / min / amax / amin / aminmax / argmax / argmin --------------------------------------
@pytest.mark.parametrize("dt", ["float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_min_forms(dt, kind):
    a = arr((3, 5), dt, ties=True, lo=0, hi=3)
    g = dt == "float32"
    arg_check = raises_like_torch if dt == "bool" else both  # argmax/argmin reject bool
    both(lambda L, x: getattr(L, kind)(x), a, grad=g)
    for dim in (0, -1):
        both(lambda L, x: getattr(L, kind)(x, dim), a, grad=g and dim == 0)
        both(lambda L, x: getattr(x, kind)(dim, keepdim=True), a)
        arg_check(lambda L, x: getattr(L, "arg" + kind)(x, dim, dim == 0), a)
        both(lambda L, x: getattr(L, "a" + kind)(x, dim), a, grad=g and dim == 0)
    arg_check(lambda L, x: getattr(L, "arg" + kind)(x), a)
    arg_check(lambda L, x: getattr(L, "arg" + kind)(x, keepdim=True), a)
    both(lambda L, x: getattr(L, "a" + kind)(x), a)
    both(lambda L, x: getattr(L, "a" + kind)(x, (0, 1), True), a, grad=g)
    both(lambda L, x: getattr(L, kind)(x, x.flip(0)), a)


def test_max_binary_and_out():
    a, b = arr((2, 3)), arr((3,), seed=2)
    both(lambda L, x, y: L.max(x, y), a, b, grad=True)
    both(lambda L, x, y: L.min(x, other=y), a, b)
    both(lambda L, x, y: x.max(y), a, b)

    def with_out(L, x):
        v, i = L.empty(0), L.empty(0, dtype=L.int64)
        r = L.max(x, 1, out=(v, i))
        return v, i, tuple(r)
    both(with_out, a)


def test_max_nan_and_ties():
    a = np.array([[1., NAN, 3., NAN], [2., 2., 1., 2.], [0., -1., -1., 5.]], np.float32)
    for kind in ("max", "min"):
        both(lambda L, x: getattr(L, kind)(x), a, grad=True)
        both(lambda L, x: getattr(L, kind)(x, 1), a, grad=True)
        both(lambda L, x: getattr(L, "arg" + kind)(x, 1), a)
        both(lambda L, x: getattr(L, "arg" + kind)(x), a)
        both(lambda L, x: getattr(L, "a" + kind)(x, 1), a)
        both(lambda L, x: getattr(L, kind)(x[1:]), a, grad=True)  # tie: gradient split evenly
        both(lambda L, x: getattr(L, "a" + kind)(x[1:], 1), a, grad=True)
    both(lambda L, x: L.aminmax(x, dim=1, keepdim=True), a)
    both(lambda L, x: L.max(x[1]), a, grad=True)  # three tied maxima share the gradient
    both(lambda L, x: L.aminmax(x[1:]), a, grad=True)


def test_max_errors():
    raises_like_torch(lambda L, x: L.max(x), np.array([1 + 1j], np.complex64))
    raises_like_torch(lambda L, x: L.max(x, 2), arr((2, 3)))
    raises_like_torch(lambda L, x: L.argmax(x, 2), arr((2, 3)))


# --- logsumexp / all / any / count_nonzero ----------------------------------------------------
def test_logsumexp():
    a = arr((3, 4), "float64")
    both(lambda L, x: L.logsumexp(x, 1), a, grad=True)
    both(lambda L, x: x.logsumexp((0, 1), keepdim=True), a, grad=True)
    both(lambda L, x: L.logsumexp(x, 0), arr((3, 4), "int64"))
    inf = np.array([[-np.inf, -np.inf], [np.inf, 1.], [np.inf, np.inf]], np.float32)
    both(lambda L, x: L.logsumexp(x, 1), inf)


@pytest.mark.parametrize("dt", DT_ALL)
def test_all_any_count(dt):
    a = arr((2, 3, 4), dt, lo=0, hi=2)
    for dim in (None, 0, -1, (0, 2)):
        both(lambda L, x: L.all(x) if dim is None else L.all(x, dim), a)
        both(lambda L, x: x.any() if dim is None else x.any(dim, keepdim=True), a)
        both(lambda L, x: L.count_nonzero(x, dim), a)


# --- norms -------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", ["fro", 2, 1, 3, 0.5, 0, float("inf"), -float("inf"), None])
def test_norm(p):
    a = arr((3, 4), "float64")
    a[0, 1] = 0
    both(lambda L, x: x.norm(p, 1), a, grad=p not in (0,))
    both(lambda L, x: L.norm(x, p), a)
    both(lambda L, x: x.norm(p, (0, 1), keepdim=True), a)
    raises_like_torch(lambda L, x: L.norm(x, p, dim=0, dtype=L.float32), a)


def test_norm_special():
    a = arr((3, 4), "float64")
    both(lambda L, x: L.norm(x, "nuc"), a, grad=True, rtol=1e-4)
    both(lambda L, x: L.norm(x, "nuc", dim=(1, 0), keepdim=True), arr((3, 4, 2), "float64"), rtol=1e-4)
    raises_like_torch(lambda L, x: L.norm(x, "nuc"), arr((3,)))
    raises_like_torch(lambda L, x: L.norm(x), arr((3,), "int64"))
    both(lambda L, x: L.norm(x), (arr((3,)) + 1j * arr((3,), seed=4)).astype(np.complex64))
    both(lambda L, x: x.norm(), np.zeros(3, np.float32), grad=True)  # zero norm: zero gradient
    both(lambda L, x: x.norm(3), np.zeros(3, np.float32), grad=True)
    both(lambda L, x: L.norm(x, 2, dim=0, dtype=L.float64), arr((3,), "float32"))


def test_dist():
    a, b = arr((3, 4), "float64"), arr((4,), "float64", seed=3)
    for p in (2, 1, 0, 3.5, float("inf")):
        both(lambda L, x, y: L.dist(x, y, p), a, b, grad=p in (2, 3.5))
    both(lambda L, x, y: x.dist(y), a, a.copy(), grad=True)
    raises_like_torch(lambda L, x, y: L.dist(x, y), arr((2,), "int64"), arr((2,), "int64", seed=2))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_accumulates_in_float32(dt):
    a = torchlike.tensor(arr((2, 300), "float32")).to(getattr(torchlike, dt))
    b = torch.tensor(np.asarray(a.float()._value)).to(getattr(torch, dt))
    for f in (lambda x: x.sum(1), lambda x: x.mean(1), lambda x: x.nansum(1), lambda x: x.cumsum(1),
              lambda x: x.var(1), lambda x: x.logsumexp(1), lambda x: x.norm(dim=1)):
        assert_same(f(a), f(b), rtol=1e-2, atol=1e-2)
        np.testing.assert_array_equal(np.asarray(f(a).float()._value), f(b).float().numpy())


def test_special_logsumexp():
    both(lambda L, x: L.special.logsumexp(x, 0), arr((3,), "float32"))


# === order statistics, scans, diff/trace/renorm (was test_reduction2.py) =========================
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
    raises_like_torch(lambda L, x: getattr(L, name)(x), np.array([True, False]))
    raises_like_torch(lambda L, x: getattr(L, name)(x, 2), a)


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
    raises_like_torch(lambda L, x: L.quantile(x, 1.5), a)
    raises_like_torch(lambda L, x: L.quantile(x, L.tensor([0.5, 1.2])), a)
    raises_like_torch(lambda L, x: L.quantile(x, L.tensor([0.5], dtype=L.float64)), a)
    raises_like_torch(lambda L, x: L.quantile(x, L.ones(1, 1) / 2), a)
    raises_like_torch(lambda L, x: L.quantile(x, 0.5, interpolation="foo"), a)
    raises_like_torch(lambda L, x: L.quantile(x, 0.5), arr((3,), "int64"))
    raises_like_torch(lambda L, x: L.nanquantile(x, 0.5), np.zeros(0, np.float32))


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
    (raises_like_torch if dt == "bool" else both)(inplace, a)  # no bool cumsum_ kernel


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
    raises_like_torch(lambda L, x: L.logcumsumexp(x, 0), np.array([1, 2]))


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
    raises_like_torch(lambda L, x: L.diff(x), np.array(1.0))


def test_trace_renorm():
    both(lambda L, x: L.trace(x), arr((3, 4), "float64"), grad=True)
    both(lambda L, x: x.trace(), arr((3, 3), "int8"))
    raises_like_torch(lambda L, x: L.trace(x), arr((3,)))
    a = arr((3, 4), "float64")
    for p, dim, mx in ((2, 0, 1.5), (1, 1, 2.0), (3.0, 0, 0.5)):
        both(lambda L, x: L.renorm(x, p, dim, mx), a, grad=p != 1)
    raises_like_torch(lambda L, x: x.renorm(0, 0, 1.0), a)


# (was test_core_fixes.py) --- logcumsumexp ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp_large_values_grad(dtype, dim):
    torch.manual_seed(0)
    t = torch.randn(5, 5, 5, dtype=dtype) * 3
    t[0] = 10000
    g = torch.randn(5, 5, 5, dtype=dtype)
    x = t.clone().requires_grad_()
    y = torch.logcumsumexp(x, dim)
    y.backward(g)
    xt = to_tl(t).requires_grad_()
    yt = torchlike.logcumsumexp(xt, dim)
    yt.backward(to_tl(g))
    assert_close_values(yt, y, rtol=1e-6, atol=1e-6)
    assert_close_values(xt.grad, x.grad, rtol=1e-4, atol=1e-5)


def test_logcumsumexp_neg_inf_and_complex():
    x = torch.tensor([-float("inf"), -float("inf"), 1.0], requires_grad=True)
    xt = to_tl(x).requires_grad_()
    torch.logcumsumexp(x, 0).sum().backward()
    torchlike.logcumsumexp(xt, 0).sum().backward()
    assert_close_values(xt.grad, x.grad)
    c = torch.randn(4, dtype=torch.complex64)
    assert_close_values(torchlike.logcumsumexp(to_tl(c), 0), torch.logcumsumexp(c, 0), rtol=1e-5, atol=1e-6)


# --- hash_tensor ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int32, torch.int8, torch.uint8, torch.bool])
def test_hash_tensor_matches_torch(dtype):
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(3, 4, generator=g) * 50).to(dtype)
    for kw in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": 0, "keepdim": True}):
        e, a = torch.hash_tensor(x, **kw), torchlike.hash_tensor(to_tl(x), **kw)
        assert str(a.dtype) == str(e.dtype) == "torch.uint64"
        assert a.tolist() == e.tolist()
    assert to_tl(x).hash_tensor().item() == x.hash_tensor().item()


def test_hash_tensor_errors_as_torch():
    for x, tx in ((torch.empty(0), torchlike.empty(0)), (torch.ones(2, dtype=torch.complex64),
                                                           torchlike.ones(2, dtype=torchlike.complex64))):
        with pytest.raises(Exception) as t_err:
            torch.hash_tensor(x)
        with pytest.raises(Exception) as l_err:
            torchlike.hash_tensor(tx)
        assert type(l_err.value) is type(t_err.value) and str(l_err.value) == str(t_err.value)


# --- logcumsumexp of complex inputs: torch's branch of the log --------------------------------------
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp_complex_branch(dtype, dim):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(5, 4, 6, generator=g, dtype=dtype) * 4)
    assert_same(torchlike.logcumsumexp(to_tl(x), dim), torch.logcumsumexp(x, dim), rtol=None, atol=None)


def test_logcumsumexp_complex_nonfinite():
    x = torch.tensor([1 + 1j, complex(float("nan"), 0), 2 - 1j, complex(-math.inf, 1), complex(math.inf, 2), 3j,
                      complex(-math.inf, 0), complex(-math.inf, 3)], dtype=torch.complex128)
    for xs in (x, x[3:], x[6:]):
        assert_same(torchlike.logcumsumexp(to_tl(xs), 0), torch.logcumsumexp(xs, 0), rtol=None, atol=None)


# --- segment_reduce ----------------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "max", "min", "amax", "amin"])
@pytest.mark.parametrize("initial", [None, 2])
def test_segment_reduce_values_and_grads(reduce, initial):
    x = np.array([1., 2., 2., 0., 3., 3., -1.], np.float32)  # ties, a zero, an empty segment
    lengths = [1, 0, 3, 2, 1]
    a, b = tensor_pair(x, True)
    got = torchlike.segment_reduce(a, reduce, lengths=torchlike.tensor(lengths), initial=initial)
    want = torch.segment_reduce(b, reduce, lengths=torch.tensor(lengths), initial=initial)
    assert_same(got, want, rtol=1e-5, atol=1e-5)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = np.array([1., 10., 100., 1000., 7.], np.float32)
    got.backward(torchlike.tensor(g))
    want.backward(torch.tensor(g))
    assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["lengths", "offsets"])
@pytest.mark.parametrize("reduce", ["sum", "max", "mean", "prod"])
def test_segment_reduce_along_inner_axis(mode, reduce):
    x = RNG.standard_normal((5, 5, 3)).astype(np.float32)
    lengths = np.array([[2, 0, 3, 0], [0, 1, 2, 2], [3, 0, 2, 0], [1, 1, 1, 2], [0, 1, 2, 2]])

    def run(lib):
        ln = lib.tensor(lengths)
        kw = {"lengths": ln} if mode == "lengths" else {
            "offsets": lib.cat([lib.zeros(5, 1, dtype=lib.int64), ln], 1).cumsum(1)}
        return lib._segment_reduce(lib.tensor(x), reduce, axis=1, initial=1, **kw)
    assert_same(run(torchlike), run(torch), rtol=1e-5, atol=1e-5)


def test_segment_reduce_unsafe_lengths_short_of_the_axis():
    x = np.arange(12.0, dtype=np.float32).reshape(6, 2)
    got = torchlike.segment_reduce(torchlike.tensor(x), "sum", lengths=torchlike.tensor([1, 2, 0]), unsafe=True)
    want = torch.segment_reduce(torch.tensor(x), "sum", lengths=torch.tensor([1, 2, 0]), unsafe=True)
    assert_same(got, want, rtol=1e-5, atol=1e-5)


def test_segment_reduce_nan_propagates_through_max_and_min():
    x = np.array([1., np.nan, 2., 5.], np.float32)
    for reduce in ("max", "min"):
        assert_same(torchlike.segment_reduce(torchlike.tensor(x), reduce, lengths=torchlike.tensor([3, 1])), torch.segment_reduce(torch.tensor(x), reduce, lengths=torch.tensor([3, 1])), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs", [dict(), dict(lengths=[1, 2]), dict(lengths=[-1, 6]), dict(lengths=[5], bad=1)])
def test_segment_reduce_errors_match_torch(kwargs):
    reduce = "foo" if kwargs.pop("bad", None) else "sum"

    def call(lib):
        kw = {k: lib.tensor(v) for k, v in kwargs.items()}
        return lambda: lib.segment_reduce(lib.arange(5.0), reduce, **kw)
    raises_like_torch(torch_or_tl(call(torch), call(torchlike)))


def test_segment_reduce_under_compile_matches_eager():
    x, ln = torchlike.tensor([1., 2., 3., 4., 5.]), torchlike.tensor([2, 0, 3])
    f = torchlike.compile(lambda x, ln: torchlike.segment_reduce(x, "max", lengths=ln, initial=0.5))
    assert_same(f(x, ln), torch.segment_reduce(torch.tensor([1., 2., 3., 4., 5.]), "max",
                                          lengths=torch.tensor([2, 0, 3]), initial=0.5), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("int64", "int64")])
def test_aminmax_out_dtype_is_checked_like_torch(dtypes):
    """aminmax writes no cast into its out tensors: torch names the dtype it wanted (was: cast silently)."""
    raises_like_torch(lambda m: m.aminmax(m.zeros(3), out=(m.empty(0, dtype=getattr(m, dtypes[0])),
                                                          m.empty(0, dtype=getattr(m, dtypes[1])))))


def test_aminmax_out_returns_the_out_tensors_like_torch():
    for m in (torch, torchlike):
        lo, hi = m.empty(0), m.empty(0)
        r = m.aminmax(m.tensor([3.0, -1.0, 2.0]), out=(lo, hi))
        assert r.min is lo and r.max is hi and (lo.item(), hi.item()) == (-1.0, 3.0)
