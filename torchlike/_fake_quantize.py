"""Fake quantization (``torch.fake_quantize_per_tensor_affine`` / ``fake_quantize_per_channel_affine``): a float
tensor rounded to the values its quantized version stands for, with the straight-through gradient (1 where the
quantized value was inside ``[quant_min, quant_max]``, else 0).  Numerics of torch's CPU kernel, measured against
it: ``q = clamp(rint(f32(x * (1/scale))) + zero_point)``, ``out = f32(f32(q - zero_point) * scale)``.

>>> import torchlike
>>> torchlike.fake_quantize_per_tensor_affine(torchlike.tensor([0.26, 9.0]), 0.1, 0, 0, 50)
tensor([0.3000, 5.0000])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype
from ._dispatch import dispatch
from ._ops.registry import register
from .tensor import Tensor

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _fake_quant_fn(x, scale, zp, *, qmin, qmax):
    inv = (jnp.float32(1) / scale.astype(jnp.float32)).astype(jnp.float32)
    zp = zp.astype(jnp.float32)
    q = jnp.round(jax.lax.stop_gradient(x) * inv) + zp  # (rint of the float32 product, then the zero point)
    mask = (q >= qmin) & (q <= qmax)
    y = (jnp.clip(q, qmin, qmax) - zp) * scale.astype(jnp.float32)
    return y + (x - jax.lax.stop_gradient(x)) * mask.astype(x.dtype)  # straight-through: the gradient is mask


def _check(input, quant_min, quant_max):
    if input.dtype is not _dtype.float32:
        raise NotImplementedError(f"torchlike's fake quantization takes float32 tensors, not {input.dtype}")
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")


@register("fake_quantize_per_tensor_affine", method=False)
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """``input`` quantized with ``scale``/``zero_point`` to ``[quant_min, quant_max]`` and dequantized (float)."""
    _check(input, quant_min, quant_max)
    s = scale.float() if isinstance(scale, Tensor) else np.float32(scale)
    z = zero_point if isinstance(zero_point, Tensor) else np.int32(zero_point)
    return dispatch(_fake_quant_fn, (input, s, z), (("qmin", quant_min), ("qmax", quant_max)))


@register("fake_quantize_per_channel_affine", method=False)
def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """Per-channel fake quantization: one scale and zero point per index along ``axis``."""
    _check(input, quant_min, quant_max)
    shape = [1] * input.ndim
    shape[axis] = -1
    return dispatch(_fake_quant_fn, (input, scale.float().reshape(shape), zero_point.reshape(shape)),
                    (("qmin", quant_min), ("qmax", quant_max)))
