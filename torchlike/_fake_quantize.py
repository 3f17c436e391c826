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

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine", "fused_moving_avg_obs_fake_quant",
           "aten_choose_qparams"]


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


_SMALL_SCALE = np.float32(6.1e-5)


def aten_choose_qparams(lo, hi, qmin, qmax, preserve_sparsity=False):
    """ATen's ChooseQuantizationParams (QuantUtils.h): the scale (a double, stored as float32 by callers) and the
    nudged zero point for the float32 range ``[lo, hi]`` (``preserve_sparsity``: symmetric around 0)."""
    lo, hi = np.float32(lo), np.float32(hi)
    if lo < 0 and hi > 0 and preserve_sparsity:
        sym_qmin, sym_qmax = -((qmax - qmin) // 2 + 1), (qmax - qmin) // 2
        max_scale = max(abs(float(lo) / sym_qmin), abs(float(hi) / sym_qmax))
        lo, hi = np.float32(max_scale * sym_qmin), np.float32(max_scale * sym_qmax)
    lo, hi = min(lo, np.float32(0)), max(hi, np.float32(0))
    scale = (float(hi) - float(lo)) / (qmax - qmin)
    if np.float32(scale) == 0 or np.isinf(np.float32(1) / np.float32(scale)):
        scale = 0.1
    if scale < _SMALL_SCALE:
        org = np.float32(scale)
        scale = float(_SMALL_SCALE)
        if lo == 0:
            hi = np.float32(_SMALL_SCALE * np.float32(qmax - qmin))
        elif hi == 0:
            lo = np.float32(-_SMALL_SCALE * np.float32(qmax - qmin))
        else:
            amp = np.float32(_SMALL_SCALE / org)
            lo, hi = np.float32(lo * amp), np.float32(hi * amp)
    from_min, from_max = qmin - float(lo) / scale, qmax - float(hi) / scale
    err_min, err_max = abs(qmin) - abs(float(lo) / scale), abs(qmax) - abs(float(hi) / scale)
    z = from_min if err_min < err_max else from_max
    if lo < 0 and hi > 0 and preserve_sparsity:
        z = (qmin + qmax) / 2
    return scale, int(qmin if z < qmin else qmax if z > qmax else np.rint(z))


@register("fused_moving_avg_obs_fake_quant", method=False)
def fused_moving_avg_obs_fake_quant(self, observer_on, fake_quant_on, running_min, running_max, scale, zero_point,
                                    averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant=False,
                                    symmetric_quant=False):
    """Observe (moving-average min/max, updated in place with the scale and zero point) and fake-quantize in one
    op, as ATen's CPU kernel: ``FusedMovingAvgObsFakeQuantize``'s forward."""
    x = self.detach()
    if per_row_fake_quant:
        if x.ndim != 2:
            axes = list(range(x.ndim))
            axes[ch_axis], axes[0] = 0, ch_axis
            x = x.permute(axes).flatten(1)
        n = x.shape[0]
        if running_min.numel() == 0:
            running_min.resize_(n).fill_(float("inf"))
            running_max.resize_(n).fill_(float("-inf"))
            scale.resize_(n)
            zero_point.resize_(n)
    if int(observer_on.item()):
        xs = np.asarray(x.numpy(), np.float32)
        cur_min = xs.min(axis=1) if per_row_fake_quant else np.float32(xs.min()).reshape(1)
        cur_max = xs.max(axis=1) if per_row_fake_quant else np.float32(xs.max()).reshape(1)
        rmin = np.asarray(running_min.numpy(), np.float32).reshape(-1)
        rmax = np.asarray(running_max.numpy(), np.float32).reshape(-1)
        c = np.float32(averaging_const)
        with np.errstate(invalid="ignore"):  # (the first batch: inf - inf, not taken)
            rmin = np.where(np.isinf(rmin), cur_min, rmin + (c * (cur_min - rmin)).astype(np.float32))
            rmax = np.where(np.isinf(rmax), cur_max, rmax + (c * (cur_max - rmax)).astype(np.float32))
        rmin, rmax = rmin.astype(np.float32), rmax.astype(np.float32)
        running_min.copy_(Tensor._wrap(rmin.reshape(running_min.shape), running_min._dev))
        running_max.copy_(Tensor._wrap(rmax.reshape(running_max.shape), running_max._dev))
        qp = [aten_choose_qparams(a, b, quant_min, quant_max, symmetric_quant) for a, b in zip(rmin, rmax)]
        scale.copy_(Tensor._wrap(np.array([q[0] for q in qp], np.float32).reshape(scale.shape), scale._dev))
        zero_point.copy_(Tensor._wrap(np.array([q[1] for q in qp]).astype(np.int32).reshape(zero_point.shape),
                                      zero_point._dev))
    if not int(fake_quant_on.item()):
        return self.clone()
    if per_row_fake_quant:
        return fake_quantize_per_channel_affine(self, scale, zero_point, ch_axis, quant_min, quant_max)
    return fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max)
