"""Activations torch also has in its own namespace and as Tensor methods (``torch.hardshrink``,
``torch.prelu``): table entries here, declared in the ``nn.functional`` namespace too (``F.hardshrink is
torch.hardshrink`` in torch) and shares the half-precision helpers below with its other activations.

>>> import torchlike
>>> torchlike.tensor([-1.0, 0.2, 2.0]).hardshrink(0.5)
tensor([-1.,  0.,  2.])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import _autocast as _amp, _dtype
from . import checks as C
from .. import _memory_format as _mfmt
from .._dispatch import dispatch
from ..tensor import Tensor
from .registry import register

__all__ = ["hardshrink", "prelu"]

_HALF = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def _up(x):
    """Compute half types in float32 (torch's opmath type)."""
    return x.astype(jnp.float32) if x.dtype in _HALF else x


def _s(v, x):
    """A scalar hyper-parameter in x's compute dtype."""
    return jnp.asarray(v).astype(x.dtype)


def _check_float(x, kernel, complex_ok=False):
    """torch's refusal of a non-floating input by the activation's CPU kernel (most refuse complex too)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{kernel.split('_')[0]}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    d = x.dtype
    if not (d.is_floating_point or complex_ok and d.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[d.name]}\'')


# ---- jax implementations (module level: one jit cache entry each) -------------------------------
def _prelu(x, w):
    y, wv = _up(x), _up(w)
    if x.ndim >= 2 and wv.size > 1:
        wv = wv.reshape((1, -1) + (1,) * (x.ndim - 2))
    elif wv.ndim > 0 and wv.size == 1:
        wv = wv.reshape(())
    return jnp.where(y > 0, y, wv * y).astype(x.dtype)


def nan_no_grad(y, r, dt=None):
    """``r``, but NaN with gradient 0 where ``y`` is NaN and torch's backward kernel runs vectorized.

    torch's CPU backward of the clipping activations (``cpu_kernel_vec``) compares with blends that give 0 at
    NaN in its vectorized loop (two 32-byte vectors per step, from the start of the contiguous tensor) and
    passes the gradient (1) in the scalar loop of the last ``n % (64 / itemsize)`` elements; ``dt`` is the
    input's dtype (``y`` may be its float32 upcast). The value is NaN either way."""
    return jnp.where(jnp.isnan(y) & ~scalar_tail(y, dt), jax.lax.stop_gradient(y), r)


def scalar_tail(y, dt=None, width=64):
    """The elements torch's CPU kernels (``cpu_kernel_vec``) leave to their scalar loop: the last
    ``n % (width / itemsize)`` of the contiguous tensor (``dt``: the input's dtype, ``y`` may be its upcast;
    ``width``: the bytes one vectorized step takes, 64 for the clamps' backward; elu's takes two ``Vectorized``
    registers, 128 bytes with torch 2.13's AVX512 kernels and 64 with its AVX2 ones, as measured).  Where a
    kernel's vectorized and scalar forms treat NaN differently, its gradient at NaN depends on this position."""
    n = y.size
    step = width // np.dtype(y.dtype if dt is None else dt).itemsize
    return jax.lax.broadcasted_iota(np.int32, (n,), 0).reshape(y.shape) >= n - n % step


def _hardshrink(x, lambd):
    y = _up(x)
    la = _s(lambd, y)
    # torch: (-lambd <= x <= lambd) ? 0 : x, so NaN passes through
    r = jnp.where((y >= -la) & (y <= la), jnp.zeros((), y.dtype), y)
    return nan_no_grad(y, r, x.dtype).astype(x.dtype)  # (torch's gradient at NaN: see nan_no_grad)


# ---- the ops -------------------------------------------------------------------------------------
@register("prelu", namespaces=("torch", "nn.functional"))
@_amp.lower
@_mfmt.pointwise_follows((0, "input"))
def prelu(input, weight):
    """x if x > 0 else weight * x, ``weight`` broadcast over the channel dim (dim 1).

    >>> import torchlike
    >>> torchlike.prelu(torchlike.tensor([-2.0, 3.0]), torchlike.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and weight.dtype is not input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_dtype._CAP[input.dtype.name]} and "
                           f"{_dtype._CAP[weight.dtype.name]}")  # (torch's first check)
    _check_float(input, "prelu_cpu")
    try:
        wdim = weight.ndim
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("prelu", (weight, "Tensor", "weight", 1))
        raise
    if wdim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        ch = input.shape[1] if input.ndim >= 2 else 1
        if n != ch:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                               f"= {n} and channel size = {ch}.")
    return dispatch(_prelu, (input, weight), name="PreluKernelBackward0")


@register("hardshrink", namespaces=("torch", "nn.functional"), out=True, out_overlap="partial")
@_mfmt.pointwise_follows((0, "input"))
def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0.

    >>> import torchlike
    >>> torchlike.hardshrink(torchlike.tensor([-1.0, 0.2]), 0.5)
    tensor([-1.,  0.])
    """
    _check_float(input, "hardshrink_cpu")
    return dispatch(_hardshrink, (input, lambd), name="HardshrinkBackward0")
