"""torch's native normalisation kernels, which return their saved statistics with the result:
``native_layer_norm``, ``native_batch_norm``, ``_native_batch_norm_legit`` and ``native_group_norm``.

Half and bfloat16 inputs are normalised in float32 and rounded once (torch's opmath); the statistics come
back in the input's dtype; as in torch, group norm's are differentiable and the others' are not. Training-mode batch norm updates the
running statistics in place with the unbiased variance.

    >>> import torchlike as torch
    >>> out, mean, rstd = torch.native_layer_norm(torch.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
    >>> out.tolist(), mean.tolist(), rstd.tolist()
    ([[-1.0, 1.0]], [[2.0]], [[1.0]])
"""
from __future__ import annotations

import math
import operator

import jax.numpy as jnp
from jax import lax

from .. import _dtype
from .. import _memory_format as _mfmt
from .._aten_vec_sums import _r, lane_tree_sum, rowwise_moments
from .._cpu_features import aten_vector_bytes
from .._creation import empty
from .._errors import argument_error, caller_op, tp_name
from .._grad_mode import no_grad
from ._util import Tensor, dispatch, register, round_to
from .._mutation import write_out

__all__ = ["native_layer_norm", "native_batch_norm", "_native_batch_norm_legit", "native_group_norm",
           "layer_norm_impl", "group_norm_impl", "check_param_dtypes"]


def check_param_dtypes(input, *params):
    """torch's CPU normalisation kernels' dtype rule (aten's ``mixed_type.h``, then the kernel's typed reads):
    parameters whose first defined one differs from the input are "mixed", allowed only as float32 parameters of
    a float16/bfloat16 input; otherwise every parameter must have the input's dtype.

    >>> import torchlike as torch
    >>> torch.nn.functional.layer_norm(torch.ones(2, 3), (3,), torch.ones(3, dtype=torch.float16))
    Traceback (most recent call last):
    RuntimeError: mixed dtype (CPU): expect parameter to have scalar type of Float
    """
    defined = [p for p in params if p is not None]
    if not defined or input.device.type != "cpu":
        return
    if defined[0].dtype is not input.dtype:
        if any(p.dtype is not _dtype.float32 for p in defined):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype not in (_dtype.float16, _dtype.bfloat16):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in defined:
        if p.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {_dtype._CAP[input.dtype.name]} but found "
                               f"{_dtype._CAP[p.dtype.name]}")


def _opmath(x):
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def _affine(y, rest, has_w, has_b, shape):
    i = 0
    if has_w:
        y = y * _opmath(rest[i]).reshape(shape)
        i += 1
    if has_b:
        y = y + _opmath(rest[i]).reshape(shape)
    return y


_EXACT_MAX = 128  # rows up to one chunk of torch's moments: its rounding, longer ones two-pass formulas


def layer_norm_impl(x, *rest, axes, eps, has_w, has_b, wshape):
    """The one layer-norm kernel (native_layer_norm and F.layer_norm): (y, mean, rstd), as torch's CPU
    kernel, in float32 for the half types, ``rstd = 1 / sqrt(var + eps)``."""
    xf = _opmath(x)
    if x.dtype == jnp.float32 and x.size and math.prod(x.shape[x.ndim - len(axes):]) <= _EXACT_MAX:
        # torch's float32 kernel: Welford moments in its vector order, rstd = 1 / sqrt(var + eps) and
        # y = (x - mean) * rstd * w + b, its last multiply-add fused; each rounded as torch's (see _aten_vec_sums)
        f64 = jnp.float64
        rows = xf.reshape(xf.shape[:xf.ndim - len(axes)] + (-1,))
        mean, var = (v.reshape(v.shape + (1,) * len(axes)) for v in rowwise_moments(lax.stop_gradient(rows)))
        # (the values are the model's; the gradients those of the two-pass formulas)
        mean_p = jnp.mean(xf, axis=axes, keepdims=True)
        var_p = jnp.mean(jnp.square(xf - mean_p), axis=axes, keepdims=True)
        mean = mean_p.astype(f64) + (mean - lax.stop_gradient(mean_p))
        var = var_p.astype(f64) + (var - lax.stop_gradient(var_p))
        rstd = _r(1.0 / _r(jnp.sqrt(_r(var + _r(jnp.asarray(eps, f64))))))
        y = _r(x.astype(f64) - mean) * rstd  # (without a weight, its multiply by 1 is folded away)
        if has_w:
            y = _r(y) * rest[0].reshape(wshape).astype(f64)
        if has_b:
            y = y + rest[int(has_w)].reshape(wshape).astype(f64)
        return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)
    mean = jnp.mean(xf, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(xf - mean), axis=axes, keepdims=True)
    rstd = 1.0 / jnp.sqrt(var + eps)
    y = _affine((xf - mean) * rstd, rest, has_w, has_b, wshape)
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def _stats_out(outs):
    y, mean, rstd = outs
    return y, mean.detach(), rstd.detach()


def _extra(weight, bias):
    return tuple(t for t in (weight, bias) if t is not None), weight is not None, bias is not None


def _shape_error(normalized_shape):
    """torch's parser error for a ``normalized_shape`` that is not a sequence of ints."""
    op = caller_op()
    if isinstance(normalized_shape, (list, tuple)):
        for i, bad in enumerate(normalized_shape):
            try:
                operator.index(bad)
            except TypeError:
                return TypeError(f"{op}(): argument 'normalized_shape' (position 2) must be tuple of ints, but found "
                                 f"element of type {tp_name(bad)} at pos {i}")
    return argument_error(normalized_shape, "tuple of ints", "normalized_shape", op, 2)


def check_layer_norm_inputs(input, normalized_shape, weight=None, bias=None, star="*, "):
    """torch's layer-norm argument checks, in its order; returns normalized_shape as a tuple of ints."""
    if not isinstance(normalized_shape, (list, tuple)):  # (torch's parser: a bare int is no int[] here)
        raise _shape_error(normalized_shape)
    try:  # (what indexes: int() would take 1.5 and make a ValueError of "x")
        ns = tuple(operator.index(s) for s in normalized_shape)
    except TypeError:
        raise _shape_error(normalized_shape) from None
    if len(ns) == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {what} to be of same shape as normalized_shape, but got {what} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(ns)}")
    if input.ndim < len(ns) or tuple(input.shape[input.ndim - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape [{star}"
                           f"{', '.join(map(str, ns))}], but got input of size{list(input.shape)}")
    return ns


@register("native_layer_norm", method=False)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Layer norm returning ``(output, mean, rstd)``; the statistics keep the normalised dims as size 1.

    >>> import torchlike as torch
    >>> [t.shape for t in torch.native_layer_norm(torch.ones(2, 3, 4), [4], None, None, 1e-5)]
    [torch.Size([2, 3, 4]), torch.Size([2, 3, 1]), torch.Size([2, 3, 1])]
    """
    shape = check_layer_norm_inputs(input, normalized_shape, weight, bias)
    check_param_dtypes(input, weight, bias)
    k = len(shape)
    rest, has_w, has_b = _extra(weight, bias)
    axes = tuple(range(input.ndim - k, input.ndim))
    return _stats_out(dispatch(layer_norm_impl, (input,) + rest,
                               (("axes", axes), ("eps", float(eps)), ("has_w", has_w), ("has_b", has_b),
                                ("wshape", shape)), name="NativeLayerNormBackward0"))


def _seq_sum(t):
    """float32 terms along the last axis added one after another (a scan: a C loop's rounding)."""
    if t.shape[-1] == 0:
        return jnp.zeros(t.shape[:-1], t.dtype)
    return lax.scan(lambda acc, v: (acc + v, None), t[..., 0], jnp.moveaxis(t[..., 1:], -1, 0))[0]


def _channel_sum(xf, term):
    """aten's batch_norm_cpu_collect_stats_contiguous_internal sum per channel of ``term(x)`` over a
    contiguous half-type (N, C, *) input: each row's whole half vectors into a float vector (lane i takes the
    elements i and i + f of each block), the rest one by one, then the vector's lanes as a tree."""
    f = aten_vector_bytes() // 4
    n, c = xf.shape[0], xf.shape[1]
    rows = jnp.moveaxis(xf.reshape(n, c, -1), 1, 0)  # (C, N, image)
    v = term(rows)
    size = v.shape[-1]
    cut = size - size % (2 * f)
    tail = _seq_sum(v[..., cut:].reshape(c, -1))
    if not cut:
        return tail
    lanes = _seq_sum(jnp.moveaxis(v[..., :cut].reshape(c, -1, f), 1, 2))  # (C, f), in row order
    return tail + lane_tree_sum([lanes[:, k] for k in range(f)])


def _batch_norm_half(x, rest, use_batch, eps, has_w, has_b):
    """torch's float16/bfloat16 CPU batch norm (contiguous input): the statistics in float32, stored in the
    parameters' dtype (the input's, or float32 for "mixed" float32 parameters), the variance ``var_sum / n``
    in that dtype, then ``y = x * alpha + beta`` with ``alpha = invstd * w`` and ``beta = b - mean * alpha`` in
    float32 (aten's batch_norm_cpu_collect_linear_and_constant_terms), rounded once."""
    f32 = jnp.float32
    mixed = any(r.dtype != x.dtype for r in rest)
    pdt = f32 if mixed else x.dtype

    def rp(v):  # a float64 value stored as float32, then in the parameters' dtype
        v = _r(v)
        return v if mixed else round_to(v, pdt)

    # (float64 with float32 roundings, _r: XLA's float32 divides through a reciprocal, takes 1 / sqrt as rsqrt
    # and fuses multiply-adds, none of which aten's kernel does)
    f64 = jnp.float64
    xf = x.astype(f32)
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    i = int(has_w) + int(has_b)
    if use_batch:
        n = max(x.size // max(x.shape[1], 1), 1)
        mean_f = _r(_channel_sum(xf, lambda v: v).astype(f64) / n).astype(f32)
        var_sum = _channel_sum(xf, lambda v: (v - mean_f[:, None, None]) * (v - mean_f[:, None, None]))
        if pdt == jnp.bfloat16:  # (measured against torch: bfloat16 stores var_sum and var_sum / n as
            var = rp(rp(var_sum) / rp(jnp.asarray(n, f64)))  # bfloat16, float16 keeps both in float32)
        else:
            var = _r(var_sum.astype(f64) / n)
        # (aten's InvStd adds the double eps: computed in double, stored as float, then in the param dtype)
        invstd = rp(jnp.where((var != 0) | (eps != 0), 1 / jnp.sqrt(var + eps), 0))
        mean = rp(mean_f.astype(f64))
    else:
        var = rest[i + 1].astype(f64)
        mean = rest[i].astype(f64)
        invstd = _r(1 / _r(jnp.sqrt(_r(var + _r(jnp.asarray(eps, f64))))))
    w = rest[0].astype(f64) if has_w else jnp.ones((), f64)
    b = rest[int(has_w)].astype(f64) if has_b else jnp.zeros((), f64)
    alpha = _r(invstd * w)
    beta = _r(b - _r(mean * alpha))
    y = _r(x.astype(f64) * alpha.reshape(shape)) + beta.reshape(shape)
    mean, invstd, var = (v.astype(f32) for v in (mean, invstd, var))
    return y.astype(x.dtype), mean, invstd, var


def _batch_norm_impl(x, *rest, use_batch, eps, has_w, has_b, has_stats):
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return _batch_norm_half(x, rest, use_batch, eps, has_w, has_b)
    xf = _opmath(x)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    i = (1 if has_w else 0) + (1 if has_b else 0)
    if use_batch:
        mean = jnp.mean(xf, axis=axes)
        var = jnp.mean(jnp.square(xf - mean.reshape(shape)), axis=axes)
    else:
        mean, var = _opmath(rest[i]), _opmath(rest[i + 1])
    invstd = 1.0 / jnp.sqrt(var + eps)
    y = _affine((xf - mean.reshape(shape)) * invstd.reshape(shape), rest, has_w, has_b, shape)
    return y.astype(x.dtype), mean.astype(xf.dtype), invstd.astype(xf.dtype), var


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, name):
    check_param_dtypes(input, weight, bias, running_mean, running_var)
    rest, has_w, has_b = _extra(weight, bias)
    has_stats = running_mean is not None and running_var is not None
    use_batch = bool(training) or not has_stats
    if not use_batch:
        rest = rest + (running_mean, running_var)
    y, mean, invstd, var = dispatch(_batch_norm_impl, (input,) + rest,
                                    (("use_batch", use_batch), ("eps", float(eps)), ("has_w", has_w),
                                     ("has_b", has_b), ("has_stats", has_stats)), name=name)
    if training and has_stats:
        n = input.numel() // input.shape[1]
        with no_grad():
            running_mean.mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype) * momentum)
            unbiased = var.detach() * (n / max(n - 1, 1))
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
    # torch's CPU kernel keeps the statistics in float32 for a half input with float32 parameters ("mixed
    # dtype"), and in the input's dtype otherwise
    param = next((t for t in (weight, bias, running_mean, running_var) if t is not None), None)
    sdt = param.dtype if param is not None and mean.dtype != input.dtype else input.dtype
    if not use_batch:
        return y, empty(0, dtype=sdt), empty(0, dtype=sdt)
    return y, mean.detach().to(sdt), invstd.detach().to(sdt)


def _bn_out(fn, out, args, kwargs):
    """The batch norms' ``out=(output, save_mean, save_invstd)``: no cast into them (torch's typed kernel
    raises), and in eval mode the statistics' out tensors are left as they are (torch neither resizes nor
    writes them)."""
    res = fn(*args, **kwargs)
    out = tuple(out)
    for o, r in zip(out, res):
        if o.dtype is not r.dtype:
            raise RuntimeError(f"expected scalar type {_dtype._CAP[r.dtype.name]} but found {_dtype._CAP[o.dtype.name]}")
    if res[1].numel() == 0:
        return (write_out(out[0], res[0]),) + out[1:]
    return tuple(write_out(out, res))


@register("native_batch_norm", method=False, out_form=lambda out, *a, **k: _bn_out(native_batch_norm, out, a, k))
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch norm returning ``(output, save_mean, save_invstd)`` (empty statistics in eval mode).

    >>> import torchlike as torch
    >>> rm, rv = torch.zeros(2), torch.ones(2)
    >>> out, m, s = torch.native_batch_norm(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), None, None, rm, rv, True, 0.5, 0.0)
    >>> m.tolist(), rm.tolist(), rv.tolist()
    ([2.0, 3.0], [1.0, 1.5], [1.5, 1.5])
    """
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                       "NativeBatchNormBackward0")


@register("_native_batch_norm_legit", method=False,
          out_form=lambda out, *a, **k: _bn_out(_native_batch_norm_legit, out, a, k))
def _native_batch_norm_legit(input, weight, bias, *args):
    """torch's functional batch norm overloads: ``(input, weight, bias, running_mean, running_var, training,
    momentum, eps)`` and, without running statistics, ``(input, weight, bias, training, momentum, eps)``.

    >>> import torchlike as torch
    >>> torch._native_batch_norm_legit(torch.tensor([[1.0], [3.0]]), None, None, True, 0.1, 0.0)[1].tolist()
    [2.0]
    """
    if len(args) == 3 and not isinstance(args[0], Tensor):
        training, momentum, eps = args
        return _batch_norm(input, weight, bias, None, None, training, momentum, eps, "NativeBatchNormBackward0")
    running_mean, running_var, training, momentum, eps = args
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                       "NativeBatchNormBackward0")


def group_norm_impl(x, *rest, n, c, group, eps, has_w, has_b):
    """The one group-norm kernel (native_group_norm and F.group_norm): (y, mean, rstd) over ``group`` groups
    of channels (and every spatial element) per sample."""
    xf = _opmath(x).reshape(n, group, math.prod(x.shape[1:]) // group)  # (not -1: an empty batch has n = 0)
    mean = jnp.mean(xf, axis=-1)
    var = jnp.mean(jnp.square(xf - mean[..., None]), axis=-1)
    rstd = 1.0 / jnp.sqrt(var + eps)
    y = ((xf - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    y = _affine(y, rest, has_w, has_b, (1, c) + (1,) * (x.ndim - 2))
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


@register("native_group_norm", method=False)
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group norm returning ``(output, mean, rstd)``, the statistics of shape ``(N, group)``.

    >>> import torchlike as torch
    >>> [t.shape for t in torch.native_group_norm(torch.ones(2, 4, 3), None, None, 2, 4, 3, 2, 1e-5)]
    [torch.Size([2, 4, 3]), torch.Size([2, 2]), torch.Size([2, 2])]
    """
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={group}")
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected the input to have {N * C * HxW} elements, but got {input.numel()}")
    check_param_dtypes(input, weight, bias)
    if not input.is_contiguous(memory_format=_mfmt.suggest(input)):  # (torch's kernel reads X's memory)
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    rest, has_w, has_b = _extra(weight, bias)
    return dispatch(group_norm_impl, (input,) + rest,  # (torch differentiates all three outputs here)
                    (("n", int(N)), ("c", int(C)), ("group", int(group)), ("eps", float(eps)),
                     ("has_w", has_w), ("has_b", has_b)), name="NativeGroupNormBackward0")

