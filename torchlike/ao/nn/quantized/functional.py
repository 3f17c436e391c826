"""torch.ao.nn.quantized.functional: ops on quantized tensors, with the numerics of torch's x86 CPU backend.

The integer accumulation is exact (int32 for linear, float64 for convolutions: exact for any realistic size) on CPUs
with AVX512-VNNI; without it (and in its depthwise convolutions everywhere) fbgemm saturates neighbouring products
to int16, and so does torchlike (``_fbgemm``); the float epilogues run on the host in numpy, one IEEE float32
rounding per step as the backends' vector code does (XLA could contract a multiply-add).  Measured against torch
2.13 (tests/test_quantized_static.py):

- ``linear`` (fbgemm): ``clamp(rint(f32(f32(acc) + f32(bias / (sx*sw))) * f32(sx*sw / sy)) + zy)``;
- ``conv2d`` (oneDNN, which the x86 engine picks for symmetric weights and at most 100 groups on a VNNI CPU):
  ``clamp(rint(f32(f32(f32(acc * sx) * sw) + bias) * (1/sy) + zy))`` (``_onednn_requantize``); otherwise fbgemm's,
  as ``linear``, its depthwise kernels saturating on every CPU;
- ``add`` (the ATen kernel): vectorised elements dequantize with ``fma(s, q, -z*s)``, add, and quantize as
  ``rint(y * (1/sy)) + zy``; the scalar tail (past the last multiple of 64 in each thread's chunk) does ``(q - z) * s`` and
  ``rint(y * (1/sy) + zy)``; ``mul`` requantizes the integer product ``rint((qa-za)(qb-zb) * m) + zy``.

>>> import torchlike
>>> from torchlike.ao.nn.quantized import functional as qF
>>> q = torchlike.quantize_per_tensor(torchlike.tensor([-1.0, 0.5]), 0.1, 10, torchlike.quint8)
>>> qF.relu(q).int_repr()
tensor([10, 15], dtype=torch.uint8)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .... import _dtype
from ...._dispatch import dispatch
from ...._quantized import QUANTIZED_FUNCTIONS, _make, _QTensor, dequantize, int_repr, per_tensor_affine, \
    quantize_per_tensor
from ...._global_settings import get_num_threads
from . import _fbgemm
from ....nn import functional as F
from ....tensor import Tensor

__all__ = ["linear", "conv2d", "relu", "relu6", "max_pool2d", "add", "mul", "cat", "conv1d", "conv3d", "avg_pool2d",
           "adaptive_avg_pool2d"]

f32 = np.float32
# the vectorised loop's step in elements: the scalar tail is what is left of 64, measured on an AVX-512 machine and on
# an AVX2 EPYC alike (cpu_kernel_vec steps two AVX2 vectors of quint8 at a time)
_VEC = 64
_GRAIN = 32768  # at::internal::GRAIN_SIZE


def _check_activation(x, op):
    if not isinstance(x, _QTensor) or x._q[0] is not _dtype.quint8 or x._q[4] is not None:
        raise NotImplementedError(f"torchlike's quantized {op} takes a quint8 per-tensor quantized input (torch's "
                                  "x86 backend); other inputs are not supported (see docs/differences.md)")


def _ints(q):
    return np.asarray(int_repr(q)._value)


def _weight_scales(w, n):
    """The weight's scales (float32, one per output channel) and whether its zero points are all 0."""
    dt, _, scale, zp, axis = w._q
    if axis is None:
        return np.full(n, f32(scale), f32), zp == 0
    if axis != 0:
        raise NotImplementedError("torchlike's quantized linear/conv take per-channel weights along axis 0 only")
    return np.asarray(scale._value).astype(f32), not np.asarray(zp._value).any()


def _quint8(ints, scale, zero_point, dev):
    return _make(np.asarray(ints, np.uint8), (_dtype.quint8, per_tensor_affine, float(scale), int(zero_point),
                                              None), dev)


def _linear_acc(x, w, zx, zw):
    return jnp.matmul(x.astype(jnp.int32) - zx, (w.astype(jnp.int32) - zw[:, None]).T,
                      preferred_element_type=jnp.int32)


def linear(input, weight, bias=None, scale=None, zero_point=None, *, relu=False):
    """The quantized linear layer (fbgemm): quint8 ``input``, qint8 ``weight`` (per tensor or per channel), float
    ``bias``; the output quantized with ``scale``/``zero_point`` (``relu``: clamped at the zero point)."""
    _check_activation(input, "linear")
    sx, zx = f32(input._q[2]), input._q[3]
    n = weight.shape[0]
    sw, _ = _weight_scales(weight, n)
    zw = np.zeros(n, np.int32) if weight._q[4] is None and weight._q[3] == 0 else (
        np.full(n, weight._q[3], np.int32) if weight._q[4] is None else np.asarray(weight._q[3]._value, np.int32))
    acc_fn = _linear_acc_saturated if _fbgemm.saturates() else _linear_acc
    acc = np.asarray(dispatch(acc_fn, (int_repr(input), int_repr(weight), np.int32(zx), zw), diff=False)._value)
    return _fbgemm_requantize(acc, sx * sw, bias, scale, zero_point, relu, input._dev, -1, weight._q[4] is not None)


def _fbgemm_requantize(acc, ats, bias, scale, zero_point, relu, dev, axis, per_channel):
    """fbgemm's AVX2 epilogue for a float bias, ``rint(f32(f32(acc) + bias / ats) * f32(ats / sy)) + zy``, with
    ``ats`` (the activation scale times each channel's weight scale) along ``axis`` of ``acc``: per channel the
    bias is divided by ``ats``; per tensor it is multiplied by ``f32(1 / ats)`` in one fused multiply-add with the
    accumulator (measured: either rounding alone is off by one on ties)."""
    shape = [1] * acc.ndim
    shape[axis] = -1
    ats = ats.astype(f32).reshape(shape)
    mult = (ats / f32(scale)).astype(f32)
    raw = acc.astype(f32)
    if bias is not None:
        b = np.asarray(bias.detach().float()._value).reshape(shape)
        raw = (raw + (b / ats).astype(f32)).astype(f32) if per_channel else _fma32(b, f32(1) / ats, raw)
    out = np.rint((raw * mult).astype(f32)).astype(np.int64) + int(zero_point)
    return _quint8(np.clip(out, int(zero_point) if relu else 0, 255), scale, zero_point, dev)


def _fma32(a, b, c):
    """``a * b + c`` in float32 with one rounding: the float64 product is exact, the sum is rounded to odd (TwoSum's
    error picks the odd neighbour), and rounding that to float32 is then correct."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    p, c = a * b, np.asarray(c, np.float64)
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    even = (s.view(np.int64) & 1) == 0
    s = np.where((err != 0) & even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(f32)


def _linear_acc_saturated(x, w, zx, zw):
    lead, k = x.shape[:-1], x.shape[-1]
    x2 = x.reshape(-1, k)
    raw = _fbgemm.saturated_acc(x2.T[None, None], w[None])[0, 0].T  # (M, N)
    x32, w32 = x2.astype(jnp.int32), w.astype(jnp.int32)
    acc = raw - zx * w32.sum(1)[None, :] - zw[None, :] * x32.sum(1)[:, None] + k * zx * zw[None, :]
    return acc.reshape(*lead, w.shape[0])


def _conv_acc(x, w, zx, *, stride, padding, dilation, groups):
    xf = x.astype(jnp.float64) - zx
    return jax.lax.conv_general_dilated(xf, w.astype(jnp.float64), stride, [(p, p) for p in padding],
                                        rhs_dilation=dilation, feature_group_count=groups,
                                        precision=jax.lax.Precision.HIGHEST)


def _conv_acc_saturated(x, w, zx, *, stride, padding, dilation, groups):
    """fbgemm's im2col convolution: pixels padded with the zero point, the reduction ordered (kh, kw, channel)."""
    o, cg, kh, kw = w.shape
    xp = jnp.pad(x.astype(jnp.float32), ((0, 0), (0, 0)) + tuple((p, p) for p in padding), constant_values=zx)
    pt = jax.lax.conv_general_dilated_patches(xp, (kh, kw), stride, "VALID", rhs_dilation=dilation,
                                              precision=jax.lax.Precision.HIGHEST)
    n, _, oh, ow = pt.shape
    pt = pt.reshape(n, groups, cg, kh * kw, oh * ow).transpose(0, 1, 3, 2, 4).reshape(n, groups, -1, oh * ow)
    wr = w.reshape(groups, o // groups, cg, kh * kw).transpose(0, 1, 3, 2).reshape(groups, o // groups, -1)
    acc = _fbgemm.saturated_acc(pt.astype(jnp.int32), wr)
    acc = acc - zx * wr.astype(jnp.int32).sum(-1)[None, :, :, None]
    return acc.reshape(n, o, oh, ow)


def _pair(v, n=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def conv2d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1, padding_mode="zeros", scale=1.0,
           zero_point=0, dtype=_dtype.quint8, *, relu=False):
    """The quantized 2-D convolution (NCHW quint8 ``input``, qint8 ``weight``, float ``bias``), output quantized
    with ``scale``/``zero_point``."""
    _check_activation(input, "conv2d")
    if padding_mode != "zeros":
        raise NotImplementedError(f"torchlike's quantized conv2d supports padding_mode='zeros' only, not "
                                  f"{padding_mode!r}")
    if dtype is not _dtype.quint8:
        raise NotImplementedError(f"torchlike's quantized conv2d outputs quint8 only, not {dtype}")
    n = weight.shape[0]
    sw, symmetric = _weight_scales(weight, n)
    if not symmetric:
        raise NotImplementedError("torchlike's quantized conv2d needs symmetric weights (zero points 0: the x86 "
                                  "backend's oneDNN path); affine weights are not supported")
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    geometry = (("stride", stride), ("padding", padding), ("dilation", dilation), ("groups", groups))
    if not _fbgemm.onednn_conv(groups):  # (the x86 engine's fbgemm path)
        if _fbgemm.conv_saturates(input.shape[1], n, tuple(weight.shape[2:]), stride, padding, dilation, groups):
            acc = dispatch(_conv_acc_saturated, (int_repr(input), int_repr(weight), np.int32(input._q[3])),
                           geometry, diff=False)
        else:
            acc = dispatch(_conv_acc, (int_repr(input), int_repr(weight), np.float64(input._q[3])), geometry,
                           diff=False)
        return _fbgemm_requantize(np.asarray(acc._value), f32(input._q[2]) * sw, bias, scale, zero_point, relu,
                                  input._dev, 1, weight._q[4] is not None)
    acc = dispatch(_conv_acc, (int_repr(input), int_repr(weight), np.float64(input._q[3])), geometry, diff=False)
    return _onednn_requantize(np.asarray(acc._value), input._q[2], sw, bias, scale, zero_point, relu, input._dev)


def _onednn_requantize(acc, sx, sw, bias, scale, zero_point, relu, dev):
    """oneDNN's epilogue (its brgemm convolution): the exact accumulator to float32, times the source scale, times
    each channel's weight scale, plus the bias, (relu), times the inverse destination scale, plus the zero point, one
    float32 rounding each; torch hands oneDNN the reciprocals of the source and destination scales (rounded to
    float32) and oneDNN inverts them again in float32."""
    src = f32(1) / f32(1 / sx)
    inv = f32(1) / (f32(1) / f32(1 / scale))
    y = ((acc.astype(f32) * src).astype(f32) * sw[:, None, None]).astype(f32)
    if bias is not None:
        y = (y + np.asarray(bias.detach().float()._value)[:, None, None]).astype(f32)
    if relu:
        y = np.maximum(y, f32(0))
    t = np.rint(((y * inv).astype(f32) + f32(zero_point)).astype(f32))
    return _quint8(np.clip(t, 0, 255), scale, zero_point, dev)


def _chunks(n):
    """at::parallel_for's split of ``n`` elements over torch's threads (each chunk has its own scalar tail)."""
    tasks = max(1, min(get_num_threads(), -(-n // _GRAIN)))
    size = -(-n // tasks)
    return [(b, min(b + size, n)) for b in range(0, n, size)]


def _vector_mask(n):
    mask = np.zeros(n, bool)
    for b, e in _chunks(n):
        mask[b:b + (e - b) // _VEC * _VEC] = True
    return mask


def _broadcast_ints(a, b):
    ia, ib = np.broadcast_arrays(_ints(a), _ints(b))
    return ia.astype(f32), ib.astype(f32)


def add(a, b, scale, zero_point, *, relu=False):
    """``quantized::add`` (``add_relu`` with ``relu``): ``a + b`` of two quint8 tensors, requantized."""
    _check_activation(a, "add")
    _check_activation(b, "add")
    (sa, za), (sb, zb) = (f32(a._q[2]), a._q[3]), (f32(b._q[2]), b._q[3])
    ia, ib = _broadcast_ints(a, b)
    shape = ia.shape
    ia, ib = ia.reshape(-1), ib.reshape(-1)
    vec = (np.float64(sa) * ia + np.float64(f32(sa * -f32(za)))).astype(f32) + \
        (np.float64(sb) * ib + np.float64(f32(sb * -f32(zb)))).astype(f32)
    sca = ((ia - f32(za)).astype(f32) * sa).astype(f32) + ((ib - f32(zb)).astype(f32) * sb).astype(f32)
    vec, sca = vec.astype(f32), sca.astype(f32)
    if relu:
        vec, sca = np.maximum(vec, f32(0)), np.maximum(sca, f32(0))
    qv = np.rint((vec * f32(1.0 / scale)).astype(f32)) + zero_point
    qs = np.rint(((sca * (f32(1) / f32(scale))).astype(f32) + f32(zero_point)).astype(f32))
    out = np.where(_vector_mask(ia.size), qv, qs)
    return _quint8(np.clip(out, 0, 255).reshape(shape), scale, zero_point, a._dev)


def mul(a, b, scale, zero_point, *, relu=False):
    """``quantized::mul``: the integer product ``(qa - za)(qb - zb)`` requantized by ``sa*sb/scale``."""
    _check_activation(a, "mul")
    _check_activation(b, "mul")
    ia, ib = _broadcast_ints(a, b)
    prod = (ia.astype(np.int64) - a._q[3]) * (ib.astype(np.int64) - b._q[3])
    m = f32(a._q[2] * b._q[2] * (1.0 / scale))
    out = np.rint((prod.astype(f32) * m).astype(f32)) + zero_point
    return _quint8(np.clip(out, zero_point if relu else 0, 255), scale, zero_point, a._dev)


def cat(tensors, dim=0, scale=None, zero_point=None):
    """``quantized::cat``: the inputs dequantized, concatenated and quantized with ``scale``/``zero_point``."""
    for t in tensors:
        _check_activation(t, "cat")
    floats = dispatch(_concat, tuple(dequantize(t) for t in tensors), (("dim", dim),), diff=False)
    return quantize_per_tensor(floats, float(scale), int(zero_point), _dtype.quint8)


def _concat(*xs, dim):
    return jnp.concatenate(xs, axis=dim)


def relu(input, inplace=False):
    """ReLU of a quantized tensor: its integers clamped below at the zero point, the same quantizer."""
    if input._q[4] is not None:
        raise NotImplementedError("torchlike's quantized relu takes per-tensor quantized tensors only")
    out = _make(np.maximum(_ints(input), np.asarray(input._q[3]).astype(_ints(input).dtype)), input._q, input._dev)
    if inplace:
        input._x = out._x
        return input
    return out


def relu6(input, inplace=False):
    """ReLU6 of a quantized tensor: its integers clamped to ``[zero_point, q(6.0)]`` (6.0 quantized as ATen's
    scalar quantize_val: ``rint(f32(6 * (1/scale)) + zero_point)``), the same quantizer."""
    if input._q[4] is not None:
        raise NotImplementedError("torchlike's quantized relu6 takes per-tensor quantized tensors only")
    ints = _ints(input)
    _, _, scale, zp, _ = input._q
    lo, hi = (0, 255) if ints.dtype == np.uint8 else (-128, 127)
    six = int(np.clip(np.rint((f32(6.0) * (f32(1) / f32(scale))).astype(f32) + f32(zp)), lo, hi))
    out = _make(np.clip(ints, zp, six).astype(ints.dtype), input._q, input._dev)
    if inplace:
        input._x = out._x
        return input
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling of a quantized tensor: of its integers (the order is the same), the same quantizer."""
    if return_indices:
        raise NotImplementedError("torchlike's quantized max_pool2d does not return indices")
    ints = Tensor._wrap(jnp.asarray(_ints(input), jnp.float32), input._dev)
    pooled = F.max_pool2d(ints, kernel_size, stride, padding, dilation, ceil_mode)
    return _make(np.asarray(pooled._value).astype(_ints(input).dtype), input._q, input._dev)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling of a quantized (N)CHW tensor, the same quantizer: each window's integer sum less
    ``zero_point * size``, requantized as ATen's kernel does, ``rint(f32(acc * (1/(1/m))) + zero_point)`` with
    ``m = 1/size`` in float32."""
    if input._q[4] is not None:
        raise NotImplementedError("torchlike's quantized adaptive_avg_pool2d takes per-tensor quantized tensors only")
    ints = _ints(input)
    if ints.ndim not in (3, 4):
        raise NotImplementedError("torchlike's quantized adaptive_avg_pool2d takes 3-D or 4-D inputs")
    H, W = ints.shape[-2:]
    oh, ow = _pair(output_size)
    oh, ow = H if oh is None else oh, W if ow is None else ow
    _, _, scale, zp, _ = input._q
    acc_all = ints.astype(np.int64)
    out = np.empty(ints.shape[:-2] + (oh, ow), ints.dtype)
    lo, hi = (0, 255) if ints.dtype == np.uint8 else (-128, 127)
    for i in range(oh):
        h0, h1 = (i * H) // oh, -(-((i + 1) * H) // oh)
        for j in range(ow):
            w0, w1 = (j * W) // ow, -(-((j + 1) * W) // ow)
            size = (h1 - h0) * (w1 - w0)
            acc = acc_all[..., h0:h1, w0:w1].sum(axis=(-2, -1)) - zp * size
            mult = f32(f32(f32(scale) / f32(scale)) / f32(size))
            inv = f32(1) / f32(f32(1) / mult)
            out[..., i, j] = np.clip(np.rint(((acc.astype(f32) * inv).astype(f32) + f32(zp)).astype(f32)), lo, hi)
    return _make(out, input._q, input._dev)


def _unsupported(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"torch.ao.nn.quantized.functional.{name} is not implemented in torchlike "
                                  "(see docs/differences.md)")
    fn.__name__ = fn.__qualname__ = name
    return fn


conv1d, conv3d, avg_pool2d = (_unsupported(n) for n in ("conv1d", "conv3d", "avg_pool2d"))

# what a quantized tensor runs when given to torch.relu / F.relu / Tensor.relu, F.max_pool2d ...
QUANTIZED_FUNCTIONS.update({"relu": relu, "relu_": lambda x: relu(x, inplace=True), "max_pool2d": max_pool2d,
                            "adaptive_avg_pool2d": adaptive_avg_pool2d,
                            "_max_pool2d": max_pool2d,
                            **{name: (lambda name: lambda x, *a, **k: getattr(_QTensor, name)(x, *a, **k))(name)
                               for name in ("flatten", "reshape", "squeeze", "unsqueeze", "transpose", "permute",
                                            "t", "clone", "detach")}})
