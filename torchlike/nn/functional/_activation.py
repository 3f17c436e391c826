"""Activation functions (torch.nn.functional.relu ... softmax, glu, gumbel_softmax).

Each is one jitted JAX function through ``dispatch``; scalar hyper-parameters travel as dynamic
arguments (no recompiles).  Half-precision inputs are computed in float32 and rounded, as torch's
CPU kernels do.  Where torch's gradient at a kink differs from a naive formula, the formula is
written with ``jnp.where`` on torch's side of the kink (see comments).

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.leaky_relu(torch.tensor([-2.0, 3.0]), 0.5)
tensor([-1.,  3.])
"""
from __future__ import annotations

import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import ml_dtypes
from jax import lax

from ..._errors import tp_name
from ..._scalar_fit import check_numbers_fit
from ... import _dtype, _profiler_state as _prof
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ...tensor import Tensor, _wrap_dim
from ..._ops.registry import TABLE as _TABLE
from ..._ops.special import softmax_common
from ..._ops._util import exact_div, round_to
from ... import _random
from ..._random import draw
from ..._ops.random_ops import continuous_dtype
from ..._ops.registry import write_out as _write_out
from ..._cpu_features import aten_vector_bytes as _aten_vector_bytes
from ..._ops.activations import _HALF, _check_float, _s, _up, nan_no_grad, scalar_tail
from ..._ops.activations import hardshrink, prelu  # noqa: F401  (torch's entries, declared in nn.functional too)
from ..._ops.checks import need_tensors as _need_tensors

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_", "elu", "elu_",
           "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "sigmoid", "tanh", "hardtanh", "hardtanh_",
           "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink", "softplus", "softsign",
           "threshold", "threshold_", "logsigmoid", "softmax", "softmin", "log_softmax", "glu",
           "gumbel_softmax"]


def _ret(x, out, inplace):
    return x._inplace_update(out) if inplace else out


# ---- jax implementations (module level: one jit cache entry each) -------------------------------
def _hardtanh(x, lo, hi):
    # torch's gradient is 0 at and beyond the bounds: select the clamped constant there
    y = _up(x)
    lo, hi = _s(lo, y), _s(hi, y)
    return nan_no_grad(y, jnp.where(y <= lo, lo, jnp.where(y >= hi, hi, y)), x.dtype).astype(x.dtype)


def _leaky_relu(x, slope):
    y = _up(x)
    return jnp.where(y > 0, y, y * _s(slope, y)).astype(x.dtype)


def _rrelu_train(x, noise):
    y = _up(x)
    return jnp.where(y >= 0, y, y * noise.astype(y.dtype)).astype(x.dtype)


def _elu(x, alpha, scale, input_scale):
    y = _up(x)
    a, s, i = _s(alpha, y), _s(scale, y), _s(input_scale, y)
    # (the double where: expm1 of a large positive x is inf, and its zero cotangent times inf a NaN gradient)
    # torch's backward at NaN: its scalar loop takes the positive branch (gradient `scale`), its vectorized
    # blend the negative one (NaN)
    pos = (y > 0) | (jnp.isnan(y) & scalar_tail(y, x.dtype, 2 * _aten_vector_bytes()))
    return (s * jnp.where(pos, y, a * jnp.expm1(jnp.where(pos, 0, y) * i))).astype(x.dtype)


def _gelu(x, approximate):
    y = _up(x)
    if approximate == "tanh":
        k = np.sqrt(2.0 / np.pi).astype(y.dtype)
        r = 0.5 * y * (1 + jnp.tanh(k * (y + 0.044715 * y * y * y)))
    else:
        r = 0.5 * y * (1 + lax.erf(y * np.asarray(1 / np.sqrt(2.0), y.dtype)))
    return r.astype(x.dtype)


def _silu(x):
    y = _up(x)
    return (y * jax.nn.sigmoid(y)).astype(x.dtype)


def _softplus_raw(y, beta, threshold):
    b = _s(beta, y)
    z = y * b
    # torch switches to the identity when beta*x > threshold (gradient exactly 1 there)
    th = _s(threshold, y)
    zc = jnp.where(z > th, th, z)  # not jnp.minimum: its gradient is split 1/2 at a tie
    return jnp.where(z > th, y, jnp.log1p(jnp.exp(zc)) / b)


def _softplus(x, beta, threshold):
    return _softplus_raw(_up(x), beta, threshold).astype(x.dtype)


def _mish(x):
    y = _up(x)
    return (y * jnp.tanh(_softplus_raw(y, 1.0, 20.0))).astype(x.dtype)


def _hardsigmoid(x):
    y = _up(x)
    # gradient 1/6 strictly inside (-3, 3), 0 at the bounds (torch)
    # (its backward tests -3 < x < 3 in both loops: 0 at NaN)
    return jnp.where(jnp.isnan(y), lax.stop_gradient(y), jnp.where(y <= -3, jnp.zeros((), y.dtype), jnp.where(
        y >= 3, jnp.ones((), y.dtype), y / 6 + 0.5))).astype(x.dtype)


@jax.custom_jvp
def _hardswish_f(y):
    # torch's kernel, literally: x * min(max(x + 3, 0), 6) / 6 (-0.0 below -3, NaN at -inf)
    return exact_div(y * jnp.minimum(jnp.maximum(y + 3, 0), 6), jnp.asarray(6, y.dtype))  # (a true division)


@_hardswish_f.defjvp
def _hardswish_jvp(primals, tangents):
    # torch's backward: 0 for x <= -3, x/3 + 1/2 for -3 < x < 3, 1 from 3 on (and at NaN)
    (y,), (t,) = primals, tangents
    d = jnp.where(y <= -3, jnp.zeros((), y.dtype), jnp.where(y < 3, exact_div(y, jnp.asarray(3, y.dtype)) + 0.5,
                                                                jnp.ones((), y.dtype)))
    return _hardswish_f(y), t * d


def _hardswish(x):
    return _hardswish_f(_up(x)).astype(x.dtype)


def _softshrink(x, lambd):
    # torch: (-lambd <= x <= lambd) ? 0 : (x > lambd ? x - lambd : x + lambd), so NaN passes through
    y = _up(x)
    la = _s(lambd, y)
    # (inside the band: a zero with the input's sign, as torch's sign(x) * max(|x| - lambd, 0))
    return nan_no_grad(y, jnp.where((y >= -la) & (y <= la), y * 0, jnp.where(y > la, y - la, y + la)),
                        x.dtype).astype(x.dtype)


def _r(t, dt):
    # a tangent stored in the half type (a cast pair: linear, so JAX transposes it into the same rounding)
    return t.astype(dt).astype(jnp.float32)


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def _tanhshrink_half(y, dt):
    # torch's composite x - tanh(x) in float16/bfloat16: tanh's result is stored in the type before the
    # subtraction (rounding once made 16,406 of 40,706 float16 values differ: x - tanh(x) of a small x is 0)
    return y - round_to(jnp.tanh(y), dt)


@_tanhshrink_half.defjvp
def _tanhshrink_half_jvp(dt, primals, tangents):
    # written so that its transpose is torch's backward: g + tanh_backward(-g, tanh(x)), the second term
    # g * (1 - t^2) in float32 rounded once, the sum rounded (by the cast back to the input's type)
    (y,), (t,) = primals, tangents
    th = round_to(jnp.tanh(y), dt)
    return _tanhshrink_half(y, dt), t - (1 - th * th) * _r(t, dt)


def _tanhshrink(x):
    y = _up(x)
    if x.dtype in _HALF:
        return _tanhshrink_half(y, np.dtype(x.dtype)).astype(x.dtype)
    return (y - jnp.tanh(y)).astype(x.dtype)


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def _softsign_half(y, dt):
    # torch's composite x / (1 + |x|) in float16/bfloat16: the denominator is stored in the type first
    return y / round_to(1 + jnp.abs(y), dt)


@_softsign_half.defjvp
def _softsign_half_jvp(dt, primals, tangents):
    # transposed, torch's DivBackward0 + AbsBackward0, each op rounded to the type: g / d and
    # sgn(x) * (-g * ((x / d) / d)), summed and rounded
    (y,), (t,) = primals, tangents
    d = round_to(1 + jnp.abs(y), dt)
    q = round_to(round_to(y / d, dt) / d, dt)
    return _softsign_half(y, dt), _r(t, dt) / d - q * _r(jnp.sign(y) * t, dt)


def _softsign(x):
    y = _up(x)
    if x.dtype in _HALF:
        return _softsign_half(y, np.dtype(x.dtype)).astype(x.dtype)
    return (y / (1 + jnp.abs(y))).astype(x.dtype)


def _threshold(x, th, value):
    y = _up(x) if x.dtype in _HALF else x
    return jnp.where(y <= _s(th, y), _s(value, y), y).astype(x.dtype)  # (torch's test: NaN passes through)


def _logsigmoid(x):
    y = _up(x)
    return jax.nn.log_sigmoid(y).astype(x.dtype)


def _glu(x, dim):
    a, b = jnp.split(_up(x), 2, axis=dim)
    return (a * jax.nn.sigmoid(b)).astype(x.dtype)


# ---- public API ---------------------------------------------------------------------------------
@_functional()
def relu(input, inplace=False):
    """max(0, x) elementwise (gradient 0 at 0, as torch).

    >>> import torchlike as torch
    >>> torch.nn.functional.relu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """
    if inplace:
        return relu_(input)
    return _TABLE[("torch", "relu")].fn(input)  # the table entry (torch.relu): one implementation


@_functional(torch=True)
def relu_(input):
    """In-place ``relu`` (torch.relu_ too)."""
    _need_tensors("relu_", input=input)  # torch's message names relu_ (torch's F.relu calls it for inplace=True)
    if _prof.MODES:   # a dispatch mode sees aten.relu_
        return _prof.MODE_INPLACE[0](relu_, "relu_", input, (), {})
    return input._inplace_update(_TABLE[("torch", "relu")].fn(input))


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val] (gradient 0 at the bounds, as torch)."""
    _need_tensors("hardtanh_" if inplace else "hardtanh", input=input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    for k, (n, v) in enumerate((("min_val", min_val), ("max_val", max_val)), 2):  # (then torch's C parser)
        if isinstance(v, Tensor) and (v.ndim or v.requires_grad):
            raise TypeError(f"hardtanh{'_' if inplace else ''}(): argument '{n}' (position {k}) must be Number, "
                            "not Tensor")
    if input.dtype is _dtype.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    check_numbers_fit(input.dtype, min_val, max_val)
    return _ret(input, dispatch(_hardtanh, (input, min_val, max_val), name="HardtanhBackward0"), inplace)


@_functional()
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def relu6(input, inplace=False):
    """min(max(0, x), 6)."""
    _need_tensors("relu6_" if inplace else "relu6", input=input)
    return hardtanh(input, 0.0, 6.0, inplace)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    _check_float(input, "leaky_relu_cpu")
    return _ret(input, dispatch(_leaky_relu, (input, negative_slope), name="LeakyReluBackward0"), inplace)


@_functional()
def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


@_functional(torch=True)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: slopes ~ U(lower, upper) in training, (lower+upper)/2 in eval."""
    _check_float(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return _ret(input, dispatch(_leaky_relu, (input, (lower + upper) / 2), name="LeakyReluBackward0"),
                    inplace)
    if _random._torch_stream(_random.default_generator, (input._value,)):
        # torch's CPU kernel draws one double uniform per element <= 0, in order, between the bounds in
        # the opmath type (float for float32/half/bfloat16, double for float64), then rounds it to the dtype
        neg = np.asarray(input._value) <= 0
        opmath = np.float64 if input.dtype.np == np.float64 else np.float32
        lo, hi = (float(opmath(v)) for v in (lower, upper))
        u = np.asarray(_random.draw("uniform", (int(neg.sum()),), np.float64, None, args=(0.0, 1.0)))
        r = u * (hi - lo) + lo  # (uniform_real_distribution in Activation.cpp: not fused into an FMA)
        noise = np.ones(neg.shape, np.float32 if input.dtype.np != np.float64 else np.float64)
        noise[neg] = r
        noise = Tensor._wrap(jnp.asarray(noise), input.device)
    else:
        noise = Tensor._wrap(_random.draw("uniform", input.shape, input.dtype.np, None, args=(lower, upper)),
                             input.device)
    return _ret(input, dispatch(_rrelu_train, (input, noise), name="RreluWithNoiseBackward0"), inplace)


@_functional(torch=True)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    _check_float(input, "elu_cpu")
    return _ret(input, dispatch(_elu, (input, alpha, 1.0, 1.0), name="EluBackward0"), inplace)


@_functional()
def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    _check_float(input, "elu_cpu")
    return _ret(input, dispatch(_elu, (input, _SELU_ALPHA, _SELU_SCALE, 1.0), name="EluBackward0"), inplace)


@_functional(torch=True)
def selu_(input):
    return selu(input, inplace=True)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _check_float(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _ret(input, dispatch(_elu, (input, alpha, 1.0, 1.0 / alpha), name="CeluBackward0"), inplace)


@_functional(torch=True)
def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def gelu(input, approximate="none", *, out=None):
    """Gaussian error linear unit; ``approximate='tanh'`` uses the tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_float(input, "GeluKernelImpl")
    r = dispatch(_gelu, (input,), (("approximate", approximate),), name="GeluBackward0")
    return r if out is None else _write_out(out, r, "gelu")


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def silu(input, inplace=False):
    """x * sigmoid(x)."""
    _check_float(input, "silu_cpu", complex_ok=True)
    return _ret(input, dispatch(_silu, (input,), name="SiluBackward0"), inplace)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    _check_float(input, "mish_cpu")
    return _ret(input, dispatch(_mish, (input,), name="MishBackward0"), inplace)


def _int_to_float(input):
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        return input.to(_dtype.get_default_dtype())
    return input


@_functional()
def sigmoid(input):
    """1 / (1 + exp(-x)); integer inputs give the default float dtype (torch.sigmoid, the table entry)."""
    return input.sigmoid()


@_functional()
def tanh(input):
    """Hyperbolic tangent; integer inputs give the default float dtype (torch.tanh, the table entry)."""
    return input.tanh()


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    _check_float(input, "hardsigmoid_cpu")
    return _ret(input, dispatch(_hardsigmoid, (input,), name="HardsigmoidBackward0"), inplace)


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    _check_float(input, "hardswish_cpu")
    return _ret(input, dispatch(_hardswish, (input,), name="HardswishBackward0"), inplace)


@_functional(out=True)
@_mfmt.pointwise_follows((0, "input"))
def softshrink(input, lambd=0.5):
    """x - lambd, x + lambd or 0 (shrink towards 0 by lambd)."""
    _check_float(input, "softshrink_check")
    top = float(ml_dtypes.finfo(input.dtype.np).max) if input.dtype.is_floating_point else float("inf")
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_dtype._CAP[input.dtype.name]}, "
                           f"but found {float(lambd):g}")
    return dispatch(_softshrink, (input, lambd), name="SoftshrinkBackward0")


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def tanhshrink(input):
    """x - tanh(x)."""
    if getattr(input, "dtype", None) is _dtype.bool:  # (torch's composite: input - tanh(input))
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return dispatch(_tanhshrink, (_int_to_float(input),), name="SubBackward0")


@_functional(out=True)
@_mfmt.pointwise_follows((0, "input"))
def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    _check_float(input, "softplus_cpu")
    return dispatch(_softplus, (input, beta, threshold), name="SoftplusBackward0")


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def softsign(input):
    """x / (1 + |x|)."""
    if getattr(input, "dtype", None) is _dtype.bool:  # (torch's composite: input / (1 + input.abs()))
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return dispatch(_softsign, (_int_to_float(input),), name="DivBackward0")


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value."""
    if input.dtype is _dtype.bool or input.dtype.is_complex:
        raise NotImplementedError(f'"threshold_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    check_numbers_fit(input.dtype, threshold, value)
    return _ret(input, dispatch(_threshold, (input, threshold, value), name="ThresholdBackward0"), inplace)


@_functional(torch=True)
def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


@_functional(out=True, aten="log_sigmoid_forward")
def logsigmoid(input):
    """log(sigmoid(x)), computed stably."""
    _check_float(input, "log_sigmoid_cpu")
    return dispatch(_logsigmoid, (input,), name="LogSigmoidBackward0")


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_common(input, dim, dtype, log, neg, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {tp_name(input)}")
    if dim is None:
        dim = _get_softmax_dim(name, input.ndim, 4)
    # the one implementation (torchlike._ops.special); torch's F.X calls ``input.X(dim)`` (softmin: ``softmax``), so
    # a dim of the wrong type is the method's parser error, at position 1
    return softmax_common(input, dim, dtype, log, neg, "softmax" if name == "softmin" else name, dim_pos=1)


@_functional()
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``; ``dtype`` casts the input first.

    >>> import torchlike as torch
    >>> torch.nn.functional.softmax(torch.zeros(2), dim=0)
    tensor([0.5000, 0.5000])
    """
    return _softmax_common(input, dim, dtype, False, False, "softmax")


@_functional(torch=True)
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``."""
    return _softmax_common(input, dim, dtype, False, True, "softmin")


@_functional()
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along ``dim``, computed stably."""
    return _softmax_common(input, dim, dtype, True, False, "log_softmax")


@_functional()
@_mfmt.pointwise_follows((0, "input"), sliced=True)
def glu(input, dim=-1):
    """a * sigmoid(b) where a, b are the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    _check_float(input, "glu_cpu")
    return dispatch(_glu, (input,), (("dim", d),), name="GluBackward0")


def _gumbel(logits, g, tau, dim, hard):
    y = jax.nn.softmax((logits + g.astype(logits.dtype)) / _s(tau, logits), axis=dim)
    if not hard:
        return y
    idx = jnp.argmax(y, axis=dim, keepdims=True)
    onehot = (jnp.arange(y.shape[dim]).reshape([-1 if i == dim else 1 for i in range(y.ndim)]) == idx)
    hardy = onehot.astype(y.dtype)
    # straight-through estimator: forward = one-hot, gradient = softmax's
    return hardy - lax.stop_gradient(y) + y


@_functional()
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Sample from the Gumbel-softmax distribution; ``hard=True`` returns one-hot (straight-through)."""
    _need_tensors("empty_like", input=logits)
    continuous_dtype(logits, "Exponential", False)  # (torch draws with exponential_)
    e = draw("exponential", logits.shape, logits.dtype.np, None, args=(1.0,))
    g = Tensor._wrap(-jnp.log(e), logits.device)
    d = _wrap_dim(dim, logits.ndim)
    return dispatch(_gumbel, (logits, g, tau), (("dim", d), ("hard", bool(hard))), name="SoftmaxBackward0")
