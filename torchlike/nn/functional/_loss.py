"""Loss functions (torch.nn.functional.*_loss, cross_entropy, ...).

Each loss is one jitted JAX function (elementwise loss + reduction fused) called through
``dispatch``; the reduction is a static argument, scalar hyper-parameters are dynamic.  The margin
(hinge) losses are in ``_margin_loss``; this file holds the regression, probability and class losses and
the reduction helpers they share.

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.mse_loss(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 4.0]))
tensor(2.)
"""
from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from ... import _dtype, _views
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ..._ops._util import check_broadcast, exact_div, exact_mean, round_to, wrap_dim
from ..._ops.special import _softmax_impl
from ...tensor import Tensor
from ... import _autocast as _amp
from ..._errors import broadcast_shape, tp_name
from ..._creation import full as _full
from ..._grad_mode import no_grad
from ._misc import _abs0
from ..._ops.checks import need_tensors as _need_tensors, not_differentiable

__all__ = ["l1_loss", "mse_loss", "huber_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "nll_loss", "cross_entropy", "poisson_nll_loss",
           "gaussian_nll_loss"]


# ---- reduction helpers --------------------------------------------------------------------------
def legacy_get_string(size_average, reduce, emit_warning=True):
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=3)
    return ret


def _red(reduction, size_average=None, reduce=None, allowed=("none", "mean", "sum")):
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduced_node(reduction, unreduced, mean="MeanBackward0"):
    """The node torch's composite loss ends in: its reduction's, or (``"none"``) the last op of its formula."""
    return unreduced if reduction == "none" else mean if reduction == "mean" else "SumBackward0"


def _reduce(l, reduction):
    if reduction == "mean":  # torch: sum / n, a true division
        return exact_mean(l)
    if reduction == "sum":
        return jnp.sum(l)
    return l


_HALF = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def _up(x):
    return x.astype(jnp.float32) if x.dtype in _HALF else x


def _rounds_as(dt):
    """``r(v)``: ``v`` rounded to ``dt`` and computed on in float32 where ``dt`` is a half type (torch's op-by-op
    formulas round each op's result to the input's type), else ``v`` itself."""
    if np.dtype(dt) in _HALF:
        return lambda v: round_to(v, dt)
    return _exact


def _exact(v):
    """``_rounds_as``'s ``r`` for float32/float64: no rounding between ops."""
    return v


def _s(v, x):
    return jnp.asarray(v).astype(x.dtype)


def _size_warn(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _common_float(*ts):
    d = _dtype.result_type(*[t for t in ts if t is not None])
    return d if d.is_floating_point or d.is_complex else _dtype.get_default_dtype()


# ---- pointwise regression losses ----------------------------------------------------------------
def _pointwise_loss(x, y, w, *scal, kind, reduction, dt, out=None):
    # half types: torch's kernels round each op's result to the input's type (the difference, its square, ...)
    # where they compute in the half type, once at the end where they compute in float32 (measured against
    # torch 2.13: huber float16 and smooth_l1 bfloat16 in float32 with the unrounded delta/beta, the other
    # half-type cases op by op with a rounded delta/beta); a reduction accumulates the rounded values in float32
    r = _rounds_as(dt)
    x, y = _up(x.astype(dt)), _up(y.astype(dt))
    if kind in ("huber", "smooth_l1") and (kind == "huber") == (np.dtype(dt) == np.float16):
        r = _rounds_as(np.float32)  # computed in float32: rounded once below
        d = x - y
        p = jnp.asarray(scal[0], jnp.float32) if np.dtype(dt) in _HALF else _s(scal[0], d)
    else:
        d = r(x - y)
        p = r(_s(scal[0], d)) if scal else None
    z = _abs0(d)
    if kind == "l1":
        l = z
    elif kind == "mse":
        l = r(d * d)
    elif kind == "huber":
        l = jnp.where(z < p, r(r(0.5 * z) * z), r(p * r(z - r(0.5 * p))))
    elif kind == "smooth_l1":
        l = jnp.where(z < p, r(exact_div(r(r(0.5 * z) * z), jnp.where(p > 0, p, 1))), r(z - r(0.5 * p)))
    else:  # soft margin: torch's log1p(exp(-x * y)) (inf past exp's range), each op rounded to the input's type
        l = r(jnp.log1p(r(jnp.exp(r(-x * y)))))
    r = _rounds_as(dt)
    if kind == "l1" and jnp.issubdtype(dt, jnp.complexfloating):
        dt = jnp.finfo(dt).dtype  # torch: |input - target| of complex inputs is real
    l = r(l)
    if w is not None:  # torch's Python-level weighting: loss * weight, then sum(.) / sum(weight) (each rounded)
        wv = _up(w.astype(dt))
        l = r(l * wv)
        if reduction == "mean" and kind != "huber":
            return (r(jnp.sum(l)) / r(jnp.sum(wv))).astype(dt)
    if out is not None:  # huber, soft_margin: computed in the common type into a tensor of the input's type
        l, dt = _up(l.astype(out)), out
    return _reduce(l, reduction).astype(dt)


# the losses torch computes with one CPU kernel defined for floating dtypes (l1 and soft_margin are composites)
_REAL_FLOAT_KERNELS = {"mse": "mse_cpu", "smooth_l1": "smooth_l1_cpu", "huber": "huber_cpu"}


def _into_input(input, target, op):
    """torch's huber_loss/soft_margin_loss write into a tensor of the input's shape and dtype: its shape and
    dtype errors (the broadcast shape must be the input's, the common type must cast to the input's type)."""
    check_broadcast(input.shape, target.shape)
    shape = broadcast_shape(input.shape, target.shape)
    if shape != tuple(input.shape) and op != "huber":  # (huber's input is broadcast to the target first)
        raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}")
    d, o = _loss_type(input, target, op), input.dtype
    if op == "soft_margin" and o is _dtype.bool:  # its first op is -input
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if op == "soft_margin" and not (d.is_floating_point or d.is_complex):
        d = _dtype.get_default_dtype()  # (exp_ of the integral product)
    if not _dtype.can_cast(d, o) or (op == "soft_margin" and not (o.is_floating_point or o.is_complex)):
        raise RuntimeError(f"result type {_dtype._CAP[d.name]} can't be cast to the desired output type "
                           f"{_dtype._CAP[o.name]}")
    return o.np


# the losses whose torch Python function broadcasts input and target (torch.broadcast_tensors) before its kernel:
# their result type is the operands' dtypes promoted as tensors with dims (a 0-d operand's type counts in full)
_BROADCAST_FIRST = frozenset({"l1", "mse", "smooth_l1", "huber"})


def _loss_type(input, target, kind):
    if kind in _BROADCAST_FIRST:
        return _dtype.promote_types(input.dtype, target.dtype)
    return _dtype.result_type(input, target)


def _pw(input, target, weight, scal, kind, reduction, node):
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if kind in _BROADCAST_FIRST and weight is None:
        dt = _loss_type(input, target, kind)
        dt = dt if dt.is_floating_point or dt.is_complex else _dtype.get_default_dtype()
    else:
        dt = _common_float(input, target)
    out = _into_input(input, target, kind) if kind in ("huber", "soft_margin") else None
    check_broadcast(input.shape, target.shape)
    kernel = _REAL_FLOAT_KERNELS.get(kind)
    if kernel is not None:  # torch's fused kernels: floating inputs only (after broadcasting, as TensorIterator)
        d = _loss_type(input, target, kind)
        if not d.is_floating_point:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[d.name]}\'')
    return dispatch(_pointwise_loss, (input, target, weight) + tuple(scal),
                    (("kind", kind), ("reduction", reduction), ("dt", dt.np), ("out", out)), name=node)


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error.

    >>> import torchlike as torch
    >>> torch.nn.functional.l1_loss(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 1.0]))
    tensor(1.)
    """
    _size_warn(input, target)
    reduction = _red(reduction, size_average, reduce)
    d = _loss_type(input, target, "l1")
    if weight is None and (input.dtype is _dtype.bool or target.dtype is _dtype.bool
                           or not (d.is_floating_point or d.is_complex)):
        # torch's composite: |input - target| in their integral type (- refuses bool), mean refuses integers
        if input.dtype is not _dtype.bool and target.dtype is not _dtype.bool:  # (the broadcast operands' type)
            input, target = input.to(d), target.to(d)
        d = (input - target).abs()
        return d if reduction == "none" else d.mean() if reduction == "mean" else d.sum()
    return _pw(input, target, weight, (), "l1", reduction, _reduced_node(
        reduction, "AbsBackward0" if weight is None else "MulBackward0",
        "MeanBackward0" if weight is None else "DivBackward0"))


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error."""
    _size_warn(input, target)
    return _pw(input, target, weight, (), "mse", _red(reduction, size_average, reduce), "MseLossBackward0")


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below ``delta``, linear (slope delta) above."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _size_warn(input, target)
    return _pw(input, target, weight, (delta,), "huber", _red(reduction), "HuberLossBackward0")


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic (divided by beta) below ``beta``, L1 above."""
    _size_warn(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pw(input, target, None, (beta,), "smooth_l1", _red(reduction, size_average, reduce),
               "SmoothL1LossBackward0")


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """mean(log(1 + exp(-y * x)))."""
    _need_tensors("soft_margin_loss", input=input, target=target)
    not_differentiable("soft_margin_loss", target=target)
    return _pw(input, target, None, (), "soft_margin", _red(reduction, size_average, reduce),
               "SoftMarginLossBackward0")


# ---- binary cross entropy -----------------------------------------------------------------------
def _bce(x, y, w, reduction):
    xd = _up(x)
    yd = _up(y)
    # torch clamps each log at -100 so that log(0) stays finite
    l = -(yd * jnp.maximum(jnp.log(xd), -100.0) + (1 - yd) * jnp.maximum(jnp.log1p(-xd), -100.0))
    if w is not None:
        l = l * _up(w)
    return _reduce(l, reduction).astype(x.dtype)


def _needs_float(input, kernel):
    """torch's CPU kernels (log_softmax, nll_loss) exist for floating dtypes only: its error for any other."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')


def _check_probabilities(t, what):
    """torch's CPU binary_cross_entropy checks every value is in [0, 1] (NaN is not): a concrete ``t`` only."""
    if t.numel() and t.device.type != "meta" and not isinstance(t._value, jax.core.Tracer):
        v = _views.host_values(t)
        if not ((v >= 0) & (v <= 1)).all():
            raise RuntimeError(f"all elements of {what} should be between 0 and 1")


def _check_expandable(weight, shape):
    """torch's check that bce's weight broadcasts to the loss's shape (one way: it is never the larger one)."""
    ws = tuple(weight.shape)
    if len(ws) > len(shape):
        b = broadcast_shape(shape, ws)
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(b)}")
    for k in range(1, len(ws) + 1):
        if ws[-k] != 1 and ws[-k] != shape[-k]:
            raise RuntimeError(f"Attempting to broadcast a dimension of length {ws[-k]} at -{k}! Mismatching argument "
                               f"at index 1 had torch.Size({list(ws)}); but expected shape should be broadcastable to "
                               f"{list(shape)}")


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-w * (y log x + (1 - y) log(1 - x)) for probabilities ``input``."""
    reduction = _red(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_dtype._CAP[target.dtype.name]} but expected "
                           f"{_dtype._CAP[input.dtype.name]}")
    _needs_float(input, "binary_cross_entropy")
    if input.device.type != "cuda":  # CUDA asserts asynchronously instead
        _check_probabilities(input, "input")
        _check_probabilities(target, "target")
    not_differentiable("binary_cross_entropy", weight=weight)
    if weight is not None:
        _check_expandable(weight, tuple(target.shape))
        weight = weight.expand(broadcast_shape(tuple(target.shape), tuple(weight.shape)))
    return dispatch(_bce, (input, target, weight), (("reduction", reduction),), name="BinaryCrossEntropyBackward0")


def _bce_logits(x, y, w, pw, reduction):
    # torch's composite: log_sigmoid(x) (one kernel), then (1 - y).mul_(x).sub_(that) (times the pos_weight
    # factor (pos_weight - 1).mul(y).add_(1), then weight): half types round after each of those ops
    # (the loss is (1 - y)'s tensor: the target's type, ops computed in the common type rounded to it)
    xd, yd, r, ro = _up(x), _up(y), _rounds_as(x.dtype), _rounds_as(y.dtype)
    ls = r(-(jnp.log1p(jnp.exp(-jnp.abs(xd))) + jnp.maximum(-xd, 0)))  # log_sigmoid(x) = -softplus(-x), stable
    if pw is not None:
        ls = r(ls * r(r(r(_up(pw) - 1) * yd) + 1))
    l = ro(ro(ro(1 - yd) * xd) - ls)
    if w is not None:
        l = ro(l * _up(w))
    return _reduce(l, reduction).astype(y.dtype)


def _bce_logits_dtypes(input, target):
    """torch's errors of its composite's ops: log_sigmoid(input) (floating types only), 1 - target (not of a
    bool), then .mul_(input) into the target's type."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    if target.dtype is _dtype.bool:  # (1 - a bool tensor is bool - bool to torch)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                           "`^` or `logical_xor()` operator instead.")
    if not target.dtype.is_complex:
        raise RuntimeError(f"result type {_dtype._CAP[input.dtype.name]} can't be cast to the desired output type "
                           f"{_dtype._CAP[target.dtype.name]}")


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((1, "target"), (0, "input"))
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Sigmoid + BCE in one numerically stable step; ``pos_weight`` weights positive examples."""
    reduction = _red(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):  # (a cheap test: floats pass)
        _bce_logits_dtypes(input, target)
    if pos_weight is not None:  # torch's (pos_weight - 1).mul(target), then loss.mul_(weight): its operand order
        broadcast_shape(tuple(pos_weight.shape), tuple(target.shape))
    if weight is not None:
        broadcast_shape(tuple(input.shape), tuple(weight.shape))
    return dispatch(_bce_logits, (input, target, weight, pos_weight), (("reduction", reduction),),
                    name="BinaryCrossEntropyWithLogitsBackward0")


# ---- KL divergence ------------------------------------------------------------------------------
def _kl(x, t, reduction, log_target, batch):
    xd, td = _up(x), _up(t)
    if log_target:
        l = jnp.exp(td) * (td - xd)
    else:
        l = jax.scipy.special.xlogy(td, td) - td * xd
    if reduction == "batchmean":
        r = jnp.sum(l) / batch
    else:
        r = _reduce(l, reduction)
    return r.astype(jnp.result_type(x.dtype, t.dtype))


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((1, "target"), (0, "input"))
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || exp(input)) pointwise; ``reduction='batchmean'`` is the mathematical KL."""
    _need_tensors("kl_div", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
    for kinds, what in (((3,), "Complex"), ((0, 1), "Integral")):  # (torch's order)
        if input.dtype._kind in kinds or target.dtype._kind in kinds:
            raise RuntimeError(f"kl_div: {what} inputs not supported.")
    if reduction == "batchmean" and input.dim() == 0:
        reduction = "sum"
    batch = input.shape[0] if input.dim() else 1
    broadcast_shape(tuple(target.shape), tuple(input.shape))  # (torch's target * (log(target) - input))
    return dispatch(_kl, (input, target), (("reduction", reduction), ("log_target", bool(log_target)),
                                           ("batch", batch)),
                    name="DivBackward0" if reduction == "batchmean" else _reduced_node(
                        reduction, "MulBackward0" if log_target else "SubBackward0"))


# ---- NLL / cross entropy ------------------------------------------------------------------------
def _cascade_sum(v, r):
    """The sum of the 1-D ``v`` in the order of torch's CPU nll_loss kernel: eight levels of partial sums, each
    passing its total up every 16 rows (element 0 passes straight to the top level), added up at the end;
    every add rounded by ``r`` (the kernel's partial sums have the input's type)."""
    if v.shape[0] == 0:
        return jnp.zeros((), v.dtype)
    parts, seq, top = [], v[1:], v[0]
    for _ in range(7):
        full = seq.shape[0] // 16
        blocks, tail = seq[:full * 16].reshape(full, 16), seq[full * 16:]
        sums, rest = jnp.zeros((full,), v.dtype), jnp.zeros((), v.dtype)
        for k in range(16):
            sums = r(sums + blocks[:, k])
        for k in range(tail.shape[0]):
            rest = r(rest + tail[k])
        parts.append(rest)
        seq = sums
    for k in range(seq.shape[0]):
        top = r(top + seq[k])
    total = jnp.zeros((), v.dtype)
    for part in parts + [top]:
        total = r(total + part)
    return total


def _class_nll(logp, t, w, ignore_index, label_smoothing, reduction, cdim, checked=False, r=_exact):
    """NLL of integer targets ``t`` under log-probabilities ``logp`` (class dim ``cdim``); ``checked``: the
    targets were range-checked on the host, so a clamped gather (~7x faster on XLA's CPU) picks the same.
    ``r``: the rounding of cross_entropy's half-type ops (its label smoothing terms are separate torch ops)."""
    C = logp.shape[cdim]
    valid = t != ignore_index
    tc = jnp.where(valid, t, 0)
    mode = "clip" if checked else None
    picked = jnp.take_along_axis(logp, jnp.expand_dims(tc, cdim), axis=cdim, mode=mode).squeeze(cdim)
    if w is not None:
        wt = jnp.where(valid, w[tc], 0).astype(logp.dtype)
    else:
        wt = valid.astype(logp.dtype)
    nll = r(-picked * wt)
    if reduction in ("mean", "sum") and logp.ndim == 2 and r is not _exact:
        # torch's nll_loss_out_frame: cascaded partial sums in the input's type (each add rounded).  Half types
        # only: the cascade is ~200 ops per program (2-3x the compile time of an eager cross_entropy per new
        # shape), and in float32 it moves the sum by an ulp or so, where a half type's rounding moves it by ~1e-3
        nll_r, denom = _cascade_sum(nll, r), _cascade_sum(wt, r) if w is not None else r(jnp.sum(wt))
        if reduction == "mean":
            nll_r = r(exact_div(nll_r, denom))
    elif reduction == "mean":
        denom = jnp.sum(wt)
        nll_r = jnp.sum(nll) / denom
    else:
        nll_r = _reduce(nll, reduction)
    if label_smoothing is None:
        return nll_r
    if w is not None:
        shape = [1] * logp.ndim
        shape[cdim] = C
        smooth = -r(jnp.sum(r(logp * w.reshape(shape).astype(logp.dtype)), axis=cdim))
    else:
        smooth = -r(jnp.sum(logp, axis=cdim))
    smooth = jnp.where(valid, smooth, 0)
    if reduction == "mean":
        # (torch: smooth.sum() / (the kept targets' weights, or their count).sum(), each in the input's type)
        smooth_r = r(exact_div(r(jnp.sum(smooth)), r(jnp.sum(wt))))
    else:
        smooth_r = r(_reduce(smooth, reduction))
    # (1 - label_smoothing) * nll + smooth * (label_smoothing / C): Python-float factors, each product rounded
    keep, share = (jnp.asarray(v, logp.dtype) for v in (1 - label_smoothing, label_smoothing / C))
    return r(r(keep * r(nll_r)) + r(smooth_r * share))


def _nll(x, t, w, ignore_index, reduction, cdim, checked=False):
    xd = _up(x)
    return _class_nll(xd, t, w, ignore_index, None, reduction, cdim, checked, _rounds_as(x.dtype)).astype(x.dtype)


def _ce_index(x, t, w, ignore_index, label_smoothing, reduction, cdim, smoothing, checked=False):
    r = _rounds_as(x.dtype)  # torch: log_softmax's result has the input's type (its kernel's roundings)
    logp = _up(_softmax_impl(x, cdim, None, True, False))
    return _class_nll(logp, t, w, ignore_index, label_smoothing if smoothing else None, reduction,
                      cdim, checked, r).astype(x.dtype)


def _ce_probs(x, t, w, label_smoothing, reduction, cdim):
    # torch's composite: log_softmax in the input's type, the target's smoothing in its type, then the products
    # and sums in the promoted type, each op rounded to a half type (an added Python scalar too; the multiplied
    # one stays float32)
    out = jnp.promote_types(x.dtype, t.dtype)
    rt, r = _rounds_as(t.dtype), _rounds_as(out)
    logp = _up(_softmax_impl(x, cdim, None, True, False).astype(out))
    C = x.shape[cdim]
    td = _up(t).astype(logp.dtype)
    eps = jnp.asarray(label_smoothing).astype(logp.dtype)  # (0: the target as it is)
    td = r(rt(rt(td * (1 - eps)) + rt(eps / C)))
    prod = r(logp * td)
    if w is not None:
        shape = [1] * x.ndim
        shape[cdim] = C
        prod = r(prod * w.reshape(shape).astype(logp.dtype))
    if reduction == "none":
        return (-r(jnp.sum(prod, axis=cdim))).astype(out)
    total = -r(jnp.sum(prod))
    if reduction == "mean" and x.ndim > 1:
        total = r(exact_div(total, x.size // C if x.size else 1))
    return total.astype(out)


def _check_targets(input, target, weight, cdim, ignore_index, kernel=None):
    """torch's checks of the targets; True when their values were range-checked on the host. ``kernel``: the
    input's dtype check of the kernel (nll_loss's), which torch runs after the shape checks."""
    # torch's order: nll_loss_nd's rank/batch checks, the kernel's shape checks, then the target dtype
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim > 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):  # (torch reads a 0-d
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "  # target's
                         f"({target.shape[0] if target.ndim else 0}).")  # batch size as 0)
    if input.ndim > 1 and target.ndim == 0:  # (an empty batch: torch's next read of the target's size)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype is not _dtype.int64 and target.dtype is not _dtype.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_dtype._CAP[target.dtype.name]}")
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    if input.ndim > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        if input.ndim == 4 and target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                               f"{target.ndim}")
        if input.ndim == 4:  # torch's 2-d kernel words it differently
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
        raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
                           f"{list(target.shape)}")
    C = input.shape[cdim]
    if weight is not None and (weight.numel() != C or input.ndim <= 2 and weight.ndim != 1):  # (torch's 1-d kernel
        # wants a 1-D weight; its 2-d one only counts)
        raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    if kernel is not None:
        _needs_float(input, kernel)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._CAP[input.dtype.name]} but found "
                           f"{_dtype._CAP[weight.dtype.name]}")
    if target.device.type != "cuda":  # CUDA asserts asynchronously instead
        return check_class_range(target, C, ignore_index)
    return False


def check_class_range(target, num_classes, ignore_index):
    """torch's CPU kernels raise on out-of-range class indices (not checkable while tracing); True when
    the values were checked."""
    ok = _views.checked_in_range(target, num_classes) if target.numel() else None
    if ok is not None:
        if ok:  # (the common case: one reduction, or none for the targets checked last)
            return True
        t = _views.checked_host_values(target)
        bad = (t != ignore_index) & ((t < 0) | (t >= num_classes))
        if bad.any():
            t = np.asarray(target._value)  # the first bad target in the view's own order
            bad = (t != ignore_index) & ((t < 0) | (t >= num_classes))
            raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
        return True
    return False


@_functional()
@_amp.fp32
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class indices; input holds log-probabilities (N, C, ...)."""
    _need_tensors("nll_loss_nd", input=input, target=target)
    reduction = _red(reduction, size_average, reduce)
    cdim = 1 if input.ndim > 1 else 0
    not_differentiable("nll_loss2d_forward" if input.ndim >= 3 else "nll_loss_forward", weight=weight)
    checked = _check_targets(input, target, weight, cdim, ignore_index,
                             "nll_loss2d_forward_out_frame" if input.ndim >= 3 else "nll_loss_out_frame")
    if input.ndim == 1 and target.ndim == 1:  # (a 1-D input's one target: torch reads it as 0-D)
        target = target.reshape(())
    statics = (("reduction", reduction), ("cdim", cdim)) + ((("checked", True),) if checked else ())
    return dispatch(_nll, (input, target, weight, ignore_index), statics, name="NllLossBackward0")


# A hook this layer exposes: ``torch.distributed.tensor.parallel.loss_parallel`` appends its handler while it is
# active, and cross_entropy of a Tensor subclass (a DTensor) is then ``handler(cross_entropy, *arguments)``.
subclass_cross_entropy: list = []


@_functional()
@_amp.fp32
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax + NLL fused; targets are class indices or class probabilities.

    >>> import torchlike as torch
    >>> torch.nn.functional.cross_entropy(torch.zeros(2, 4), torch.tensor([0, 3]))
    tensor(1.3863)
    """
    if subclass_cross_entropy and isinstance(input, Tensor) and type(input) is not Tensor:
        return subclass_cross_entropy[-1](cross_entropy, input, target, weight, size_average, ignore_index, reduce,
                                          reduction, label_smoothing)
    reduction = _red(reduction, size_average, reduce)
    if not isinstance(input, Tensor):
        raise TypeError(f"cross_entropy_loss(): argument 'input' (position 1) must be Tensor, not "
                        f"{tp_name(input)}")
    # torch's order: the class-probabilities branch (same shapes) checks the target's dtype, reads the class dim's
    # size, then log_softmax's dtype and the smoothing's range; the class-index branch checks the smoothing's range
    # (where smoothing at all), then log_softmax's dim and dtype (a negative smoothing is taken as given)
    cdim = 1 if input.ndim > 1 else 0
    kernel = "log_softmax_kernel_impl" if input.ndim >= 3 else "log_softmax_lastdim_kernel_impl"
    # (torch prints the smoothing as C++'s stream does: 2.0 as 2)
    bad_smoothing = RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if tuple(target.shape) == tuple(input.shape):  # same shapes: torch reads class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_dtype._CAP[target.dtype.name]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        C = input.shape[cdim]
        if weight is not None and (weight.ndim != 1 or weight.numel() != C):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {C} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.shape)}")
        _needs_float(input, kernel)
        if label_smoothing > 1.0:
            raise bad_smoothing
    else:
        if label_smoothing > 1.0:
            raise bad_smoothing
        if input.ndim == 0:
            wrap_dim(1, 0)  # (log_softmax over dim 1: its IndexError)
        _needs_float(input, kernel)
    if target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape):
        return dispatch(_ce_probs, (input, target, weight, max(label_smoothing, 0.0)),  # (torch ignores one < 0)
                        (("reduction", reduction), ("cdim", cdim)),
                        name="DivBackward1" if reduction == "mean" else "NegBackward0")  # torch's -sum(...) [/ n]
    not_differentiable("nll_loss2d_forward" if input.ndim >= 3 else "nll_loss_forward", weight=weight)
    checked = _check_targets(input, target, weight, cdim, ignore_index)
    if input.ndim == 1 and target.ndim == 1:  # (a 1-D input's one target: torch reads it as 0-D)
        target = target.reshape(())
    statics = (("reduction", reduction), ("cdim", cdim), ("smoothing", label_smoothing > 0))
    if checked:
        statics += (("checked", True),)
    return dispatch(_ce_index, (input, target, weight, ignore_index, label_smoothing), statics,
                    name="AddBackward0" if label_smoothing > 0 else "NllLossBackward0")  # nll + smoothing term


# ---- Poisson / Gaussian NLL ---------------------------------------------------------------------
def _poisson_nll(x, t, eps, log_input, full, reduction, out_dt):
    # torch's composite formula: half types round after each op, and an added Python scalar to the type
    # (torch's add wraps it as a tensor of the type; mul and div keep it in float32)
    xd, td, r = _up(x.astype(out_dt)), _up(t.astype(out_dt)), _rounds_as(out_dt)
    if log_input:
        l = r(r(jnp.exp(xd)) - r(td * xd))
    else:
        l = r(xd - r(td * r(jnp.log(r(xd + r(_s(eps, xd)))))))  # (an added Python scalar: rounded too)
    if full:
        safe = jnp.where(td > 1, td, 2)
        st = r(r(r(safe * r(jnp.log(safe))) - safe) + r(0.5 * r(jnp.log(r(2 * math.pi * safe)))))
        l = r(l + jnp.where(td > 1, st, 0))
    return _reduce(l, reduction).astype(out_dt)


@_functional()
@_amp.fp32
@_mfmt.pointwise_follows((0, "input"), (1, "target"))
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood (``log_input``: input is log-rate)."""
    _need_tensors("poisson_nll_loss", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    check_broadcast(target.shape, input.shape)  # torch's first mixed op is target * input
    # torch's formula, exp(input) - target * input or input - target * log(input + eps): the float op's type
    # (integer inputs give the default float) promoted with the other term's; a bool minuend or bool - bool raises
    def fl(d):
        return d if d.is_floating_point or d.is_complex else _dtype.get_default_dtype()
    if log_input:
        out_dt = _dtype.promote_types(fl(input.dtype), _dtype.promote_types(input.dtype, target.dtype))
    else:
        out_dt = _dtype.promote_types(input.dtype, _dtype.promote_types(target.dtype, fl(input.dtype)))
    if (input.dtype is _dtype.bool and (target.dtype is _dtype.bool or not log_input)
            or full and target.dtype is _dtype.bool):  # (full: target * log(target) - target)
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if full and target.dtype.is_complex:  # (its Stirling term is masked where target <= 1)
        raise NotImplementedError(f'"le_cpu" not implemented for \'{_dtype._CAP[target.dtype.name]}\'')
    return dispatch(_poisson_nll, (input, target, eps), (("log_input", bool(log_input)), ("full", bool(full)),
                                                          ("reduction", reduction), ("out_dt", out_dt.np)),
                    name=_reduced_node(reduction, "AddBackward0" if full else "SubBackward0"))


def _gauss_nll(x, t, v, eps, full, reduction):
    xd, td, vd, r = _up(x), _up(t), _up(v), _rounds_as(x.dtype)
    # torch clamps a clone of var under no_grad: value clamped, gradient passes straight through
    vc = r(vd + jax.lax.stop_gradient(r(jnp.maximum(vd, _s(eps, vd))) - vd))  # (r: the clamped half value)
    # 0.5 * (log(var) + (input - target) ** 2 / var): half types round after each op
    l = r(0.5 * r(r(jnp.log(vc)) + r(r(r(xd - td) ** 2) / vc)))
    if full:
        l = r(l + r(_s(0.5 * math.log(2 * math.pi), l)))  # (the Python scalar is rounded to the type too)
    return _reduce(l, reduction).astype(x.dtype)


def _gauss_nll_composite(input, target, var, full, eps, reduction):
    """torch's formula op by op, for operands of mixed or non-floating types (their promotions and errors)."""
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


@_functional()
@_mfmt.pointwise_follows((2, "var"), (0, "input"), (1, "target"))
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood with predicted variance ``var``."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        d = input.dtype  # torch: var * ones_like(input)
        var = _full(tuple(input.shape), float(var), dtype=d if d.is_floating_point or d.is_complex else None)
    elif not isinstance(var._value, jax.core.Tracer) and bool(np.any(np.asarray(var._value) < 0)):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    check_broadcast(input.shape, target.shape)
    if not (input.dtype is target.dtype is var.dtype and input.dtype.is_floating_point):
        return _gauss_nll_composite(input, target, var, full, eps, reduction)
    return dispatch(_gauss_nll, (input, target, var, eps), (("full", bool(full)), ("reduction", reduction)),
                    name=_reduced_node(reduction, "AddBackward0" if full else "MulBackward0"))
