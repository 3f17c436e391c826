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
from ..nn.functional import embedding as dense
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
