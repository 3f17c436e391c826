"""``embedding(..., sparse=True)``: the weight's gradient is a sparse COO tensor, as in torch.

torch's ``weight.grad`` is then an uncoalesced COO tensor whose indices are the looked-up rows (padding rows
dropped) and whose values are the matching rows of the output gradient, so an optimizer touches only those
rows (``optim.SparseAdam``, ``SGD``, ``Adagrad``). Here the lookup is a custom autograd function whose backward
accumulates that sparse tensor into ``weight.grad`` itself and passes no dense gradient on.
"""
from __future__ import annotations

import numpy as np

from .. import _grad_mode
from ..autograd.function import Function
from ..nn.functional import _embedding as _dense_module, embedding as dense
from ..tensor import Tensor
from ._ops import _idx_tensor, make_sparse, sparse_coo

__all__ = ["embedding"]


class Embedding(Function):
    """The sparse-gradient row lookup (its node is ``EmbeddingBackward``)."""

    @staticmethod
    def forward(ctx, weight, input, padding_idx, lookup, scale_grad_by_freq):
        ctx.weight, ctx.input, ctx.padding_idx, ctx.scale = weight, input, padding_idx, scale_grad_by_freq
        return lookup(input, weight)  # (autograd is off here)

    @staticmethod
    def backward(ctx, grad):
        weight, input = ctx.weight, ctx.input
        if ctx.scale:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        rows = np.asarray(input.detach()._value).reshape(-1).astype(np.int64)
        vals = grad.reshape(-1, weight.shape[1])
        if ctx.padding_idx is not None:
            keep = np.nonzero(rows != ctx.padding_idx % weight.shape[0])[0]
            if keep.size != rows.size:
                rows, vals = rows[keep], vals.index_select(0, _idx_tensor(keep, weight.device))
        g = make_sparse(_idx_tensor(rows[None], weight.device), vals.detach(), tuple(weight.shape), sparse_coo,
                        rows.size <= 1)
        g._np_idx = rows[None]
        weight._grad = g if weight._grad is None else weight._grad + g
        return None, None, None, None, None


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of ``weight`` at ``input``; ``weight.grad`` becomes sparse when the result is backpropagated.

    >>> import torchlike as torch
    >>> emb = torch.nn.Embedding(4, 2, sparse=True)
    >>> emb(torch.tensor([1, 1, 3])).sum().backward()
    >>> emb.weight.grad.layout, emb.weight.grad.coalesce().indices()
    (torch.sparse_coo, tensor([[1, 3]]))
    """
    def lookup(i, w):
        return dense(i, w, padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type)
    if not (isinstance(weight, Tensor) and weight.requires_grad and _grad_mode.is_grad_enabled()):
        return lookup(input, weight)
    return Embedding.apply(weight, input, padding_idx, lookup, scale_grad_by_freq)


class EmbeddingBag(Function):
    """``embedding_bag(..., sparse=True)``: the bags' rows as torch's ``_embedding_bag_sparse_backward`` gives
    them: one COO entry per looked-up index (input order; padding and entries past the last bag dropped) holding
    its bag's output gradient, times its per-sample weight (``sum``) or over its bag's count (``mean``)."""

    @staticmethod
    def forward(ctx, weight, input, offsets, psw, bag, mode, num_bags, padding_idx, include_last, scale):
        ctx.save_for_backward(psw)
        ctx.scale = scale
        ctx.weight, ctx.input, ctx.offsets = weight, input, offsets
        ctx.mode, ctx.num_bags, ctx.padding_idx, ctx.include_last = mode, num_bags, padding_idx, include_last
        return bag(input, weight.detach(), offsets, None if psw is None else psw.detach())

    @staticmethod
    def backward(ctx, grad):
        if ctx.scale:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        (psw,) = ctx.saved_tensors
        weight, nb = ctx.weight, ctx.num_bags
        idx = np.asarray(ctx.input.detach()._value).reshape(-1).astype(np.int64)
        offsets = np.asarray(ctx.offsets.detach()._value).reshape(-1).astype(np.int64)
        pos = np.arange(idx.size)
        seg = np.searchsorted(offsets, pos, side="right") - 1
        keep = np.ones(idx.size, bool) if ctx.padding_idx is None else idx != ctx.padding_idx
        cnt = np.bincount(np.minimum(np.where(keep, seg, nb), nb), minlength=nb + 1)[:nb]  # the dense mean's count
        if ctx.include_last:
            keep &= pos < offsets[-1]
        keep &= seg < nb
        rows, bags = idx[keep], seg[keep]
        vals = grad.index_select(0, _idx_tensor(bags, grad.device))
        if ctx.mode == "mean":
            scale = _idx_tensor(np.maximum(cnt[bags], 1), grad.device).to(vals.dtype).reciprocal()
            vals = vals * scale[:, None]  # torch multiplies by 1 / count
        elif psw is not None:
            vals = vals * psw.detach().index_select(0, _idx_tensor(pos[keep], grad.device))[:, None]
        g = make_sparse(_idx_tensor(rows[None], weight.device), vals.detach(), tuple(weight.shape), sparse_coo,
                        rows.size <= 1)
        g._np_idx = rows[None]
        if weight.requires_grad:
            weight._grad = g if weight._grad is None else weight._grad + g
        psw_grad = None
        if psw is not None and ctx.needs_input_grad[3]:
            dots = (grad.index_select(0, _idx_tensor(np.minimum(seg, nb - 1), grad.device))
                    * weight.detach().index_select(0, _idx_tensor(idx, grad.device))).sum(-1)
            psw_grad = dots * _idx_tensor(keep, grad.device).to(dots.dtype)
        return None, None, None, psw_grad, None, None, None, None, None, None


def embedding_bag(input, weight, offsets, per_sample_weights, bag, mode, num_bags, padding_idx, include_last,
                  scale_grad_by_freq=False):
    """``bag(input, weight, offsets, per_sample_weights)`` (the dense reduction) with a sparse weight gradient.

    >>> import torchlike as torch
    >>> bag = torch.nn.EmbeddingBag(4, 2, mode="sum", sparse=True)
    >>> bag(torch.tensor([1, 1, 3]), torch.tensor([0, 2])).sum().backward()
    >>> bag.weight.grad.layout, bag.weight.grad._indices()
    (torch.sparse_coo, tensor([[1, 1, 3]]))
    """
    wants = isinstance(weight, Tensor) and weight.requires_grad or (
        per_sample_weights is not None and per_sample_weights.requires_grad)
    if not (wants and _grad_mode.is_grad_enabled()):
        return bag(input, weight, offsets, per_sample_weights)
    return EmbeddingBag.apply(weight, input, offsets, per_sample_weights, bag, mode, num_bags, padding_idx,
                              include_last, scale_grad_by_freq)


_dense_module.SPARSE_GRAD.update(embedding=embedding, embedding_bag=embedding_bag)  # (nn.functional's hook)
