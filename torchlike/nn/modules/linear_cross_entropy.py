"""nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions (torch 2.13): a classifier head fused
with cross entropy.  With ``options`` the batch is processed in chunks whose logits are recomputed in
the backward pass (``jax.checkpoint``), so the full ``(N, C)`` logits never live at once.

>>> import torchlike as torch
>>> _ = torch.manual_seed(0)
>>> loss = torch.nn.LinearCrossEntropyLoss(5, 10)
>>> loss(torch.randn(4, 5), torch.tensor([1, 2, 3, 4])).shape
torch.Size([])
"""
from __future__ import annotations

import dataclasses
import math

from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss
from ... import _dtype

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]

_POLICIES = ("auto", "accurate", "balanced", "compact")


def _next_pow2(n):
    return 1 << (max(n, 1) - 1).bit_length()


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How :func:`torchlike.nn.functional.linear_cross_entropy` chunks the batch.

    ``batch_chunk_size`` fixes the rows per chunk; ``chunking_method="aspect_ratio[:N]"`` sizes chunks
    so a chunk's logits take about as much memory as the input (divided by N); ``"auto"`` picks
    ``"aspect_ratio:2"``.  ``acc_policy`` is accepted for compatibility (XLA chooses its own
    accumulation); ``acc_dtype`` is the dtype the chunk losses are computed in.

    >>> import torchlike as torch
    >>> torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2).batch_chunk_size
    2
    """
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, _, factor = self.chunking_method.partition(":")
            factor = factor or "1"
            if name != "aspect_ratio" or not factor.isdigit() or int(factor) < 1:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        allowed = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)
        if self.acc_dtype is not None and self.acc_dtype not in allowed:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op "
                             "pick automatically.")

    def _chunk_rows(self, num_batches, in_features, num_classes):
        """Rows per chunk for this call (torch's resolution of ``batch_chunk_size``/``chunking_method``)."""
        method = self.chunking_method
        if method == "auto":
            method = None if self.batch_chunk_size is not None else "aspect_ratio:2"
        rows = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if method is not None:
            _, _, factor = method.partition(":")
            per_row = -(-num_classes // max(in_features, 1))
            auto = min(_next_pow2(-(-num_batches // per_row)) // int(factor or 1), num_batches)
            if self.batch_chunk_size is not None and self.batch_chunk_size != auto:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{method}') "
                                 f"give different chunk sizes ({self.batch_chunk_size} vs {auto}); pass only one.")
            rows = auto
        return max(1, rows)


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of ``Linear(in_features, num_classes * prod(out_features))(input)`` against
    ``target``; the weight is stored flat and reshaped to ``(C, *out_features, in_features)``.

    >>> import torchlike as torch
    >>> torch.nn.LinearCrossEntropyLoss(3, 4, bias=True).linear.bias.shape
    torch.Size([4])
    """
    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index", "label_smoothing"]

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape((*shape, self.linear.in_features)), target,
            linear_bias=None if bias is None else bias.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
            options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
