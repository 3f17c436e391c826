"""torch.distributed's tensor collectives (``all_reduce``, ``broadcast``, ``all_gather`` ...).

Each function has two paths. On eager tensors it issues an XLA program over the group's mesh (``_programs``) and
writes this rank's result into the tensor passed in (torch's in-place contract). On traced tensors (inside
``torchlike.compile``) it becomes the matching ``lax`` collective of the program being traced
(``_collectives_traced``), or, where that cannot be, an ordered host callback (``_in_program``). Every rank must
call the same collectives in the same order, as with NCCL.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor
from . import _collectives_traced as _traced
from ._process_group import Work, _group
from ._programs import (_all_reduce_call, _blockwise, _done, _gathered, _host, _in_program, _lowered, _member, _put,
                        _scatter_reduce, _spmd_needs_callbacks, _src_index, _tracing, _work, _x, _xp)
from ._reduce_op import ReduceOp, _op, _reducer

__all__ = [
    "ReduceOp",
    "_all_gather_base",
    "_reduce_scatter_base",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "broadcast",
    "gather",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_single",
    "reduce_scatter_tensor",
    "scatter",
]


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks, in place (every rank gets the result).

    >>> import torchlike, torchlike.distributed as dist
    >>> dist.init_process_group("gloo", rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> t = torchlike.tensor([1., 2.])
    >>> dist.all_reduce(t, op=dist.ReduceOp.SUM); t
    tensor([1., 2.])
    >>> dist.destroy_process_group()
    """
    if _tracing(tensor):
        lo = _lowered(group)
        if lo:
            x = tensor._value
            tensor._set_value(_traced.all_reduce(x, _reducer(op, lo[0].size(), x.dtype, lo[1])))
            return _work(async_op)
        return _in_program(lambda t: all_reduce(t, op, group), [tensor], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    call = _all_reduce_call(g, _x(tensor), op)
    return _done(call, async_op, lambda out: _put(tensor, out))



def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    if _tracing(tensor):
        lo = _lowered(group)
        if lo:
            s = _src_index(lo[0], src, group_src)
            tensor._set_value(_traced.broadcast(tensor._value, s, lo[1]))
            return _work(async_op)
        return _in_program(lambda t: broadcast(t, src, group, group_src=group_src), [tensor], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    s = _src_index(g, src, group_src)
    x = _x(tensor)
    if g.rank() != s:
        h = _host(x)
        x = _xp(h).zeros_like(h)
    call = _all_reduce_call(g, x, ReduceOp.SUM, "broadcast", "BROADCAST")
    return _done(call, async_op, lambda out: _put(tensor, out))




def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list[i]`` with rank i's ``tensor``."""
    if _tracing(tensor, *tensor_list):
        lo = _lowered(group)
        if lo and len(tensor_list) == lo[0].size():
            out = _traced.all_gather(tensor._value, lo[1])
            for i, t in enumerate(tensor_list):
                t._set_value(out[i].astype(t._value.dtype))
            return _work(async_op)
        return _in_program(lambda t, *ts: all_gather(list(ts), t, group), [tensor, *tensor_list],
                           range(1, len(tensor_list) + 1), async_op)
    g = _group(group)
    if not _member(g):
        return None
    if len(tensor_list) != g.size():
        raise ValueError(f"tensor list size {len(tensor_list)} does not match the group size {g.size()}")
    for t in tensor_list:
        if tuple(t.shape) != tuple(tensor.shape):
            raise RuntimeError("Input tensor and output tensor list have different sizes")

    def finish(out):
        for i, t in enumerate(tensor_list):
            _put(t, out[i].astype(t._value.dtype))
    return _done(_gathered(g, _x(tensor)), async_op, finish)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Rank i's ``input_tensor`` lands in block i of ``output_tensor`` (concatenated on dim 0, or stacked)."""
    if _tracing(output_tensor, input_tensor):
        lo = _lowered(group)
        if lo and output_tensor.numel() == lo[0].size() * input_tensor.numel():
            out = _traced.all_gather(input_tensor._value, lo[1])
            output_tensor._set_value(out.reshape(tuple(output_tensor.shape)).astype(output_tensor._value.dtype))
            return _work(async_op)
        return _in_program(lambda o, i: all_gather_single(o, i, group), [output_tensor, input_tensor], [0],
                           async_op)
    g = _group(group)
    if not _member(g):
        return None
    x = _x(input_tensor)
    n = g.size()
    oshape = tuple(output_tensor.shape)
    if not (oshape == (n,) + tuple(x.shape) or x.ndim and oshape == (n * x.shape[0],) + tuple(x.shape[1:])):
        raise ValueError(f"output tensor size must be equal to world_size times input tensor size "
                         f"(got {list(oshape)} for input {list(x.shape)} and world size {n})")
    call = _gathered(g, x, "all_gather_into_tensor", "_ALLGATHER_BASE")
    return _done(call, async_op,
                 lambda out: _put(output_tensor, out.reshape(oshape).astype(output_tensor._value.dtype)))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated name of :func:`all_gather_single` (torch 2.13 warns)."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def _all_gather_base(output_tensor, input_tensor, group=None, async_op=False):
    """torch's private name of :func:`all_gather_single` (torch 2.13 warns)."""
    warnings.warn("`torch.distributed._all_gather_base` is a private function and will be deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)




def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (group_size blocks on dim 0) over ranks; rank i gets block i in ``output``."""
    if _tracing(output, input):
        lo = _lowered(group)
        if lo and input.numel() == lo[0].size() * output.numel():
            output._set_value(_rs_traced(lo, input._value, output, op))
            return _work(async_op)
        return _in_program(lambda o, i: reduce_scatter_single(o, i, op, group), [output, input], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    x = _host(_x(input))
    n = g.size()
    if x.size != n * output.numel():
        raise ValueError(f"input tensor must be the same size as output size times world size "
                         f"(got {list(x.shape)} and {list(output.shape)})")
    xs = x.reshape((n * (output.shape[0] if output.ndim else 1),) + tuple(output.shape[1:]))
    oshape = tuple(output.shape)
    call = _scatter_reduce(g, xs, op, fp_of=x)
    return _done(call, async_op, lambda out: _put(output, out.reshape(oshape)))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated name of :func:`reduce_scatter_single` (torch 2.13 warns)."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def _reduce_scatter_base(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """torch's private name of :func:`reduce_scatter_single` (torch 2.13 warns)."""
    warnings.warn("`torch.distributed._reduce_scatter_base` is a private function and will be deprecated. Please "
                  "use `torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def _rs_traced(lo, x, output, op):
    g, ax = lo
    n, oshape = g.size(), tuple(output.shape)
    xs = x.reshape((n * (oshape[0] if oshape else 1),) + oshape[1:])
    opn = _op(op)
    y = _traced.reduce_scatter(xs, n, opn in (ReduceOp.SUM, ReduceOp.AVG), opn == ReduceOp.AVG,
                               _reducer(op, n, xs.dtype, ax), ax)
    return y.reshape(oshape)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """``reduce_scatter_tensor`` with the blocks given as a list."""
    if _tracing(output, *input_list):
        lo = _lowered(group)
        if lo and len(input_list) == lo[0].size():
            import jax.numpy as jnp
            x = jnp.concatenate([t._value.reshape((1,) + tuple(t.shape)) for t in input_list])
            output._set_value(_rs_traced(lo, x, output, op))
            return _work(async_op)
        return _in_program(lambda o, *ts: reduce_scatter(o, list(ts), op, group), [output, *input_list], [0],
                           async_op)
    g = _group(group)
    if not _member(g):
        return None
    blocks = [_host(_x(t)).reshape((1,) + tuple(t.shape)) for t in input_list]
    x = (_xp(blocks[0]) if blocks else np).concatenate(blocks)
    oshape = tuple(output.shape)
    if x.size != g.size() * output.numel():
        raise ValueError(f"input tensor must be the same size as output size times world size "
                         f"(got {list(x.shape)} and {list(output.shape)})")
    call = _scatter_reduce(g, x.reshape((g.size() * (oshape[0] if oshape else 1),) + oshape[1:]), op,
                           "reduce_scatter", "REDUCE_SCATTER", fp_of=_x(output))
    return _done(call, async_op, lambda out: _put(output, out.reshape(oshape)))


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over ranks into rank ``dst``'s ``tensor`` (others' tensors are left as they are)."""
    if _tracing(tensor):
        lo = _lowered(group)
        if lo:
            d = _src_index(lo[0], dst, group_dst, "dst")
            x = tensor._value
            tensor._set_value(_traced.reduce(x, d, _reducer(op, lo[0].size(), x.dtype, lo[1]), lo[1]))
            return _work(async_op)
        return _in_program(lambda t: reduce(t, dst, op, group, group_dst=group_dst), [tensor], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    d = _src_index(g, dst, group_dst, "dst")
    call = _all_reduce_call(g, _x(tensor), op, "reduce", "REDUCE")
    return _done(call, async_op, (lambda out: _put(tensor, out)) if g.rank() == d else None)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Rank ``dst`` receives every rank's ``tensor`` in ``gather_list``."""
    if _tracing(tensor, *(gather_list or [])):
        gl = list(gather_list or [])
        lo = _lowered(group)
        if lo:
            d = _src_index(lo[0], 0 if dst is None and group_dst is None else dst, group_dst, "dst")
            out = _traced.all_gather(tensor._value, lo[1])
            if lo[0].rank() == d:
                if len(gl) != lo[0].size():
                    raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
                for i, t in enumerate(gl):
                    t._set_value(out[i].astype(t._value.dtype))
            return _work(async_op)
        return _in_program(lambda t, *ts: gather(t, list(ts) if gl else None, dst, group, group_dst=group_dst),
                           [tensor, *gl], range(1, len(gl) + 1), async_op)
    g = _group(group)
    if not _member(g):
        return None
    d = _src_index(g, 0 if dst is None and group_dst is None else dst, group_dst, "dst")
    if g.rank() == d:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")

    def finish(out):
        if g.rank() == d:
            for i, t in enumerate(gather_list):
                _put(t, out[i].astype(t._value.dtype))
    return _done(_gathered(g, _x(tensor), "gather", "GATHER"), async_op, finish)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank i's ``tensor`` receives ``scatter_list[i]`` of rank ``src``."""
    import jax.numpy as jnp
    if _tracing(tensor, *(scatter_list or [])):
        sl = list(scatter_list or [])
        lo = _lowered(group)
        if lo:
            g = lo[0]
            s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
            x = tensor._value
            if g.rank() == s:
                if len(sl) != g.size():
                    raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
                stacked = jnp.stack([t._value.astype(x.dtype) for t in sl])
            else:
                stacked = jnp.zeros((g.size(),) + tuple(x.shape), x.dtype)
            tensor._set_value(_traced.scatter(stacked, lo[1]).astype(x.dtype))
            return _work(async_op)
        return _in_program(lambda t, *ts: scatter(t, list(ts) if sl else None, src, group, group_src=group_src),
                           [tensor, *sl], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
    n = g.size()
    x = _host(_x(tensor))
    xp = _xp(x)
    if g.rank() == s:
        if scatter_list is None or len(scatter_list) != n:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        stacked = xp.stack([_host(_x(t)).astype(x.dtype) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        stacked = xp.zeros((n,) + tuple(x.shape), x.dtype)
    is_bool = x.dtype == np.bool_
    call = _scatter_reduce(g, stacked.astype(jnp.int32) if is_bool else stacked, ReduceOp.SUM, "scatter",
                           "SCATTER", fp_of=x)
    return _done(call, async_op, lambda out: _put(tensor, out.astype(np.bool_) if is_bool else out))


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Block j of rank i's ``input`` (dim 0) goes to block i of rank j's ``output``; blocks are even, or
    ``input_split_sizes[j]`` rows sent to rank j and ``output_split_sizes[j]`` received from it."""
    import jax
    if _tracing(output, input):
        lo = _lowered(group)
        if lo:
            n = lo[0].size()
            even = not input_split_sizes and not output_split_sizes or \
                len(set(input_split_sizes or [0])) == 1 and len(set(output_split_sizes or [0])) == 1
            if even and input.shape and input.shape[0] % n == 0 and output.numel() == input.numel():
                y = _traced.all_to_all(input._value, lo[1])
                output._set_value(y.reshape(tuple(output.shape)).astype(output._value.dtype))
                return _work(async_op)
            raise _spmd_needs_callbacks("all_to_all_single with unequal splits")
        return _in_program(lambda o, i: all_to_all_single(o, i, output_split_sizes, input_split_sizes, group),
                           [output, input], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    n = g.size()
    x = _host(_x(input))
    oshape = tuple(output.shape)
    splits = []
    for sizes, rows in ((input_split_sizes, x.shape[0]), (output_split_sizes, oshape[0] if oshape else 0)):
        if not sizes:
            if rows % n:
                raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
            sizes = [rows // n] * n
        if len(sizes) != n:
            raise RuntimeError("Number of tensor splits not equal to group size")
        if sum(sizes) != rows:
            raise RuntimeError("Split sizes doesn't match total dim 0 size")
        splits.append([int(v) for v in sizes])
    isz, osz = splits
    if len(set(isz)) > 1 or len(set(osz)) > 1:
        return _all_to_all_uneven(g, output, x, isz, osz, async_op)
    call = _blockwise("all_to_all_single", "ALLTOALL_BASE", g, x, n,
                      lambda a: jax.lax.all_to_all(a, "r", 1, 1, tiled=True), ("a2a",),
                      post=lambda out, m: out[:, :m])
    return _done(call, async_op,
                 lambda out: _put(output, out.reshape(oshape).astype(output._value.dtype)))


def _all_to_all_uneven(g, output, x, isz, osz, async_op):
    """Unequal splits: every block padded to the largest split of any rank (agreed by a MAX all-reduce), one
    even all-to-all, then each received block cut to its size."""
    import jax
    import jax.numpy as jnp
    n = g.size()
    big = np.asarray(_all_reduce_call(g, jnp.asarray([max(isz + osz)], jnp.int32), ReduceOp.MAX).result())
    B = max(int(big[0]), 1)
    rest = tuple(x.shape[1:])
    offs = np.concatenate([[0], np.cumsum(isz)])
    blocks = [_xp(x).pad(x[offs[j]:offs[j + 1]], [(0, B - isz[j])] + [(0, 0)] * len(rest)) for j in range(n)]
    xp = _xp(x).concatenate(blocks)
    dtype = output._value.dtype

    def finish(out):
        out = out.reshape((n, B) + rest)
        _put(output, _xp(out).concatenate([out[j, :osz[j]] for j in range(n)]).astype(dtype))
    call = _blockwise("all_to_all_single", "ALLTOALL_BASE", g, xp, n,
                      lambda a: jax.lax.all_to_all(a, "r", 1, 1, tiled=True), ("a2a",),
                      post=lambda out, m: out[:, :m])
    return _done(call, async_op, finish)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """List form of ``all_to_all_single`` (all blocks the same shape)."""
    if _tracing(*output_tensor_list, *input_tensor_list):
        k = len(output_tensor_list)
        lo = _lowered(group)
        if lo and k == len(input_tensor_list) == lo[0].size():
            import jax.numpy as jnp
            y = _traced.all_to_all(jnp.stack([t._value for t in input_tensor_list]), lo[1])
            for i, t in enumerate(output_tensor_list):
                t._set_value(y[i].astype(t._value.dtype))
            return _work(async_op)
        return _in_program(lambda *ts: all_to_all(list(ts[:k]), list(ts[k:]), group),
                           [*output_tensor_list, *input_tensor_list], range(k), async_op)
    import jax.numpy as jnp
    inp = Tensor._wrap(jnp.stack([_x(t) for t in input_tensor_list]), input_tensor_list[0]._dev)
    out = Tensor._wrap(jnp.zeros_like(inp._value), inp._dev)
    w = all_to_all_single(out, inp, group=group, async_op=async_op)

    def scatter_out():
        for i, t in enumerate(output_tensor_list):
            t._set_value(out._value[i].astype(t._value.dtype))
    if w is None:
        scatter_out()
        return None
    return Work([w], scatter_out)
