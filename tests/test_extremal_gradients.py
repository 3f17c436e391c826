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
