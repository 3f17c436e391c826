"""The differentiable collectives tensor parallelism is made of (Megatron's f/g operators), on local tensors:
each is an autograd Function whose forward and backward are torchlike.distributed collectives over the mesh's
group. Sharded dims split evenly (as torch's ``DTensor.from_local`` assumes for activations)."""
from __future__ import annotations

from ... import _collectives
from ....autograd.function import Function

__all__ = ["all_gather_dim", "all_reduce_bwd", "all_reduce_fwd", "chunk_dim", "gather_fwd_reduce_scatter_bwd",
           "reduce_scatter_dim"]


def _all_reduce(t, group):
    out = t.detach().clone().contiguous()
    _collectives.all_reduce(out, group=group)
    return out


def _gather(t, dim, group, n):
    x = t.detach().movedim(dim, 0).contiguous()
    out = x.new_empty((x.shape[0] * n,) + tuple(x.shape[1:]))
    _collectives.all_gather_single(out, x, group=group)
    return out.movedim(0, dim).contiguous()


def _reduce_scatter(t, dim, group, n):
    x = t.detach().movedim(dim, 0).contiguous()
    out = x.new_empty((x.shape[0] // n,) + tuple(x.shape[1:]))
    _collectives.reduce_scatter_single(out, x, group=group)
    return out.movedim(0, dim).contiguous()


def _chunk(t, dim, rank, n):
    return t.detach().chunk(n, dim)[rank].contiguous()


class _AllReduceFwd(Function):
    """Partial -> Replicate: sum over ranks; the gradient (replicated) passes through."""

    @staticmethod
    def forward(ctx, x, group):
        return _all_reduce(x, group)

    @staticmethod
    def backward(ctx, g):
        return g, None


class _AllReduceBwd(Function):
    """Replicate input of column-parallel compute: identity; the gradient (partial) is summed over ranks."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return _all_reduce(g, ctx.group), None


class _Gather(Function):
    """Shard(dim) -> Replicate; backward: reduce-scatter the (partial) gradient, or take this rank's chunk of
    a replicated one."""

    @staticmethod
    def forward(ctx, x, dim, group, n, rank, reduce_grad):
        ctx.args = (dim, group, n, rank, reduce_grad)
        return _gather(x, dim, group, n)

    @staticmethod
    def backward(ctx, g):
        dim, group, n, rank, reduce_grad = ctx.args
        g = _reduce_scatter(g, dim, group, n) if reduce_grad else _chunk(g, dim, rank, n)
        return g, None, None, None, None, None


class _ReduceScatter(Function):
    """Partial -> Shard(dim); backward: all-gather the sharded gradient."""

    @staticmethod
    def forward(ctx, x, dim, group, n):
        ctx.args = (dim, group, n)
        return _reduce_scatter(x, dim, group, n)

    @staticmethod
    def backward(ctx, g):
        dim, group, n = ctx.args
        return _gather(g, dim, group, n), None, None, None


class _Chunk(Function):
    """Replicate -> Shard(dim): this rank's chunk; backward: all-gather the gradient."""

    @staticmethod
    def forward(ctx, x, dim, group, n, rank):
        ctx.args = (dim, group, n)
        return _chunk(x, dim, rank, n)

    @staticmethod
    def backward(ctx, g):
        dim, group, n = ctx.args
        return _gather(g, dim, group, n), None, None, None, None


def all_reduce_fwd(x, group):
    return _AllReduceFwd.apply(x, group)


def all_reduce_bwd(x, group):
    return _AllReduceBwd.apply(x, group)


def all_gather_dim(x, dim, group, n, rank):
    return _Gather.apply(x, dim % x.ndim, group, n, rank, False)


def gather_fwd_reduce_scatter_bwd(x, dim, group, n, rank):
    return _Gather.apply(x, dim % x.ndim, group, n, rank, True)


def reduce_scatter_dim(x, dim, group, n):
    return _ReduceScatter.apply(x, dim % x.ndim, group, n)


def chunk_dim(x, dim, group, n, rank):
    return _Chunk.apply(x, dim % x.ndim, group, n, rank)
