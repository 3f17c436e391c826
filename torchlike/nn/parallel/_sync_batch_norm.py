"""SyncBatchNorm's training forward across processes: batch statistics over every rank's batch.

Each rank's per-channel (sum, sum of squares, count) are all-reduced by a differentiable all-reduce (its
backward all-reduces the gradient, since every rank's output depends on every rank's input).
"""
from __future__ import annotations

from ... import distributed as dist
from ..._creation import full
from ..._grad_mode import no_grad
from ..._ops.shape import cat
from ...autograd.function import Function

__all__ = ["sync_batch_norm"]


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        y = x.clone()
        dist.all_reduce(y, group=group)
        return y

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        dist.all_reduce(g, group=ctx.group)
        return g, None


def sync_batch_norm(bn, input, group):
    """``bn`` (a SyncBatchNorm in training mode) applied to ``input`` with statistics over all ranks."""
    dims = [0] + list(range(2, input.dim()))
    c = input.shape[1]
    count = full((1,), float(input.numel() // c), dtype=input.dtype)
    stats = cat([input.sum(dims), (input * input).sum(dims), count])
    stats = _AllReduceSum.apply(stats, group)
    s, ss, n = stats[:c], stats[c:2 * c], stats[2 * c]
    mean = s / n
    var = ss / n - mean * mean
    shape = [1, c] + [1] * (input.dim() - 2)
    out = (input - mean.view(shape)) * (var.view(shape) + bn.eps).rsqrt()
    if bn.weight is not None:
        out = out * bn.weight.view(shape) + bn.bias.view(shape)
    if bn.track_running_stats and bn.running_mean is not None:
        with no_grad():
            nbt = bn.num_batches_tracked
            nbt._set_value(nbt._value + 1)
            f = 1.0 / float(nbt.item()) if bn.momentum is None else bn.momentum
            nn_ = float(n.item())
            unbiased = var.detach() * (nn_ / max(nn_ - 1, 1))
            bn.running_mean._set_value(((1 - f) * bn.running_mean + f * mean.detach())._value)
            bn.running_var._set_value(((1 - f) * bn.running_var + f * unbiased)._value)
    return out
