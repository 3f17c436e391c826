"""Margin (hinge) losses of torch.nn.functional: multilabel_soft_margin_loss, multilabel_margin_loss,
multi_margin_loss, cosine_embedding_loss, margin_ranking_loss, hinge_embedding_loss and the triplet losses.

Each is one jitted JAX function (elementwise loss + reduction fused) called through ``dispatch``, with
``_loss``'s reduction helpers.  Hinges use ``jnp.where(z >= 0, z, 0)`` so the gradient at the kink is torch's
``clamp_min`` gradient (1); the margin kernels that test ``z > 0`` use ``_hinge_strict`` (gradient 0).

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.margin_ranking_loss(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0]), torch.tensor([1.0, 1.0]))
tensor(0.5000)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ... import _dtype, _views
from ... import _autocast as _amp
from ..._dispatch import dispatch
from ..._ops.checks import need_tensors as _need_tensors, not_differentiable
from ..._ops.registry import functional as _functional
from ..._errors import broadcast_shape
from ..._ops._util import check_broadcast, exact_div
from ._loss import _common_float, _red, _reduce, _reduced_node, _rounds_as, _s, _up
from ._misc import _pdist_lastdim, pairwise_distance
from ...tensor import Tensor

__all__ = ["multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss", "cosine_embedding_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]


_SUB_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
_SUB_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")


def _check_sub(a, b):
    """torch's refusal of ``a - b`` where an operand is a bool tensor."""
    if a.dtype is _dtype.bool or b.dtype is _dtype.bool:
        raise RuntimeError(_SUB_BOOLS if a.dtype is b.dtype else _SUB_BOOL)


def _hinge(z):
    # clamp_min(z, 0) with torch's gradient (1 at z == 0); NaN stays NaN (gradient 0), as in torch
    if not jnp.issubdtype(z.dtype, jnp.inexact):
        return jnp.where(z >= 0, z, jnp.zeros((), z.dtype))
    return jnp.where(z >= 0, z, jnp.where(jnp.isnan(z), jax.lax.stop_gradient(z), jnp.zeros((), z.dtype)))


def _mlsm(x, t, w, reduction):
    # torch's Python formula, op by op: for half types each op's result is rounded to the input's type
    r = _rounds_as(x.dtype)
    xd, td = _up(x), _up(t)
    l = -r(r(td * r(jax.nn.log_sigmoid(xd))) + r(r(1 - td) * r(jax.nn.log_sigmoid(-xd))))
    if w is not None:
        l = r(l * _up(w))
    l = r(exact_div(r(jnp.sum(l, axis=-1)), x.shape[-1]))  # (a true division: XLA multiplies by 1/C)
    return _reduce(l, reduction).astype(x.dtype)


def _mlsm_composite(input, target, weight, reduction):
    """torch's Python formula op by op, for operands of mixed or non-floating types (their promotions, errors)."""
    from ._activation import logsigmoid  # lazy: _activation's import chain reaches the losses
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(dim=input.dim() - 1) / input.size(input.dim() - 1)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


@_functional()
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-label one-vs-all logistic loss, averaged over classes."""
    _need_tensors("log_sigmoid", input=input)
    reduction = _red(reduction, size_average, reduce)
    check_broadcast(target.shape, input.shape)  # torch's formula: target * logsigmoid(input) + ...
    if not (input.dtype is target.dtype and input.dtype.is_floating_point
            and (weight is None or getattr(weight, "dtype", None) is input.dtype)):
        return _mlsm_composite(input, target, weight, reduction)
    return dispatch(_mlsm, (input, target, weight), (("reduction", reduction),),
                    name=_reduced_node(reduction, "DivBackward0"))


def _mlm(x, t, reduction):
    xd = _up(x)
    squeeze = x.ndim <= 1
    if squeeze:
        xd, t = xd.reshape(1, -1), t.reshape(1, -1)
    C = xd.shape[-1]
    valid = jnp.cumprod(t != -1, axis=-1).astype(bool)
    onehot = (t[..., None] == jnp.arange(C)) & valid[..., None]  # (N, S, C)
    cnt = jnp.sum(onehot, axis=1).astype(xd.dtype)  # times each class is listed
    is_t = cnt > 0
    z = 1 - xd[:, :, None] + xd[:, None, :]  # [n, j, i] = 1 - (x_j - x_i)
    h = _hinge_strict(z) * (~is_t)[:, None, :].astype(xd.dtype)
    l = exact_div(jnp.sum(cnt[:, :, None] * h, axis=(1, 2)), C)
    if squeeze:
        l = l.reshape(())
    return _reduce(l, reduction).astype(x.dtype)


def _hinge_strict(z):
    # torch's margin kernels test `z > 0`: gradient 0 at the kink
    return jnp.where(z > 0, z, jnp.zeros((), z.dtype))


@_functional()
@_amp.fp32
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-class multi-label hinge loss; target lists class indices, terminated by -1."""
    _need_tensors("multilabel_margin_loss", input=input, target=target)
    reduction = _red(reduction, size_average, reduce)
    n = input.ndim
    if not (n == 0 or (n == 1 and input.shape[0]) or (n == 2 and input.shape[1])):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    return dispatch(_mlm, (input, target), (("reduction", reduction),), name="MultilabelMarginLossBackward0")


def _mm(x, t, w, margin, p, reduction):
    xd = _up(x)
    squeeze = x.ndim <= 1
    t_shape = t.shape  # (a single sample's loss takes the target's shape: () or (1,), as torch's)
    if squeeze:
        xd, t = xd.reshape(1, -1), t.reshape(1)
    C = xd.shape[-1]
    xy = jnp.take_along_axis(xd, t[:, None], axis=1)
    z = _s(margin, xd) - xy + xd
    h = _hinge_strict(z)
    if p == 2:
        h = h * h
    if w is not None:
        h = h * _up(w)[t][:, None]
    h = jnp.where(jnp.arange(C)[None, :] == t[:, None], 0, h)
    l = exact_div(jnp.sum(h, axis=1), C)
    if squeeze:
        l = l.reshape(t_shape)
    return _reduce(l, reduction).astype(x.dtype)


@_functional()
@_amp.fp32
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss: sum_i max(0, margin - x[y] + x[i])^p / C."""
    _need_tensors("multi_margin_loss", input=input, target=target)
    reduction = _red(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nd = input.dim()
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    nframe = input.shape[0] if nd == 2 else 1
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    classes = input.shape[-1] if nd else 1
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    if target.dtype is not _dtype.int64:  # (torch's kernel reads the target as int64)
        raise RuntimeError(f"expected scalar type Long but found {_dtype._CAP[target.dtype.name]}")
    ok = _views.checked_in_range(target, classes) if target.numel() else None  # (torch's kernel; None: traced)
    if ok is not None and not ok:
        raise RuntimeError("target out of range")
    not_differentiable("multi_margin_loss", weight=weight)
    return dispatch(_mm, (input, target, weight, margin), (("p", int(p)), ("reduction", reduction)),
                    name="MultiMarginLossBackward0")


def _cos_emb(x1, x2, y, margin, reduction, dim, din, dt):
    eps = 1e-12
    # torch's composite formula, each op's result stored in the input's type: for half inputs the products,
    # sums and the product of the squared norms round to half (it overflows to inf past 65504: cos = 0)
    r = _rounds_as(dt)
    if jnp.issubdtype(din, jnp.inexact):
        a, b = _up(x1.astype(din)), _up(x2.astype(din))
        prod = r(jnp.sum(r(a * b), axis=dim))
        m1 = r(r(jnp.sum(r(a * a), axis=dim)) + eps)
        m2 = r(r(jnp.sum(r(b * b), axis=dim)) + eps)
    else:  # torch: integer (or bool) products, summed into int64, then + eps gives the default float
        a, b = x1.astype(din), x2.astype(din)
        prod, m1, m2 = (_up(jnp.sum(u, axis=dim, dtype=jnp.int64).astype(dt)) for u in (a * b, a * a, b * b))
        m1, m2 = m1 + eps, m2 + eps
    cos = r(prod / r(jnp.sqrt(r(m1 * m2))))
    yv = y.astype(cos.dtype)
    l = r(jnp.where(yv == 1, r(1 - cos), 0) + jnp.where(yv == -1, r(_hinge(r(cos - _s(margin, cos)))), 0))
    return _reduce(l, reduction).astype(dt)


@_functional()
@_amp.fp32
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) for y = 1, max(0, cos - margin) for y = -1."""
    reduction = _red(reduction, size_average, reduce)
    if input1.dim() != input2.dim():
        raise RuntimeError(f"cosine_embedding_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    if target.dim() > 1:  # (at::cosine_embedding_loss's checks)
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dim() == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if target.dim() == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if target.dim() == 1:  # where(target == 1, 1 - cos, 0) broadcasts the target with the batch
        broadcast_shape(tuple(target.shape), tuple(input1.shape[:1]), tuple(input2.shape[:1]))
    dim = 1 if input1.dim() == 2 else 0
    din = _dtype.result_type(input1, input2)
    if din.is_complex:  # (torch's formula clamps the cosine)
        raise NotImplementedError("clamp is not supported for complex types")
    return dispatch(_cos_emb, (input1, input2, target, margin),
                    (("reduction", reduction), ("dim", dim), ("din", din.np), ("dt", _common_float(input1, input2).np)),
                    name=_reduced_node(reduction, "AddBackward0"))


def _margin_rank(x1, x2, y, margin, reduction, din, dt):
    # torch: -target * (input1 - input2) in the inputs' promoted dtype (integers wrap), then + margin (a
    # float scalar: integer inputs give the default float dtype), clamp_min(0), reduce
    u = -y.astype(din) * (x1.astype(din) - x2.astype(din))
    u = _up(u.astype(dt))
    l = _hinge(u + _s(margin, u))
    return _reduce(l, reduction).astype(dt)


@_functional()
@_amp.fp32
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -y * (x1 - x2) + margin)."""
    reduction = _red(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    check_broadcast(target.shape, broadcast_shape(input1.shape, input2.shape))  # torch: -target * (input1 - input2)
    din = _dtype.result_type(input1, input2, target)
    if not (input1.dtype.is_floating_point and input2.dtype.is_floating_point and target.dtype.is_floating_point):
        # torch's formula's errors, in its order: input1 - input2, -target, clamp_min
        _check_sub(input1, input2)
        if target.dtype is _dtype.bool:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                               "to invert a mask, use the `~` or `logical_not()` operator instead.")
        if din.is_complex:
            raise NotImplementedError("clamp is not supported for complex types")
    dt = _common_float(input1, input2, target)
    return dispatch(_margin_rank, (input1, input2, target, margin),
                    (("reduction", reduction), ("din", din.np), ("dt", dt.np)), name=_reduced_node(reduction, "ClampMinBackward0"))


def _hinge_emb(x, y, margin, reduction):
    # half types: the margin (a double in torch's C++ formula) becomes the input's type, margin - x and the
    # sum are each rounded
    xd, yv, r = _up(x), _up(y), _rounds_as(x.dtype)
    l = r(jnp.where(yv != 1, _hinge(r(r(_s(margin, xd)) - xd)), 0) + jnp.where(yv != -1, xd, 0))
    return _reduce(l, reduction).astype(x.dtype)


def _hinge_emb_int(x, y, margin, reduction):
    # integral input: the margin becomes the input's type, margin - x wraps as torch's does; sum gives int64
    z = jnp.zeros((), x.dtype)
    l = jnp.where(y != 1, jnp.maximum(jnp.asarray(margin).astype(x.dtype) - x, z), z) + jnp.where(y != -1, x, z)
    return jnp.sum(l, dtype=jnp.int64) if reduction == "sum" else l


@_functional()
@_amp.fp32
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x for y = 1, max(0, margin - x) for y = -1."""
    if not isinstance(target, Tensor):  # (dispatch would take a number; torch's parser error, from the wrapper)
        raise TypeError("hinge_embedding_loss(): target must be a Tensor")
    reduction = _red(reduction, size_average, reduce)
    broadcast_shape(tuple(target.shape), tuple(input.shape))  # (torch's where(target != 1, margin - input, 0))
    if not input.dtype.is_floating_point:  # torch's formula: (margin - input).clamp_min_(0) in the input's type
        if input.dtype is _dtype.bool:  # (the margin is a bool Scalar to torch: bool - bool)
            raise RuntimeError(_SUB_BOOLS)
        if input.dtype.is_complex:
            raise NotImplementedError("clamp is not supported for complex types")
        if reduction == "mean":
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point "
                               f"or complex dtype. Got: {_dtype._CAP[input.dtype.name]}")
        return dispatch(_hinge_emb_int, (input, target), (("margin", int(margin)), ("reduction", reduction)),
                        name=_reduced_node(reduction, "AddBackward0"))
    return dispatch(_hinge_emb, (input, target, margin), (("reduction", reduction),), name=_reduced_node(reduction, "AddBackward0"))


def _triplet(a, pz, n, margin, eps, p, swap, reduction, dins, dt):
    # torch: pairwise_distance of each pair (the difference in the pair's promoted dtype, so integers
    # wrap; + eps gives integers the default float dtype; complex differences have real norms)
    # (a half type's every op rounds to it, as torch's op-by-op formula: r)
    r = _rounds_as(dt)

    def dist(x, y, din):
        d = r(_up((x.astype(din) - y.astype(din)).astype(dt)))
        return r(_pdist_lastdim(r(d + _s(eps, d)), p))
    dp = dist(a, pz, dins[0])
    dn = dist(a, n, dins[1])
    if swap:
        dn = jnp.minimum(dn, dist(pz, n, dins[2]))
    l = _hinge(r(r(_s(margin, dp) + dp) - dn))
    return _reduce(l, reduction).astype(jnp.finfo(dt).dtype)


@_functional()
@_amp.fp32
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance."""
    reduction = _red(reduction, size_average, reduce)
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    check_broadcast(anchor.shape, positive.shape)
    check_broadcast(anchor.shape, negative.shape)
    for x, y in ((anchor, positive), (anchor, negative)) + (((positive, negative),) if swap else ()):
        _check_sub(x, y)  # (pairwise_distance's x - y)
    dins = tuple(_dtype.result_type(x, y).np for x, y in ((anchor, positive), (anchor, negative),
                                                          (positive, negative)))
    dt = _common_float(anchor, positive, negative)
    return dispatch(_triplet, (anchor, positive, negative, margin, eps),
                    (("p", float(p)), ("swap", bool(swap)), ("reduction", reduction), ("dins", dins),
                     ("dt", dt.np)), name=_reduced_node(reduction, "ClampMinBackward0"))


def _triplet_combine(dp, dn, ds, margin, reduction):
    d = dn if ds is None else jnp.minimum(dn, ds)
    l = _hinge(_s(margin, dp) + dp - d)
    return _reduce(l, reduction)


@_functional()
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """Triplet loss with a custom ``distance_function`` (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    dist_swap = distance_function(positive, negative) if swap else None
    return dispatch(_triplet_combine, (dist_pos, dist_neg, dist_swap, margin), (("reduction", reduction),),
                    name=_reduced_node(reduction, "ClampMinBackward0"))
