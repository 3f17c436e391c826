"""Normalization functionals: batch/instance/layer/group/RMS norm and local response norm.

Statistics are computed in at least float32 (torch's CPU opmath for half types).  Training-mode
batch/instance norm update ``running_mean``/``running_var`` in place (unbiased variance), as torch does.
"""
from __future__ import annotations

import math
import operator

import jax.numpy as jnp
import numpy as np
import ml_dtypes
from jax import lax
from jax._src.interpreters.batching import BatchTracer

from ... import _dtype
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._errors import torch_warn
from ..._ops.indexing import c_type_name
from ..._ops.registry import functional as _functional
from ..._ops._util import exact_mean
from ..._ops.checks import not_differentiable
from ..._ops.native_norms import (_batch_norm_half, check_layer_norm_inputs, check_param_dtypes, group_norm_impl,
                                   layer_norm_impl)
from ... import _grad_mode as grad_mode
from ... import _autocast as _amp

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "local_response_norm"]


def _acc(dt):
    return jnp.promote_types(dt, jnp.float32)


def _bn_half(x, w, b, rm, rv, eps, training, instance):
    """A float16/bfloat16 output as torch's half-type batch-norm kernel gives it (native_norms); instance norm
    is that kernel over the ``(1, N * C, ...)`` view with the parameters repeated N times, as torch runs it."""
    n = x.shape[0] if instance else 1
    xs = x.reshape((1, n * x.shape[1]) + x.shape[2:]) if instance else x
    params = tuple(jnp.tile(p, n) for p in (w, b) if p is not None)
    if not training:
        params += tuple(jnp.tile(p, n) for p in (rm, rv))
    return _batch_norm_half(xs, params, training, eps, w is not None, b is not None)[0].reshape(x.shape)


def _bn_impl(x, w, b, rm, rv, momentum, eps, training, update, instance):
    acc = _acc(x.dtype)
    xf = x.astype(acc)
    C = x.shape[1]
    shp = (1, C) + (1,) * (x.ndim - 2)
    if training:
        axes = tuple(range(2, x.ndim)) if instance else (0,) + tuple(range(2, x.ndim))
        mean = xf.mean(axes, keepdims=True)
        var = jnp.square(xf - mean).mean(axes, keepdims=True)
        y = (xf - mean) * lax.rsqrt(var + eps)
    else:
        y = (xf - rm.astype(acc).reshape(shp)) * lax.rsqrt(rv.astype(acc).reshape(shp) + eps)
    if w is not None:
        y = y * w.astype(acc).reshape(shp)
    if b is not None:
        y = y + b.astype(acc).reshape(shp)
    y = y.astype(x.dtype) if x.dtype not in (jnp.float16, jnp.bfloat16) else _bn_half(x, w, b, rm, rv, eps, training,
                                                                                   instance)
    if not update:
        return y
    n = x.size // (C * (x.shape[0] if instance else 1))
    m = mean.reshape(-1, C).mean(0) if instance else mean.reshape(C)
    v = var.reshape(-1, C).mean(0) if instance else var.reshape(C)
    v = v * (n / max(n - 1, 1))
    new_rm = (1 - momentum) * rm.astype(acc) + momentum * m
    new_rv = (1 - momentum) * rv.astype(acc) + momentum * v
    return y, new_rm.astype(rm.dtype), new_rv.astype(rv.dtype)


def _arr(t):
    return None if t is None else t._value


_VMAP_STATS = ("Batch norm got a batched tensor as input while the running_mean or running_var, which will be "
               "updated in place, were not batched.\nIf you are using a module and do not need eval mode, please set "
               "`track_running_stats` to be False.If you are using a prebuilt module and do not need eval mode, please "
               "see the functorch website for resources on how to patch your module to work with vmap")


def _not_float(input, kernel):
    """torch's kernels take floating inputs only: an integer or bool input is their dtype-dispatch error."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')


def _norm_with_stats(input, running_mean, running_var, weight, bias, training, momentum, eps, instance):
    _not_float(input, "batch_norm")  # (instance norm runs torch's batch_norm kernel too)
    # instance norm hands its kernel running statistics of the input's dtype: only its affine parameters count
    check_param_dtypes(input, weight, bias, *(() if instance else (running_mean, running_var)))
    update = bool(training) and running_mean is not None and running_var is not None
    if update and isinstance(input._value, BatchTracer) and not (
            isinstance(running_mean._value, BatchTracer) and isinstance(running_var._value, BatchTracer)):
        raise RuntimeError(_VMAP_STATS)  # torch.func.vmap's check: an in-place update would leak the batch
    r = dispatch(_bn_impl, (input, weight, bias, _arr(running_mean), _arr(running_var),
                            0.0 if momentum is None else float(momentum), float(eps)),
                 (("training", bool(training)), ("update", update), ("instance", instance)),
                 name="NativeBatchNormBackward0")
    if update:
        y, nm, nv = r
        with grad_mode.no_grad():
            running_mean._set_value(nm._value)
            running_var._set_value(nv._value)
        return y
    return r


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    """Batch normalization over dim 1; in training updates the running stats in place.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> rm, rv = torchlike.zeros(2), torchlike.ones(2)
    >>> F.batch_norm(torchlike.tensor([[1., 2.], [3., 4.]]), rm, rv, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> rm
    tensor([0.2000, 0.3000])
    """
    if training:
        size = tuple(input.shape)
        if size[0] * math.prod(size[2:]) == 1:  # torch's _verify_batch_size (empty batches are fine)
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"torch.Size({list(size)})")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if not training and t is None:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    not_differentiable("native_batch_norm", running_mean=running_mean, running_var=running_var)
    C = input.shape[1] if input.ndim > 1 else 0  # torch counts 0 channels for a 1-D input
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != C:
            raise RuntimeError(f"{name} should contain {C} elements not {t.numel()}")
    if input.ndim < 2:
        if input.numel() == 0:  # an empty 1-D input passes through unchanged
            return input.clone()
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if training and input.numel() == 0:  # torch leaves the running statistics alone for an empty batch
        running_mean = running_var = None
    return _norm_with_stats(input, running_mean, running_var, weight, bias, training, momentum, eps, False)


@_functional()
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Per-sample, per-channel normalization over the spatial dims.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.instance_norm(torchlike.tensor([[[1., 3.]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        size = tuple(input.shape)
        if math.prod(size[2:]) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"torch.Size({list(size)})")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    if input.ndim > 1:  # torch repeats the statistics and parameters over the batch: batch_norm's size check
        N, C = input.shape[0], input.shape[1]
        for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                        ("bias", bias)):
            if t is not None and t.numel() != C:
                raise RuntimeError(f"{name} should contain {N * C} elements not {N * t.numel()}")
    return _norm_with_stats(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps, True)


def _ln_impl(x, w, b, eps, nd):
    rest = tuple(t for t in (w, b) if t is not None)
    return layer_norm_impl(x, *rest, axes=tuple(range(x.ndim - nd, x.ndim)), eps=eps, has_w=w is not None,
                           has_b=b is not None, wshape=x.shape[x.ndim - nd:])[0]


@_functional()
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalize over the trailing ``normalized_shape`` dims.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.layer_norm(torchlike.tensor([[1., 3.]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    ns = check_layer_norm_inputs(input, normalized_shape, weight, bias)
    check_param_dtypes(input, weight, bias)
    if not input.dtype.is_floating_point and input.device.type == "cpu":  # (torch's kernel: floating types only)
        raise NotImplementedError(f"\"LayerNormKernelImpl\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    return dispatch(_ln_impl, (input, weight, bias, float(eps)), (("nd", len(ns)),),
                    name="NativeLayerNormBackward0")


def _rms_impl(x, w, eps, nd):
    acc = _acc(x.dtype)
    xf = x.astype(acc)
    axes = tuple(range(x.ndim - nd, x.ndim))
    y = xf * lax.rsqrt(exact_mean(jnp.square(xf), axes, keepdims=True) + eps)
    if w is not None:
        y = y * w.astype(acc)
    return y.astype(x.dtype)


@_functional(torch=True)
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalization; ``eps`` defaults to ``finfo(input.dtype).eps`` (float32's for the half
    types, which compute in float32).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.rms_norm(torchlike.tensor([[3., 4.]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    ns = check_layer_norm_inputs(input, normalized_shape, star="*")  # (rms_norm's message: "[*2, 3]")
    if weight is not None and tuple(weight.shape) != tuple(ns):
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(ns)}")
    if eps is None:  # (half types compute in float32, and torch's kernel takes float32's eps for them)
        eps = float(ml_dtypes.finfo(input.dtype.np).eps) if input.dtype.is_floating_point and input.dtype.itemsize > 2 \
            else 1.1920928955078125e-07
    if weight is not None and weight.dtype is not input.dtype:
        torch_warn(f"Mismatch dtype between input and weight: input dtype = {c_type_name(input.dtype)}, weight dtype = "
                   f"{c_type_name(weight.dtype)}, Cannot dispatch to fused implementation.",
                   "aten/src/ATen/native/layer_norm.cpp:346", once=True)
    # torch's composite: x * rsqrt(mean(x^2) + eps) [* weight], computed in float32 and cast back (type_as) for half
    # types: the last op names the node
    half = input.dtype.is_floating_point and input.dtype.itemsize == 2
    name = "ToCopyBackward0" if half else "MulBackward0"
    return dispatch(_rms_impl, (input, weight, float(eps)), (("nd", len(ns)),), name=name)


def _gn_impl(x, w, b, eps, G):
    rest = tuple(t for t in (w, b) if t is not None)
    return group_norm_impl(x, *rest, n=x.shape[0], c=x.shape[1], group=G, eps=eps, has_w=w is not None,
                           has_b=b is not None)[0]


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalize over groups of channels (and all spatial dims) per sample.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.group_norm(torchlike.tensor([[1., 3.]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    C = input.shape[1]
    if operator.index(num_groups) == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    if C % operator.index(num_groups):  # (an int: torch's parser rejects 1.5)
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape "
                               f"{list(input.shape)}")
    _not_float(input, "GroupNormKernelImpl")
    check_param_dtypes(input, weight, bias)
    return dispatch(_gn_impl, (input, weight, bias, float(eps)), (("G", int(num_groups)),),
                    name="NativeGroupNormBackward0")


def _lrn_impl(x, alpha, beta, k, size, out_dt):
    sq = jnp.square(x)
    pads = [(0, 0)] * x.ndim
    pads[1] = (size // 2, (size - 1) // 2)
    win = [1] * x.ndim
    win[1] = size
    s = lax.reduce_window(sq, np.array(0, x.dtype), lax.add, tuple(win), (1,) * x.ndim, pads)
    if out_dt is not None:  # integer input: torch's avg_pool truncates, then the float math is in out_dt
        s = lax.div(s, jnp.asarray(size, s.dtype)).astype(out_dt)
        div = (s * jnp.asarray(alpha, out_dt) + jnp.asarray(k, out_dt)) ** jnp.asarray(beta, out_dt)
        return x.astype(out_dt) / div
    div = (s / size * alpha + k) ** beta
    return x / div


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"))
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalize each element by the sum of squares over ``size`` neighbouring channels.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.local_response_norm(torchlike.ones(1, 3, 2), 2).shape
    torch.Size([1, 3, 2])
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    out_dt = None if (input.dtype.is_floating_point or input.dtype.is_complex) else \
        _dtype.get_default_dtype().np
    return dispatch(_lrn_impl, (input, float(alpha), float(beta), float(k)), (("size", int(size)),
                                                                             ("out_dt", out_dt)),
                    name="DivBackward0")
