"""Gradients at inf, -inf and NaN follow torch's derivative formulas (derivatives.yaml), not JAX's: every pair
of extremal values through the choosing ops (abs, sign, relu, clamp and its bounds, maximum/minimum,
fmax/fmin), compared with torch's values and gradients (torch's OpInfo reference inputs carry such pairs)."""
import numpy as np
import pytest
import torch

import torchlike

INF, NAN = float("inf"), float("nan")
X = [INF, INF, INF, -INF, -INF, -INF, NAN, NAN, NAN, 1.5, 2.0, -0.5]
Y = [INF, -INF, NAN] * 3 + [2.0, 2.0, -1.0]

CASES = {
    "abs": lambda m, x, y: x.abs(),
    "sign": lambda m, x, y: m.sign(x) * x,
    "relu": lambda m, x, y: m.relu(x),
    "clamp_scalar": lambda m, x, y: x.clamp(-1.0, 1.75),
    "clamp_min_scalar": lambda m, x, y: m.clamp_min(x, 1.75),
    "clamp_tensor": lambda m, x, y: m.clamp(x, y, y),
    "clamp_tensor_lo_hi": lambda m, x, y: m.clamp(x, y - 1, y + 1),
    "clamp_min": lambda m, x, y: m.clamp_min(x, y),
    "clamp_max": lambda m, x, y: m.clamp_max(x, y),
    "maximum": lambda m, x, y: m.maximum(x, y),
    "minimum": lambda m, x, y: m.minimum(x, y),
    "fmax": lambda m, x, y: m.fmax(x, y),
    "fmin": lambda m, x, y: m.fmin(x, y),
    "maximum_broadcast": lambda m, x, y: m.maximum(x, y[:1]),
    "copysign": lambda m, x, y: m.copysign(x, y),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_extremal_values_and_gradients_match_torch(case, dtype):
    got = []
    for m in (torch, torchlike):
        d = getattr(m, dtype)
        x = m.tensor(X, dtype=d, requires_grad=True)
        y = m.tensor(Y, dtype=d, requires_grad=True)
        out = CASES[case](m, x, y)
        ct = m.arange(1, out.numel() + 1, dtype=d).reshape(out.shape)
        gx, gy = m.autograd.grad(out, (x, y), ct, allow_unused=True)
        got.append([out.detach().numpy(), None if gx is None else gx.numpy(), None if gy is None else gy.numpy()])
    for theirs, ours in zip(*got):
        assert (theirs is None) == (ours is None)
        if theirs is not None:
            np.testing.assert_array_equal(ours, theirs)


ACTIVATIONS = {
    "hardswish": lambda m, v: m.nn.functional.hardswish(v),
    "softshrink": lambda m, v: m.nn.functional.softshrink(v, 0.5),
    "hardshrink": lambda m, v: m.nn.functional.hardshrink(v, 0.5),
    "threshold": lambda m, v: m.nn.functional.threshold(v, 0.5, -1.0),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_pass_nan_and_infinities_as_torch(name, dtype):
    """torch's kernels test ``-lambd <= x <= lambd`` / ``x <= threshold`` (NaN falls through to x) and compute
    hardswish literally (NaN at -inf); gradients as torch's backward kernels."""
    vals = [-5., -3., -1., -0.25, 0.5, 2.9, 3., 5., -INF, INF, NAN]
    got = []
    for m in (torch, torchlike):
        x = m.tensor(vals, dtype=getattr(m, dtype), requires_grad=True)
        y = ACTIVATIONS[name](m, x)
        g, = m.autograd.grad(y.sum(), x)
        got.append((y.detach().float().numpy(), g.float().numpy()))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    np.testing.assert_array_equal(got[1][1], got[0][1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["elu", "celu", "selu"])
def test_elu_family_gradient_past_exps_range_is_finite(fn, dtype):
    # exp(1001.2) is inf on the branch not taken; its zero cotangent made the gradient NaN (float32 from ~89)
    got = []
    for m in (torch, torchlike):
        x = m.tensor([1001.2, 100.0, -1001.2, -2.0, 0.0, 3.0], dtype=getattr(m, dtype), requires_grad=True)
        getattr(m.nn.functional, fn)(x).sum().backward()
        got.append(np.asarray(x.grad.numpy()))
    np.testing.assert_allclose(got[1], got[0], rtol=1e-6)


@pytest.mark.parametrize("fn", ["hardtanh", "relu6", "hardsigmoid", "softshrink", "hardshrink"])
def test_clipping_activations_gradient_at_nan_follows_torchs_loops(fn):
    # torch's vectorized loop gives 0 at NaN, its scalar tail loop 1 (here: 32 vectorized, 3 in the tail)
    got = []
    for m in (torch, torchlike):
        x = m.tensor([NAN] * 16 + [0.5, -5.0, 5.0, 2.0] * 4 + [NAN] * 3, dtype=m.float32, requires_grad=True)
        getattr(m.nn.functional, fn)(x).sum().backward()
        got.append(np.asarray(x.grad.numpy()))
    np.testing.assert_array_equal(got[1], got[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [3, 20, 24, 33, 70])
@pytest.mark.parametrize("fn", ["elu", "celu", "selu"])
def test_elu_family_gradient_at_nan_follows_torchs_loops(fn, n, dtype):
    # torch's vectorized blend takes the negative branch at NaN (NaN), its scalar loop the positive one (`scale`):
    # two Vectorized registers a vectorized step (128 bytes with torch's AVX512 kernels, 64 with its AVX2 ones:
    # 16 float32 on an AVX2 EPYC), the rest scalar
    got = []
    for m in (torch, torchlike):
        v = np.ones(n)
        v[::3], v[1::3] = NAN, -1.0
        x = m.tensor(v, dtype=getattr(m, dtype), requires_grad=True)
        getattr(m.nn.functional, fn)(x).sum().backward()
        got.append(np.asarray(x.grad.numpy()))
    np.testing.assert_array_equal(got[1], got[0])


def test_logit_gradient_is_nan_outside_0_1_without_eps():
    got = []
    for m in (torch, torchlike):
        x = m.tensor([-7.5, -0.5, 0.25, 0.5, 1.5], dtype=m.float64, requires_grad=True)
        y = m.tensor([-7.5, -0.5, 0.25, 0.5, 1.5], dtype=m.float64, requires_grad=True)
        m.logit(x).sum().backward()
        m.logit(y, eps=0.1).sum().backward()
        got.append((np.asarray(x.grad.numpy()), np.asarray(y.grad.numpy())))
    for ours, theirs in zip(got[1], got[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


ZERO_X = [0.0, 0.0, -0.0, 0.0, 0.0, 2.0, 0.0, 1.5, 0.0]
ZERO_Y = [0.0, -0.0, 0.0, -1.0, 2.5, 0.0, 0.5, -2.0, -3.0]
AT_ZERO = {
    "pow": lambda m, x, y: m.pow(x, y),
    "float_power": lambda m, x, y: m.float_power(x, y),
    "hypot": lambda m, x, y: m.hypot(x, y),
    "xlogy": lambda m, x, y: m.xlogy(x, y),
    "xlog1py": lambda m, x, y: m.special.xlog1py(x, y),
    "atan2": lambda m, x, y: m.atan2(x, y),
    "copysign": lambda m, x, y: m.copysign(x, y),
    "remainder": lambda m, x, y: m.remainder(x, y + 0.001),
    "logaddexp_tie": lambda m, x, y: m.logaddexp(x + 1e20, y * 0 + 1e20),
    "polar": lambda m, x, y: m.view_as_real(m.polar(x - 0.5, y)),
}


@pytest.mark.parametrize("case", sorted(AT_ZERO))
def test_binary_gradients_at_zero_follow_torchs_formulas(case):
    # pow: 0 for the base where the exponent is 0 and for the exponent at a zero base with exponent >= 0
    # (JAX: NaN); hypot: NaN at the origin (JAX: 1/2); xlogy/xlog1py: log(y) at x == 0, 0 past the domain
    got = []
    for m in (torch, torchlike):
        x = m.tensor(ZERO_X, dtype=m.float64, requires_grad=True)
        y = m.tensor(ZERO_Y, dtype=m.float64, requires_grad=True)
        out = AT_ZERO[case](m, x, y)
        gx, gy = m.autograd.grad(out.sum(), (x, y))
        got.append([np.asarray(v.detach().numpy()) for v in (out, gx, gy)])
    for ours, theirs in zip(got[1], got[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-300, equal_nan=True)


SMOOTH = {
    "atan2": lambda m, x, y: m.atan2(x, y),
    "logaddexp": lambda m, x, y: m.logaddexp(x, y),
    "pow": lambda m, x, y: m.pow(x, y),
    "hypot": lambda m, x, y: m.hypot(x, y),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(SMOOTH))
def test_smooth_binary_ops_at_extremal_values_match_torch(case, dtype):
    # (values and gradients to a few ulps: these compute transcendental functions)
    got = []
    for m in (torch, torchlike):
        x = m.tensor(X, dtype=getattr(m, dtype), requires_grad=True)
        y = m.tensor(Y, dtype=getattr(m, dtype), requires_grad=True)
        out = SMOOTH[case](m, x, y)
        gx, gy = m.autograd.grad(out.sum(), (x, y))
        got.append([np.asarray(v.detach().numpy()) for v in (out, gx, gy)])
    for ours, theirs in zip(got[1], got[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)
