"""torch.nn.init: in-place parameter initialisers (all run without recording autograd).

Random initialisers draw exactly as torch's do (``tensor.uniform_``/``normal_`` in the tensor's dtype,
in torch's order), so a seeded CPU program gets torch's weights.

>>> import torchlike as torch
>>> w = torch.empty(3, 5)
>>> _ = torch.nn.init.constant_(w, 0.5); float(w.sum())
7.5
"""
from __future__ import annotations

import math
import warnings

import jax.numpy as jnp
import numpy as np

from .. import _random
from .._creation import empty_like, tensor as _tensor
from .._ops.basic import check_fill_value
from .._ops.nonzero_where import where
from ..autograd import grad_mode
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]


def _write(tensor, array):
    """Overwrite ``tensor``'s values in place (no autograd, like torch's init under no_grad)."""
    with grad_mode.no_grad():
        tensor._inplace_update(Tensor._wrap(jnp.asarray(array).astype(tensor._value.dtype), tensor.device))
    return tensor


def _draw(kind, tensor, generator, args):
    return _random.draw(kind, tuple(tensor.shape), tensor._value.dtype, generator, args=args, device=tensor._dev)


# gains that do not depend on a parameter; leaky_relu's depends on its negative slope
_FIXED_GAINS = {**dict.fromkeys(("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                 "conv_transpose3d", "sigmoid"), 1),
                "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (torch.nn.init.calculate_gain).

    >>> import torchlike as torch
    >>> torch.nn.init.calculate_gain('tanh'), torch.nn.init.calculate_gain('leaky_relu', 0.2)
    (1.6666666666666667, 1.3867504905630728)
    """
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    try:
        return _FIXED_GAINS[nonlinearity]
    except (KeyError, TypeError):
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}") from None


# (the public uniform_/normal_/constant_ reach a TorchFunctionMode, as torch's do; the other initializers
# fill through these private forms, as torch's do, so a mode does not see them twice)
def _uniform(tensor, a, b, generator):
    return _write(tensor, _draw("uniform", tensor, generator, (a, b)))


def _normal(tensor, mean, std, generator):
    return _write(tensor, _draw("normal", tensor, generator, (mean, std)))


def _constant(tensor, val):
    check_fill_value(val, tensor.dtype)  # (torch's fill_)
    if isinstance(val, complex) and not tensor.dtype.is_complex:  # (its imaginary part is 0 here)
        val = val.real
    return _write(tensor, jnp.full(tuple(tensor.shape), val, dtype=tensor._value.dtype))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    return _uniform(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    return _normal(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) truncated to [a, b], by rejection as torch 2.13 does: redraw whole normal
    tensors where out of bounds when the window holds > 30% of the mass, else uniform candidates on
    [a, b] accepted with probability pdf / peak."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


# torch.nn.init's private helpers, which libraries import by name (mup's width-aware initialisers wrap
# _no_grad_uniform_/_no_grad_normal_/_no_grad_fill_/_no_grad_trunc_normal_): each fills through the Tensor
# method under no_grad, as torch's do, so a TorchFunctionMode sees the method call
def _no_grad_uniform_(tensor, a, b, generator=None):
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor, val):
    with grad_mode.no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with grad_mode.no_grad():
        return tensor.zero_()


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    if tensor.is_meta:  # no values to draw (torch returns it untouched, the generator too)
        return tensor
    with grad_mode.no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = (_tensor(v, dtype=tensor.dtype).item() for v in (a, b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not bool(mask.any()):
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator),
                                         result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        accept_buf = empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates = tensor.clone().sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
        if bool(pending.any()):
            result = tensor
            while True:
                candidates = empty_like(tensor).uniform_(a, b, generator=generator)
                result = where(pending, candidates, result)
                candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates),
                                          pending)
                if not bool(pending.any()):
                    break
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fill with ``val``."""
    return _constant(tensor, val)


def ones_(tensor):
    return _constant(tensor, 1.0)


def zeros_(tensor):
    return _constant(tensor, 0.0)


def eye_(tensor):
    """Fill a 2-D tensor with the identity (as many ones as fit)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, jnp.eye(*tensor.shape, dtype=tensor._value.dtype))


def dirac_(tensor, groups=1):
    """Fill a 3/4/5-D conv weight with the Dirac delta (identity convolution) per group."""
    dims = tensor.ndim
    if dims not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per = sizes[0] // groups
    min_dim = min(per, sizes[1])
    out = np.zeros(tuple(sizes), dtype=np.float64)
    center = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            out[(g * per + d, d) + center] = 1
    return _write(tensor, out)


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): dims 1 and 0, each times the receptive field (the product of dims 2...)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    field = math.prod(tensor.shape[2:])
    return tensor.size(1) * field, tensor.size(0) * field


_FAN_MODES = ["fan_in", "fan_out"]


def _calculate_correct_fan(tensor, mode):
    chosen = mode.lower()
    if chosen not in _FAN_MODES:
        raise ValueError(f"Mode {chosen} not supported, please use one of {_FAN_MODES}")
    return _calculate_fan_in_and_fan_out(tensor)[_FAN_MODES.index(chosen)]


def _glorot_std(tensor, gain):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    limit = math.sqrt(3.0) * _glorot_std(tensor, gain)
    return _uniform(tensor, -limit, limit, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    return _normal(tensor, 0.0, _glorot_std(tensor, gain), generator)


def _he_std(tensor, a, mode, nonlinearity):
    """gain / sqrt(fan), or None (after torch's warning) for a tensor with no elements."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)  # mode is checked before the nonlinearity, as in torch
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-b, b) with b = sqrt(3) * gain / sqrt(fan).

    >>> import torchlike as torch
    >>> w = torch.nn.init.kaiming_uniform_(torch.empty(64, 16), nonlinearity="relu")
    >>> bool(w.abs().max() <= (6 / 16) ** 0.5)
    True
    """
    std = _he_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    limit = math.sqrt(3.0) * std
    return _uniform(tensor, -limit, limit, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with std = gain / sqrt(fan)."""
    std = _he_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else _normal(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix (QR of a Gaussian matrix, sign-corrected), times ``gain``."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    # flatten trailing dims: a (rows, everything else) matrix is made orthogonal
    rows, cols = tensor.shape[0], tensor.numel() // tensor.shape[0]
    g = _random.draw("normal", (rows, cols), tensor._value.dtype, generator, args=(0.0, 1.0), device=tensor._dev)
    if rows < cols:
        g = g.T
    q, r = jnp.linalg.qr(g)
    q = q * jnp.sign(jnp.diagonal(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """2-D tensor: N(0, std^2) with ceil(sparsity * rows) zeros per column."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    vals = np.array(_draw("normal", tensor, generator, (0.0, std)))
    # torch: a fresh randperm(rows) from the default generator per column; its first rows are zeroed
    for col in range(cols):
        rows_zeroed = np.asarray(_random.draw("perm", (rows,), np.int64, None))[:num_zeros]
        vals[rows_zeroed, col] = 0
    return _write(tensor, vals)


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of `nn.init.{new.__name__}`.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = new.__name__[:-1]
    old.__doc__ = f"Deprecated alias of :func:`{new.__name__}`."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
