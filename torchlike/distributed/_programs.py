"""How an eager collective runs: a cached XLA program over the group's mesh, issued to the collective thread.

Each rank's tensor becomes its block of a global array sharded over the group's mesh
(``jax.make_array_from_single_device_arrays``); a jitted ``shard_map`` runs ``psum``/``pmax``/``all_gather``/
``psum_scatter``/``all_to_all``/``ppermute`` on it, and this rank's output block is what the call returns.
Programs are cached per (op, padded shape, dtype, group), compiled before they are queued, and run on the
collective thread behind a fingerprint check (``_engine``: timeouts and mismatches raise torch's errors).
The public functions (``_collectives``, ``_p2p``, ``_object_collectives``) build on ``_elementwise``,
``_collective`` and ``_blockwise`` here, and complete a call with ``_done``.
"""
from __future__ import annotations

import numpy as np

from .._errors import GraphBreak
from ..tensor import _is_tracer
from . import _collectives_traced as _traced, _engine
from ._process_group import GroupMember, Work, _group, _state, on_world_change
from ._reduce_op import ReduceOp, _op, _reducer

__all__: list = []

_CACHE: dict = {}
_COMPILED: dict = {}  # jitted program -> its compiled executable


def _forget_programs(world):
    """destroy_process_group (``world`` None) drops the programs built for the old group."""
    if world is None:
        _CACHE.clear()
        _COMPILED.clear()


on_world_change.append(_forget_programs)

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
    exe = _COMPILED.get(fn)
    if exe is None:  # compile here, so that compiling is not counted in the collective's timeout
        try:
            exe = _COMPILED[fn] = fn.lower(*args).compile()
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"torchlike.distributed: compiling {name} failed: {str(e).splitlines()[0]}") from None
    job = _engine.submit(exe, *args)
    return _Call(_engine.Pending(name, op_type, g, job, seq, fp, _state), post)


def _cpu_rank():
    return _state["devices"][_state["rank"]].platform == "cpu"


def _host(a):
    """On a CPU rank, ``a`` as a numpy array (a view of the buffer: no copy): the reshapes, pads and slices
    around a collective then run in numpy, so a new shape compiles no XLA program for them (measured: half of
    an FSDP2 training script's ~200 eager compiles were these); on other devices ``a`` itself."""
    if type(a) is np.ndarray or not _cpu_rank():
        return a
    return np.asarray(a)


def _xp(a):
    """The array namespace for ``a``: numpy for a host array, else jax.numpy."""
    if type(a) is np.ndarray:
        return np
    import jax.numpy as jnp
    return jnp


def _on_device(v):
    """``v`` as a jax array on this rank's device: a numpy array by a transfer (no program), others as they are."""
    if type(v) is np.ndarray:
        import jax
        v = jax.device_put(np.ascontiguousarray(v), _state["devices"][_state["rank"]])
    return v


def _put(t, v):
    """Write a collective's result ``v`` (a numpy array on a CPU rank) into tensor ``t``."""
    t._set_value(_on_device(v))


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
        y = _host(y.addressable_data(0))[0]
        return post(y) if post is not None else y
    return _issue(name, op_type, g, fn, _to_global(x, g), x if fp_of is None else fp_of, block)


def _padded(m):
    """Sizes are rounded up (small ones to a power of two) so few programs serve many shapes."""
    if m <= 65536:
        return max(64, 1 << (m - 1).bit_length())
    return -(-m // 4096) * 4096


def _pad_cols(v):
    """(rows, m) -> (rows, M) zero-padded, and m."""
    m = v.shape[-1]
    M = _padded(m)
    return (_xp(v).pad(v, [(0, 0)] * (v.ndim - 1) + [(0, M - m)]) if M != m else v), m


def _elementwise(name, op_type, g, x, body, extra=()):
    """Submit an elementwise collective on ``x`` flattened and padded; the result has ``x``'s shape. Rank blocks
    are 1-d, so a large 1-d tensor (a DDP bucket) goes in and out without a copy."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    if x.ndim != 1 or _padded(x.shape[0]) != x.shape[0]:
        x = _host(x)  # (a 1-d tensor of a padded size, a DDP bucket, goes in as it is)
    v, m = _pad_cols(x.reshape(-1) if x.ndim != 1 else x)
    M = v.shape[0]
    key = ("flat", extra, M, str(v.dtype), g._id)
    dev = _state["devices"][_state["rank"]]
    if type(v) is np.ndarray or v.devices() != {dev}:
        v = jax.device_put(v, dev)
    glob = jax.make_array_from_single_device_arrays((g.size() * M,), NamedSharding(g.mesh, P("r")), [v])
    fn = _program(key, g, body)
    shape = tuple(x.shape)

    def post(out):
        out = out.addressable_data(0)
        if M != m or len(shape) != 1:
            out = _host(out)
        if M != m:
            out = out[:m]
        return out.reshape(shape) if len(shape) != 1 else out
    return _issue(name, op_type, g, fn, glob, x, post)


def _blockwise(name, op_type, g, x, n, body, extra=(), fp_of=None, post=None):
    """Submit a collective on ``x`` seen as ``n`` row blocks (n, m), padded; ``post`` gets the (rows, M) result
    and m."""
    v, m = _pad_cols(_host(x).reshape(n, -1))
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


def _all_reduce_call(g, x, op, name="all_reduce", op_type="ALLREDUCE"):
    return _elementwise(name, op_type, g, x, _reducer(op, g.size(), x.dtype), _op(op))


def _gathered(g, x, name="all_gather", op_type="ALLGATHER"):
    """A call whose result is (group_size, *x.shape): every rank's ``x``."""
    import jax
    v, m = _pad_cols(_host(x).reshape(-1))
    shape = (g.size(),) + tuple(x.shape)
    return _collective(name, op_type, g, v, lambda a: jax.lax.all_gather(a, "r", axis=1), ("ag",), fp_of=x,
                       post=lambda out: out[:, :m].reshape(shape))


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
