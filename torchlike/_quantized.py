"""Quantized tensors: ``torch.quantize_per_tensor``/``quantize_per_channel``, ``dequantize``, ``int_repr`` and
the quantizer's accessors, with the numerics of torch's x86 (fbgemm) CPU kernels.

A quantized tensor is a ``_QTensor``: a Tensor whose array is the integer representation (int8 for qint8, uint8
for quint8 ...) and which carries its quantizer (dtype, scheme, scale(s), zero point(s), axis).  It reports the
quantized dtype and prints as torch does; an op it does not support reads ``_value``, which raises torch's
NotImplementedError for the QuantizedCPU backend, so plain tensors pay nothing for the check.

    >>> import torchlike
    >>> q = torchlike.quantize_per_tensor(torchlike.tensor([-1.0, 0.5]), 0.1, 10, torchlike.quint8)
    >>> q.int_repr(), q.q_scale(), q.q_zero_point()
    (tensor([ 0, 15], dtype=torch.uint8), 0.1, 10)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype
from ._dispatch import dispatch
from ._errors import torch_warn, tp_name
from ._ops.registry import register
from ._tensor_str import _add_suffixes, _tensor_str
from ._torch_function import DisableTorchFunctionSubclass, disabled_torch_function_impl
from ._torch_function import enable as _tf_enable
from ._torch_function import enabled as _tf_enabled
from .tensor import Tensor

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
           "per_channel_affine_float_qparams", "quantize_per_tensor", "quantize_per_channel",
           "quantize_per_tensor_dynamic", "choose_qparams", "linear_dynamic"]


class qscheme:
    """``torch.qscheme``: how a quantized tensor maps integers to reals (``torch.per_tensor_affine`` ...)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_qscheme_by_name, (self.name,))


per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric, \
    per_channel_affine_float_qparams = QSCHEMES = tuple(qscheme(n) for n in (
        "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
        "per_channel_affine_float_qparams"))


def _qscheme_by_name(name):
    return next(s for s in QSCHEMES if s.name == name)


_NOT_ON = ("Could not run '{op}' with arguments from the '{backend}' backend. This could be because the operator "
           "doesn't exist for this backend, or was omitted during the selective/custom build process (if using "
           "custom build).")
_UNSUPPORTED = ("Could not run this operator with arguments from the 'QuantizedCPU' backend: torchlike supports only "
                "dequantize, int_repr, the q_* accessors, clone/detach and reshaping views on quantized tensors "
                "(see docs/differences.md)")
_DEPRECATED = ("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions "
               "that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will "
               "be removed in a future PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 "
               "for more information.")


# the quantized kernels of torch functions and methods, by name ("relu", "max_pool2d", ...): filled by
# torchlike.ao.nn.quantized.functional, consulted by a quantized tensor's __torch_function__
QUANTIZED_FUNCTIONS: dict = {}


class _QTensor(Tensor):
    """A quantized tensor (``is_quantized``): the integer representation as the array, plus ``_q``, the quantizer
    ``(dtype, qscheme, scale, zero_point, axis)`` (per channel: scales float64 and zero points int64 Tensors)."""

    __slots__ = ("_q",)
    is_quantized = True
    # disabled while the class is made; the quantized kernels' __torch_function__ is attached below the class,
    # and the protocol switched on when the first quantized tensor is made: an override in the class body
    # switched it on for every program at import (every op then looks for overriding arguments first)
    __torch_function__ = disabled_torch_function_impl

    @property
    def dtype(self):
        return self._q[0]

    @property
    def _value(self):  # every op without a quantized kernel reads the array through this
        raise NotImplementedError(_UNSUPPORTED)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self, *, tensor_contents=None):
        dt, scheme, scale, zp, axis = self._q
        suffixes = [f"size={tuple(self.shape)}", f"dtype={dt}", f"quantization_scheme={scheme}"]
        if axis is None:
            suffixes += [f"scale={scale}", f"zero_point={zp}"]
        else:
            suffixes += [f"scale={scale!r}", f"zero_point={zp!r}", f"axis={axis}"]
        body = tensor_contents if tensor_contents is not None else _tensor_str(dequantize(self), len("tensor("))
        return _add_suffixes("tensor(" + body, suffixes, len("tensor("), False)

    def __reduce_ex__(self, proto):
        return (_rebuild, (int_repr(self), self._q))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = _like(self, self._x)
        return memo[id(self)]

    def item(self):
        return dequantize(self).item()

    def clone(self, *, memory_format=None):
        return _like(self, self._x)

    def detach(self):
        return _like(self, self._x)

    def contiguous(self, memory_format=None):
        return self

    def requires_grad_(self, requires_grad=True):
        if requires_grad:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        return self

    # shape ops of a per-tensor quantized tensor: the same op on the integers, the same quantizer
    def _reshaped(self, name, *args, **kwargs):
        if self._q[4] is not None:
            raise NotImplementedError(f"torchlike does not support Tensor.{name} of a per-channel quantized tensor "
                                      "(see docs/differences.md)")
        return _like(self, getattr(int_repr(self), name)(*args, **kwargs)._value)

    def view(self, *shape):
        return self._reshaped("view", *shape)

    def reshape(self, *shape):
        return self._reshaped("reshape", *shape)

    def __getitem__(self, index):
        return self._reshaped("__getitem__", index)

    def flatten(self, start_dim=0, end_dim=-1):
        return self._reshaped("flatten", start_dim, end_dim)

    def permute(self, *dims):
        return self._reshaped("permute", *dims)

    def transpose(self, dim0, dim1):
        return self._reshaped("transpose", dim0, dim1)

    def t(self):
        return self._reshaped("t")

    def squeeze(self, *dim):
        return self._reshaped("squeeze", *dim)

    def unsqueeze(self, dim):
        return self._reshaped("unsqueeze", dim)


def _q_torch_function(cls, func, types, args=(), kwargs=None):
    kernel = QUANTIZED_FUNCTIONS.get(getattr(func, "__name__", None))
    if kernel is not None and args and isinstance(args[0], _QTensor):
        return kernel(*args, **(kwargs or {}))
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


_QTensor.__torch_function__ = classmethod(_q_torch_function)


def _make(x, q, dev):
    if not _tf_enabled():  # the first quantized tensor switches the protocol on (see _QTensor)
        _tf_enable()
    t = _QTensor._wrap(x, dev)
    t._q = q
    return t


def _like(self, x):
    return _make(x, self._q, self._dev)


def _rebuild(ints, q):
    return _make(ints._value, q, ints._dev)


_QDTYPE_OF = {"int8": _dtype.qint8, "uint8": _dtype.quint8, "int32": _dtype.qint32}


def rebuild_qtensor(ints, params):
    """The quantized tensor whose integer representation is ``ints`` (int8 -> qint8, uint8 -> quint8, int32 ->
    qint32), quantizer ``(qscheme, scale, zero_point)`` or ``(qscheme, scales, zero_points, axis)`` as torch
    pickles it."""
    dt = _QDTYPE_OF[ints.dtype.name]
    if len(params) == 3:
        return _make(ints._value, (dt, params[0], float(params[1]), int(params[2]), None), ints._dev)
    scheme, scales, zps, axis = params
    return _make(ints._value, (dt, scheme, scales.to(_dtype.float64), zps.to(_dtype.int64), int(axis)), ints._dev)


def _not_quantized(op, self):
    if not isinstance(self, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {tp_name(self)}")
    raise NotImplementedError(_NOT_ON.format(op=f"aten::{op}", backend=self.device.type.upper()))


def _expect(self, per_channel):
    if isinstance(self, _QTensor) and (self._q[4] is not None) == per_channel:
        return self._q
    if not isinstance(self, _QTensor):
        return None
    raise RuntimeError(
        ("Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() == "
         "kPerChannelAffineFloatQParams to be true, but got false.  " if per_channel else
         "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  ") +
        "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)")


# ---- kernels: torch's x86 numerics, measured bit-exact against it (tests/test_quantized.py)
def _quantize_fn(x, inv, zp, *, lo, hi, out, fused=True):
    """``round_half_even(x * (1/scale) + zero_point)`` clamped: fbgemm's AVX kernels (8-bit) do the multiply-add
    fused, one float32 rounding (exact here in float64, then rounded once); qint32 rounds after each step."""
    if fused:
        t = (x.astype(jnp.float64) * inv.astype(jnp.float64) + zp).astype(jnp.float32)
    else:  # (the exact float64 product rounded to float32 precision by reduce_precision: LLVM would contract a
        # float32 multiply-add, and folds a plain float64->float32->float64 round trip)
        p = jax.lax.reduce_precision(x.astype(jnp.float64) * inv.astype(jnp.float64), exponent_bits=8,
                                     mantissa_bits=23)
        t = (p + zp).astype(jnp.float32)
    return jnp.clip(jnp.round(t), lo, hi).astype(out)


def _dequantize_fn(ints, scale, zp, *, wide=False):
    """``(int_repr - zero_point) * scale`` in float32 (per channel torch computes it in float64, then rounds)."""
    ft = jnp.float64 if wide else jnp.float32
    return ((ints.astype(ft) - zp.astype(ft)) * scale.astype(ft)).astype(jnp.float32)


def _check_input(x, dt):
    if not isinstance(dt, _dtype._QuantizedDtype):
        raise RuntimeError(f"ScalarType {_dtype._CAP.get(dt.name, dt.name)} is not supported in new_qtensor.")
    if x.dtype is not _dtype.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {_dtype._CAP.get(x.dtype.name, x.dtype.name)}")
    torch_warn(_DEPRECATED, "aten/src/ATen/quantized/Quantizer.cpp:111", once=True)


def _as_shape(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return jnp.reshape(v, shape)


@register("quantize_per_tensor", method=False, differentiable=False)
def quantize_per_tensor(input, scale, zero_point, dtype):
    """A quantized tensor of ``input`` (float32): ``clamp(round(input / scale) + zero_point)`` stored as ``dtype``.

    >>> import torchlike
    >>> torchlike.quantize_per_tensor(torchlike.tensor([0.5]), 0.25, 0, torchlike.qint8).int_repr()
    tensor([2], dtype=torch.int8)
    """
    if isinstance(input, (list, tuple)):  # the list form: one scale and zero point (tensors) per tensor
        return tuple(quantize_per_tensor(x, float(np.float32(s)), int(z), dtype) for x, s, z in
                     zip(input, scale.tolist(), zero_point.tolist()))
    if isinstance(scale, Tensor):  # (scale and zero point given as tensors: torch reads them as float32 / int)
        scale = float(np.float32(scale.item()))
    if isinstance(zero_point, Tensor):
        zero_point = int(zero_point.item())
    dtype = _dtype.to_dtype(dtype)
    _check_input(input, dtype)
    scale, zero_point = float(scale), int(zero_point)
    if zero_point > dtype.qmax:
        raise RuntimeError(f"quantize_tensor_per_tensor_affine zero_point {zero_point} is above upper bound.")
    if zero_point < dtype.qmin:
        raise RuntimeError(f"quantize_tensor_per_tensor_affine zero_point {zero_point} is below lower bound.")
    inv = np.float32(1.0) / np.float32(scale) if scale else np.float32(np.inf)
    ints = dispatch(_quantize_fn, (input, np.float32(inv), np.float64(zero_point)),
                    (("lo", dtype.qmin), ("hi", dtype.qmax), ("out", dtype.storage.np),
                     ("fused", dtype is not _dtype.qint32)), diff=False)
    return _make(ints._value, (dtype, per_tensor_affine, scale, zero_point, None), input._dev)


@register("quantize_per_channel", method=False, differentiable=False)
def quantize_per_channel(input, scales, zero_points, axis, dtype):
    """A quantized tensor of ``input`` with one scale and zero point per index along ``axis``."""
    dtype = _dtype.to_dtype(dtype)
    _check_input(input, dtype)
    axis = axis + input.ndim if axis < 0 else axis
    s = scales.to(_dtype.float64)
    z = zero_points.to(_dtype.int64)
    inv = (np.float32(1.0) / s._value.astype(np.float32))
    ints = dispatch(lambda x, i, zz, **kw: _quantize_fn(x, _as_shape(i, x.ndim, axis), _as_shape(zz, x.ndim, axis),
                                                        **kw),
                    (input, inv, z._value), (("lo", dtype.qmin), ("hi", dtype.qmax), ("out", dtype.storage.np)),
                    diff=False, jit=False)
    return _make(ints._value, (dtype, per_channel_affine, s, z, axis), input._dev)


@register("dequantize", differentiable=False)
def dequantize(self):
    """The float32 values a quantized tensor stands for: ``(int_repr - zero_point) * scale`` (a float tensor
    is returned as it is)."""
    if isinstance(self, (list, tuple)):
        return [dequantize(t) for t in self]
    if not isinstance(self, _QTensor):
        if isinstance(self, Tensor):
            return self
        _not_quantized("dequantize", self)
    dt, _, scale, zp, axis = self._q
    ints = int_repr(self)
    if axis is None:
        return dispatch(_dequantize_fn, (ints, np.float32(scale), np.float32(zp)), diff=False)
    return dispatch(lambda i, s, z: _dequantize_fn(i, _as_shape(s, i.ndim, axis), _as_shape(z, i.ndim, axis),
                                                   wide=True), (ints, scale, zp), diff=False, jit=False)


@register("int_repr", differentiable=False)
def int_repr(self):
    """The integers a quantized tensor stores (int8 for qint8, uint8 for quint8, int32 for qint32)."""
    if not isinstance(self, _QTensor):
        _not_quantized("int_repr", self)
    return Tensor._wrap(self._x, self._dev)


@register("q_scale", differentiable=False)
def q_scale(self):
    """The scale (a Python float) of a per-tensor quantized tensor."""
    return (_expect(self, False) or _not_quantized("q_scale", self))[2]


@register("q_zero_point", differentiable=False)
def q_zero_point(self):
    """The zero point (a Python int) of a per-tensor quantized tensor."""
    return (_expect(self, False) or _not_quantized("q_zero_point", self))[3]


@register("q_per_channel_scales", differentiable=False)
def q_per_channel_scales(self):
    """The scales (float64) of a per-channel quantized tensor."""
    return (_expect(self, True) or _not_quantized("q_per_channel_scales", self))[2]


@register("q_per_channel_zero_points", differentiable=False)
def q_per_channel_zero_points(self):
    """The zero points (int64) of a per-channel quantized tensor."""
    return (_expect(self, True) or _not_quantized("q_per_channel_zero_points", self))[3]


@register("q_per_channel_axis", differentiable=False)
def q_per_channel_axis(self):
    """The dimension a per-channel quantized tensor's scales run along."""
    return (_expect(self, True) or _not_quantized("q_per_channel_axis", self))[4]


@register("qscheme", namespaces=(), differentiable=False)
def _qscheme_method(self):
    if not isinstance(self, _QTensor):
        _not_quantized("qscheme", self)
    return self._q[1]


# ---- dynamic quantization (fbgemm's ChooseQuantizationParams and quantized::linear_dynamic) ------------------
_SMALL_SCALE = 6.1e-5


def choose_qparams(lo, hi, qmin, qmax, reduce_range=False):
    """fbgemm's scale (a float32 value) and zero point for values in ``[lo, hi]`` mapped to ``[qmin, qmax]``."""
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    lo, hi = min(np.float32(lo), np.float32(0)), max(np.float32(hi), np.float32(0))
    scale = (float(hi) - float(lo)) / (qmax - qmin)
    if np.float32(scale) == 0 or np.isinf(np.float32(1) / np.float32(scale)):
        scale = 0.1
    if scale < _SMALL_SCALE:
        org, scale = np.float32(scale), _SMALL_SCALE
        if lo == 0:
            hi = np.float32(_SMALL_SCALE * (qmax - qmin))
        elif hi == 0:
            lo = np.float32(-_SMALL_SCALE * (qmax - qmin))
        else:
            amp = np.float32(_SMALL_SCALE) / org
            lo, hi = np.float32(lo * amp), np.float32(hi * amp)
    s = float(np.float32(scale))  # (fbgemm keeps the scale as a float)
    from_min, from_max = qmin - float(lo) / s, qmax - float(hi) / s
    z = from_min if abs(qmin) - abs(float(lo) / s) < abs(qmax) - abs(float(hi) / s) else from_max
    return s, int(qmin if z < qmin else qmax if z > qmax else np.rint(z))


@register("quantize_per_tensor_dynamic", method=False, differentiable=False)
def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    """``input`` quantized per tensor with the scale and zero point its own range asks for (fbgemm's choice)."""
    dtype = _dtype.to_dtype(dtype)
    if dtype not in (_dtype.qint8, _dtype.quint8):
        raise RuntimeError(f"dtype {_dtype._CAP.get(dtype.name, dtype.name)} not supported")  # (torch: same words)
    lo, hi = (float(v) for v in np.asarray(_minmax(input)))
    scale, zp = choose_qparams(lo, hi, dtype.qmin, dtype.qmax, reduce_range)
    return quantize_per_tensor(input, scale, zp, dtype)


def _minmax(x):
    return dispatch(lambda a: jnp.stack([a.min(), a.max()]) if a.size else jnp.zeros(2, a.dtype), (x,),
                    diff=False)._value


def _linear_dynamic_fn(x, w, b, inv, zp, mult, *, qmax):
    """int32 accumulation of the quantized input and weight, then fbgemm's float output
    ``fma(float(acc), scale * wscale, bias)`` (one rounding, as fbgemm's AVX kernels compute it)."""
    xq = _quantize_fn(x, inv, zp, lo=0, hi=qmax, out=jnp.int32) - zp.astype(jnp.int32)
    acc = jnp.matmul(xq, w.astype(jnp.int32).T, preferred_element_type=jnp.int32)
    out = acc.astype(jnp.float32).astype(jnp.float64) * mult
    if b is not None:
        out = out + b.astype(jnp.float64)
    return out.astype(jnp.float32)


def linear_dynamic(x, weight, bias=None, reduce_range=True):
    """``torch.ops.quantized.linear_dynamic``: ``x`` (float32) quantized to uint8 over its own range (7 bits with
    ``reduce_range``), times a per-tensor qint8 ``weight`` in int32, rescaled to float32 plus ``bias``."""
    if not isinstance(x, Tensor) or x.dtype is not _dtype.float32:
        raise RuntimeError("torchlike's dynamic quantized linear takes float32 input")
    if weight._q[4] is not None:
        raise NotImplementedError("torchlike does not support per-channel quantized weights in dynamic linear "
                                  "(see docs/differences.md)")
    lo, hi = (float(v) for v in np.asarray(_minmax(x))) if x.numel() else (0.0, 0.0)
    scale, zp = choose_qparams(lo, hi, 0, 255, reduce_range)
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]) if x.ndim != 2 else x
    mult = np.float64(np.float32(scale) * np.float32(weight._q[2]))
    out = dispatch(_linear_dynamic_fn, (x2, int_repr(weight), bias, np.float32(1) / np.float32(scale),
                                        np.float64(zp), mult), (("qmax", 127 if reduce_range else 255),), diff=False)
    return out.reshape(*shape[:-1], out.shape[-1]) if x.ndim != 2 else out

