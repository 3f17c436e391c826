"""linear_cross_entropy (torch 2.13): ``cross_entropy(linear(input, W, b), target)``.

Without ``options`` it is exactly that composition.  With ``options`` (class-index targets, no label
smoothing, no K-dim loss) the batch is split into chunks; each chunk's logits are computed under
``jax.checkpoint`` so the backward pass recomputes them instead of keeping the whole ``(N, C)`` matrix.

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.linear_cross_entropy(torch.zeros(2, 3), torch.zeros(4, 3), torch.tensor([0, 3]))
tensor(1.3863)
"""
from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
from jax import lax

from ... import _dtype
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ._linear import linear
from ._loss import _red, check_class_range, cross_entropy

__all__ = ["linear_cross_entropy"]


def _chunked(x, w, t, b, cw, ignore_index, reduction, rows, acc):
    """Chunked NLL of ``x @ w.T + b`` (N, C) against class indices ``t`` (N,)."""
    n = x.shape[0]
    nchunks = -(-n // rows)
    pad = nchunks * rows - n
    xs = jnp.pad(x, ((0, pad), (0, 0))).reshape(nchunks, rows, x.shape[1])
    ts = jnp.pad(t, (0, pad), constant_values=ignore_index).reshape(nchunks, rows)

    @jax.checkpoint
    def chunk(xc, tc):
        logits = jnp.matmul(xc.astype(acc), w.astype(acc).T, precision=lax.Precision.HIGHEST)
        if b is not None:
            logits = logits + b.astype(acc)
        valid = tc != ignore_index
        tsafe = jnp.where(valid, tc, 0)
        picked = jnp.take_along_axis(logits, tsafe[:, None], axis=1)[:, 0]
        nll = jax.nn.logsumexp(logits, axis=1) - picked
        wt = valid.astype(acc) if cw is None else jnp.where(valid, cw[tsafe].astype(acc), 0)
        return nll * wt, wt

    nll, wt = lax.map(lambda a: chunk(*a), (xs, ts))
    nll, wt = nll.reshape(-1)[:n], wt.reshape(-1)[:n]
    if reduction == "none":
        return nll.astype(x.dtype)
    total = jnp.sum(nll)
    return (total / jnp.sum(wt) if reduction == "mean" else total).astype(x.dtype)


def _chunk_dispatch(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options):
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    t = target if batched else target.unsqueeze(0)
    num_classes, in_features = linear_weight.shape
    if x.shape[0] != t.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]}).")
    if weight is not None and weight.numel() != num_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {num_classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")
    check_class_range(t, num_classes, ignore_index)
    rows = options._chunk_rows(x.shape[0], in_features, num_classes)
    acc = options.acc_dtype
    if acc is None:
        low = input.dtype in (_dtype.float16, _dtype.bfloat16)
        acc = _dtype.float32 if low and options.acc_policy == "auto" else input.dtype
    out = dispatch(_chunked, (x, linear_weight, t, linear_bias, weight, ignore_index),
                   (("reduction", reduction), ("rows", rows), ("acc", acc.np)), name="LinearCrossEntropyBackward0")
    return out if batched or reduction != "none" else out.squeeze(0)


@_functional()
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """Cross entropy of the logits ``linear(input, linear_weight, linear_bias)``.

    ``linear_weight`` is ``(C, in_features)`` or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional
    loss; ``ignore_index=None`` means -100 for class-index targets.

    >>> import torchlike as torch
    >>> import torchlike.nn.functional as F
    >>> F.linear_cross_entropy(torch.ones(3), torch.ones(2, 3), torch.tensor(1))
    tensor(0.6931)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunkable = (not out_features and reduction in ("mean", "sum", "none") and label_smoothing == 0.0
                     and target.dtype is _dtype.int64)
        if chunkable:
            return _chunk_dispatch(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                                   options)
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                      f"Got reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}, tracing=False, linear_bias.shape="
                      f"{None if linear_bias is None else tuple(linear_bias.shape)}.", stacklevel=2)
    _red(reduction)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)
