"""torch.distributed collectives as XLA collectives.

Each rank's tensor becomes its block of a global array sharded over the group's mesh
(``jax.make_array_from_single_device_arrays``); a jitted ``shard_map`` runs ``psum``/``pmax``/``all_gather``/
``psum_scatter``/``all_to_all``/``ppermute`` on it, and this rank's output block is written into the tensor passed
in (torch's in-place contract). Programs are cached per (op, padded shape, dtype, group), compiled before they
are queued, and run on the collective thread behind a fingerprint check (``_engine``: timeouts and mismatches
raise torch's errors). On traced tensors (inside ``torchlike.compile``) a collective is an ordered
``io_callback`` of the compiled program (``_in_program``). Every rank must call the same collectives in the same
order, as with NCCL.
"""
from __future__ import annotations

import enum
import pickle

import numpy as np

from ..tensor import _is_tracer
from . import _collectives_traced as _traced, _engine, _p2p_any
from ._process_group import GroupMember, Work, _group, _state

__all__ = [
    "ReduceOp",
    "_all_gather_base",
    "_reduce_scatter_base",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_to_all",
    "all_to_all_single",
    "broadcast",
    "broadcast_object_list",
    "gather",
    "gather_object",
    "irecv",
    "isend",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]


class ReduceOp:
    """Reduction operations (``ReduceOp.SUM`` ...); ``AVG`` divides the sum by the group size."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8
        UNUSED = 9

        def __repr__(self):
            return f"<RedOpType.{self.name}: {self.value}>"

    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM, UNUSED = (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM,
                                           RedOpType.UNUSED)


_CACHE: dict = {}
_COMPILED: dict = {}  # jitted program -> its compiled executable


def _op(op):
    if isinstance(op, ReduceOp.RedOpType):
        return op
    if isinstance(op, str):
        return ReduceOp.RedOpType[op.upper()]
    return ReduceOp.RedOpType(int(op))


def _reducer(op, n, dtype, ax="r"):
    """(reduce a block over axis ``ax``) for ``op``; bool is reduced as int32 and cast back."""
    import jax
    import jax.numpy as jnp
    op = _op(op)
    is_bool = dtype == np.bool_
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and jnp.issubdtype(dtype, jnp.floating):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")

    def red(a):
        x = a.astype(jnp.int32) if is_bool else a
        if op == ReduceOp.SUM:
            y = jax.lax.psum(x, ax)
        elif op == ReduceOp.AVG:
            s = jax.lax.psum(x, ax)
            y = s // n if jnp.issubdtype(x.dtype, jnp.integer) else s / n
        elif op == ReduceOp.MAX:
            y = jax.lax.pmax(x, ax)
        elif op == ReduceOp.MIN:
            y = jax.lax.pmin(x, ax)
        else:
            g = jax.lax.all_gather(x, ax)
            if op == ReduceOp.PRODUCT:
                y = jnp.prod(g, axis=0, dtype=x.dtype)
            else:
                f = {ReduceOp.BAND: jnp.bitwise_and, ReduceOp.BOR: jnp.bitwise_or,
                     ReduceOp.BXOR: jnp.bitwise_xor}[op]
                y = g[0]
                for i in range(1, n):
                    y = f(y, g[i])
        if is_bool:
            y = (y % 2 != 0) if op == ReduceOp.BXOR else (y != 0)
        return y.astype(a.dtype)
    return red


def _program(key, g, body, out_replicated=False):
    """A cached jitted shard_map of ``body`` (block -> block) over the group's mesh, behind the fingerprint check."""
    key = key + (_engine.checks_enabled(),)
    fn = _CACHE.get(key)
    if fn is None:
        fn = _engine.program(body, g.mesh, out_replicated)
        _CACHE[key] = fn
    return fn


class _Call:
    """A submitted collective and how to turn its output block into the result; ``result()`` waits."""

    __slots__ = ("pending", "post", "_r", "_have")

    def __init__(self, pending, post):
        self.pending, self.post, self._have = pending, post, False

    def done(self):
        return self.pending.done()

    def result(self):
        if not self._have:
            self._r = self.post(self.pending.wait())
            self._have = True
        return self._r

    wait = result


def _issue(name, op_type, g, fn, glob, x, post):
    """Submit ``fn(glob)`` (and this rank's fingerprint of ``x``) to the collective thread."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    if _state.get("broken"):
        raise RuntimeError(f"torchlike.distributed: {name} on a process group that timed out earlier: "
                           f"{_state['broken']}")
    seq = g._seq
    g._seq += 1
    if _engine.checks_enabled():
        fp = _engine.fingerprint(seq, op_type, x.dtype, x.shape)
        dev = _state["devices"][_state["rank"]]
        args = (glob, jax.make_array_from_single_device_arrays((g.size() * _engine.K,),
                                                               NamedSharding(g.mesh, P("r")),
                                                               [jax.device_put(fp, dev)]))
    else:
        fp, args = None, (glob,)
    if fn in _COMPILED:
        fn = _COMPILED[fn]
    else:  # compile here, so that compiling is not counted in the collective's timeout
        try:
            fn = _COMPILED[fn] = fn.lower(*args).compile()
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"torchlike.distributed: compiling {name} failed: {str(e).splitlines()[0]}") from None
    job = _engine.submit(fn, *args)
    return _Call(_engine.Pending(name, op_type, g, job, seq, fp, _state), post)


def _to_global(x, g):
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    dev = _state["devices"][_state["rank"]]
    block = jax.device_put(x[None], dev)
    return jax.make_array_from_single_device_arrays((g.size(),) + tuple(x.shape), NamedSharding(g.mesh, P("r")),
                                                    [block])


def _collective(name, op_type, g, x, body, extra=(), fp_of=None, post=None):
    """Submit ``body`` (per-rank block of shape (1, *x.shape) -> (1, *out)) over the group; the call's result
    is this rank's output block, passed through ``post``."""
    key = (extra or name, tuple(x.shape), str(x.dtype), g._id)
    fn = _program(key, g, body)

    def block(y):
        y = y.addressable_data(0)[0]
        return post(y) if post is not None else y
    return _issue(name, op_type, g, fn, _to_global(x, g), x if fp_of is None else fp_of, block)


def _padded(m):
    """Sizes are rounded up (small ones to a power of two) so few programs serve many shapes."""
    if m <= 65536:
        return max(64, 1 << (m - 1).bit_length())
    return -(-m // 4096) * 4096


def _pad_cols(v):
    """(rows, m) -> (rows, M) zero-padded, and m."""
    import jax.numpy as jnp
    m = v.shape[-1]
    M = _padded(m)
    return (jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, M - m)]) if M != m else v), m


def _elementwise(name, op_type, g, x, body, extra=()):
    """Submit an elementwise collective on ``x`` flattened and padded; the result has ``x``'s shape. Rank blocks
    are 1-d, so a large 1-d tensor (a DDP bucket) goes in and out without a copy."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    v, m = _pad_cols(x.reshape(-1) if x.ndim != 1 else x)
    M = v.shape[0]
    key = ("flat", extra, M, str(v.dtype), g._id)
    dev = _state["devices"][_state["rank"]]
    if v.devices() != {dev}:
        v = jax.device_put(v, dev)
    glob = jax.make_array_from_single_device_arrays((g.size() * M,), NamedSharding(g.mesh, P("r")), [v])
    fn = _program(key, g, body)
    shape = tuple(x.shape)

    def post(out):
        out = out.addressable_data(0)
        if M != m:
            out = out[:m]
        return out.reshape(shape) if len(shape) != 1 else out
    return _issue(name, op_type, g, fn, glob, x, post)


def _blockwise(name, op_type, g, x, n, body, extra=(), fp_of=None, post=None):
    """Submit a collective on ``x`` seen as ``n`` row blocks (n, m), padded; ``post`` gets the (rows, M) result
    and m."""
    v, m = _pad_cols(x.reshape(n, -1))
    return _collective(name, op_type, g, v, body, extra, fp_of=x if fp_of is None else fp_of,
                       post=lambda y: post(y, m))


def _done(call, async_op, finish=None):
    """Complete ``call`` now (blocking, torch's errors) or hand back a ``Work`` that completes it on ``wait()``."""
    def fin():
        out = call.result()
        if finish is not None:
            finish(out)
    if async_op:
        return Work([call], fin)
    fin()
    return None


def _member(g):
    return g is not GroupMember.NON_GROUP_MEMBER and g.rank() >= 0


def _src_index(g, src, group_src, name="src"):
    if group_src is not None:
        return group_src
    if src not in g.ranks:
        raise ValueError(f"Global rank {src} is not part of group {g}")
    return g.ranks.index(src)


def _x(t):
    x = t._value
    if _is_tracer(x):  # inside torchlike.compile, for the collectives without _in_program
        from ..compile._errors import GraphBreak
        raise GraphBreak("this torch.distributed collective is not traced into compiled programs: the "
                         "function runs eagerly")
    return x


def _tracing(*tensors):
    return any(_is_tracer(t._value) for t in tensors)


def _lowered(group):
    """(group, world axis) when a collective on traced tensors is an XLA collective of the SPMD program being
    traced (``_collectives_traced``), else None."""
    g = _group(group)
    ax = _traced.axis(g) if _member(g) else None
    return (g, ax) if ax is not None else None


_spmd_needs_callbacks, _work, _in_program = _traced.needs_callbacks, _traced.work, _traced.in_program


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
    return _done(call, async_op, tensor._set_value)


def _all_reduce_call(g, x, op, name="all_reduce", op_type="ALLREDUCE"):
    return _elementwise(name, op_type, g, x, _reducer(op, g.size(), x.dtype), _op(op))


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    import jax.numpy as jnp
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
        x = jnp.zeros_like(x)
    call = _all_reduce_call(g, x, ReduceOp.SUM, "broadcast", "BROADCAST")
    return _done(call, async_op, tensor._set_value)


def _gathered(g, x, name="all_gather", op_type="ALLGATHER"):
    """A call whose result is (group_size, *x.shape): every rank's ``x``."""
    import jax
    v, m = _pad_cols(x.reshape(-1))
    shape = (g.size(),) + tuple(x.shape)
    return _collective(name, op_type, g, v, lambda a: jax.lax.all_gather(a, "r", axis=1), ("ag",), fp_of=x,
                       post=lambda out: out[:, :m].reshape(shape))


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
            t._set_value(out[i].astype(t._value.dtype))
    return _done(_gathered(g, _x(tensor)), async_op, finish)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Rank i's ``input_tensor`` lands in block i of ``output_tensor`` (concatenated on dim 0, or stacked)."""
    if _tracing(output_tensor, input_tensor):
        lo = _lowered(group)
        if lo and output_tensor.numel() == lo[0].size() * input_tensor.numel():
            out = _traced.all_gather(input_tensor._value, lo[1])
            output_tensor._set_value(out.reshape(tuple(output_tensor.shape)).astype(output_tensor._value.dtype))
            return _work(async_op)
        return _in_program(lambda o, i: all_gather_into_tensor(o, i, group), [output_tensor, input_tensor], [0],
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
                 lambda out: output_tensor._set_value(out.reshape(oshape).astype(output_tensor._value.dtype)))


_all_gather_base = all_gather_into_tensor


def _scatter_reduce(g, x, op, name="reduce_scatter_tensor", op_type="_REDUCE_SCATTER_BASE", fp_of=None):
    """Reduce ``x`` (group_size row blocks) over ranks; a call whose result is this rank's reduced block."""
    import jax
    import jax.numpy as jnp
    n = g.size()
    opn = _op(op)
    if opn in (ReduceOp.SUM, ReduceOp.AVG) and x.dtype != np.bool_:
        def body(a):
            s = jax.lax.psum_scatter(a[0], "r", scatter_dimension=0, tiled=True)
            if opn == ReduceOp.AVG:
                s = s // n if jnp.issubdtype(a.dtype, jnp.integer) else s / n
            return s.astype(a.dtype)
    else:
        red = _reducer(op, n, x.dtype)

        def body(a):
            return jax.lax.dynamic_slice_in_dim(red(a), jax.lax.axis_index("r"), 1, axis=1)[:, 0]
    shape = tuple(x.shape[1:]) if x.shape[0] == n else (x.shape[0] // n,) + tuple(x.shape[1:])
    return _blockwise(name, op_type, g, x, n, body, ("rs", opn), fp_of=fp_of,
                      post=lambda out, m: out[:m].reshape(shape))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (group_size blocks on dim 0) over ranks; rank i gets block i in ``output``."""
    if _tracing(output, input):
        lo = _lowered(group)
        if lo and input.numel() == lo[0].size() * output.numel():
            output._set_value(_rs_traced(lo, input._value, output, op))
            return _work(async_op)
        return _in_program(lambda o, i: reduce_scatter_tensor(o, i, op, group), [output, input], [0], async_op)
    g = _group(group)
    if not _member(g):
        return None
    x = _x(input)
    n = g.size()
    if x.size != n * output.numel():
        raise ValueError(f"input tensor must be the same size as output size times world size "
                         f"(got {list(x.shape)} and {list(output.shape)})")
    xs = x.reshape((n * (output.shape[0] if output.ndim else 1),) + tuple(output.shape[1:]))
    oshape = tuple(output.shape)
    call = _scatter_reduce(g, xs, op, fp_of=x)
    return _done(call, async_op, lambda out: output._set_value(out.reshape(oshape)))


_reduce_scatter_base = reduce_scatter_tensor


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
    import jax.numpy as jnp
    g = _group(group)
    if not _member(g):
        return None
    x = jnp.concatenate([_x(t).reshape((1,) + tuple(t.shape)) for t in input_list])
    oshape = tuple(output.shape)
    if x.size != g.size() * output.numel():
        raise ValueError(f"input tensor must be the same size as output size times world size "
                         f"(got {list(x.shape)} and {list(output.shape)})")
    call = _scatter_reduce(g, x.reshape((g.size() * (oshape[0] if oshape else 1),) + oshape[1:]), op,
                           "reduce_scatter", "REDUCE_SCATTER", fp_of=_x(output))
    return _done(call, async_op, lambda out: output._set_value(out.reshape(oshape)))


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
    return _done(call, async_op, tensor._set_value if g.rank() == d else None)


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
                t._set_value(out[i].astype(t._value.dtype))
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
    x = _x(tensor)
    if g.rank() == s:
        if scatter_list is None or len(scatter_list) != n:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        stacked = jnp.stack([_x(t).astype(x.dtype) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
        stacked = jnp.zeros((n,) + tuple(x.shape), x.dtype)
    is_bool = x.dtype == np.bool_
    call = _scatter_reduce(g, stacked.astype(jnp.int32) if is_bool else stacked, ReduceOp.SUM, "scatter",
                           "SCATTER", fp_of=x)
    return _done(call, async_op, lambda out: tensor._set_value(out.astype(np.bool_) if is_bool else out))


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
    x = _x(input)
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
                 lambda out: output._set_value(out.reshape(oshape).astype(output._value.dtype)))


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
    blocks = [jnp.pad(x[offs[j]:offs[j + 1]], [(0, B - isz[j])] + [(0, 0)] * len(rest)) for j in range(n)]
    xp = jnp.concatenate(blocks)
    dtype = output._value.dtype

    def finish(out):
        out = out.reshape((n, B) + rest)
        output._set_value(jnp.concatenate([out[j, :osz[j]] for j in range(n)]).astype(dtype))
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

    from ..tensor import Tensor
    inp = Tensor._wrap(jnp.stack([_x(t) for t in input_tensor_list]))
    out = Tensor._wrap(jnp.zeros_like(inp._value))
    w = all_to_all_single(out, inp, group=group, async_op=async_op)

    def scatter_out():
        for i, t in enumerate(output_tensor_list):
            t._set_value(out._value[i].astype(t._value.dtype))
    if w is None:
        scatter_out()
        return None
    return Work([w], scatter_out)


def _p2p(tensor, peer, group, sending):
    """send/recv: a 2-device ppermute program that the sender and the receiver both run."""
    import jax
    g = _group(group)
    me = g.ranks[g.rank()] if g.rank() >= 0 else _state["rank"]
    peer_g = peer
    if peer_g == me:
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of "
                         "the current process.")
    src, dst = (me, peer_g) if sending else (peer_g, me)
    if sending:
        _p2p_any.announce_send(me, dst)
    pair = _pair_group(src, dst)
    x = _x(tensor)
    i_src, i_dst = pair.ranks.index(src), pair.ranks.index(dst)
    return _elementwise("send" if sending else "recv", "SEND" if sending else "RECV", pair, x,
                        lambda a: jax.lax.ppermute(a, "r", [(i_src, i_dst)]), ("p2p", i_src, i_dst))


_PAIRS: dict = {}


def _pair_group(a, b):
    from ._process_group import ProcessGroup
    key = (min(a, b), max(a, b))
    if key not in _PAIRS:
        _PAIRS[key] = ProcessGroup(key, _state["backend"])
    return _PAIRS[key]


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (which must call ``recv`` with the same shape and dtype)."""
    _done(_p2p(tensor, dst, group, True), False)


def _recv_src(src, group, group_src, name):
    """The global rank to receive from: ``src``, ``group_src`` in ``group``, or (both None) the first pending
    sender (``_p2p_any``)."""
    g = _group(group)
    if src is None and group_src is not None:
        src = g.ranks[group_src]
    if src is None:
        me = _state["rank"]
        src = _p2p_any.pick_source(me, [r for r in g.ranks if r != me], name)
    return src


def _received(tensor, src):
    def finish(out):
        tensor._set_value(out)
        _p2p_any.consumed(_state["rank"], src)
    return finish


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (None: from whichever rank sends to this one first); returns
    the sender's rank."""
    src = _recv_src(src, group, group_src, "recv")
    _done(_p2p(tensor, src, group, False), False, _received(tensor, src))
    return src


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    return _done(_p2p(tensor, dst, group, True), True)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Asynchronous ``recv`` (without ``src`` it first waits for a sender to announce itself)."""
    src = _recv_src(src, group, group_src, "irecv")
    return _done(_p2p(tensor, src, group, False), True, _received(tensor, src))


# ---- picklable objects: bytes in uint8 tensors --------------------------------------------------------
def _obj_bytes(obj):
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _gather_bytes(g, data, only=None):
    import jax.numpy as jnp
    sizes = np.asarray(_gathered(g, jnp.asarray([len(data)], jnp.int64)).result())[:, 0]
    m = int(sizes.max())
    buf = np.zeros(m, np.uint8)
    buf[:len(data)] = data
    allb = np.asarray(_gathered(g, jnp.asarray(buf)).result())
    return [pickle.loads(allb[i, :sizes[i]].tobytes()) if only is None or i == only else None
            for i in range(g.size())]


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` = rank i's ``obj`` (pickled)."""
    g = _group(group)
    if not _member(g):
        return
    res = _gather_bytes(g, _obj_bytes(obj))
    for i, o in enumerate(res):
        object_list[i] = o


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank ``dst``'s ``object_gather_list[i]`` = rank i's ``obj``."""
    g = _group(group)
    if not _member(g):
        return
    d = _src_index(g, 0 if dst is None and group_dst is None else dst, group_dst, "dst")
    res = _gather_bytes(g, _obj_bytes(obj))
    if g.rank() == d:
        for i, o in enumerate(res):
            object_gather_list[i] = o


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's ``object_list`` becomes rank ``src``'s (pickled)."""
    g = _group(group)
    if not _member(g):
        return
    s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
    data = _obj_bytes(list(object_list)) if g.rank() == s else np.zeros(0, np.uint8)
    res = _gather_bytes(g, data, s)[s]
    object_list[:] = res


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank i's ``scatter_object_output_list[0]`` = rank ``src``'s ``scatter_object_input_list[i]``."""
    g = _group(group)
    if not _member(g):
        return
    s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
    data = _obj_bytes(list(scatter_object_input_list)) if g.rank() == s else np.zeros(0, np.uint8)
    res = _gather_bytes(g, data, s)[s]
    scatter_object_output_list[0] = res[g.rank()]
