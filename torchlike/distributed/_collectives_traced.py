"""Collectives on traced tensors as XLA collectives of the compiled program (``torchlike.compile``, several
processes).

While ``torchlike.compile`` traces a function with the world axis bound (``compile/_spmd.py``), a collective
over the world group is written into the trace as the matching ``lax`` collective on this rank's value: the
function compiles to one SPMD program per rank whose collectives are XLA's (gloo/NCCL), with no host callback.
Each function here takes this rank's (traced) arrays and returns the arrays to write back.

Not lowered (``NeedsCallbacks``: the function is traced again with every collective as a host callback): a
collective over a subgroup (a lowered collective is a world collective every process's program must hold, but
non-members may skip the call; ``shard_map`` has no ``axis_index_groups`` either), and ``all_to_all_single`` with unequal
splits (its padded block size is agreed between ranks on the host first).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..compile import _spmd
from . import _engine
from ._process_group import GroupMember, Work, _state, on_world_change
from ..tensor import Tensor

__all__ = ["axis", "axis_bound", "in_program", "needs_callbacks", "register", "work", "all_reduce", "broadcast", "reduce", "all_gather", "scatter", "reduce_scatter", "all_to_all"]


def axis(g):
    """The world axis when ``g``'s collective can be part of the SPMD program being traced, else None; raises
    ``NeedsCallbacks`` when a trace with a bound world axis meets a collective it cannot lower."""
    ctx = _spmd.active()
    if ctx is None:
        return None
    if g.ranks != list(range(ctx.size)):
        raise _spmd.NeedsCallbacks("a collective over a subgroup")
    ctx.used = True
    return ctx.axis


def axis_bound():
    """Whether the trace running now lowers collectives (a host callback would then deadlock the program)."""
    return _spmd.active() is not None


def _after_previous(x):
    """``x`` made to depend on the previous collective's result, so XLA keeps the collectives in the trace's
    order on every rank: ranks trace their own programs (rank-dependent code around the collectives), and XLA's
    scheduler and combiners could otherwise order independent collectives differently per rank, which
    deadlocks gloo/NCCL. The dependency must be one XLA cannot see through (it drops optimization barriers and
    folds identical-branch conditionals on CPU): ``x`` gets one of its own elements rewritten at index
    ``min(bits of the previous result's first element, 0)``, i.e. 0 — a one-element in-place update."""
    ctx = _spmd.active()
    last = ctx.last
    if last is None or x.size == 0 or last.size == 0:
        return x
    e = last.reshape(-1)[0]
    if jnp.issubdtype(e.dtype, jnp.complexfloating):
        e = jnp.real(e)
    if e.dtype == np.bool_:
        e = e.astype(jnp.uint8)
    bits = jax.lax.bitcast_convert_type(e, {1: jnp.uint8, 2: jnp.uint16, 4: jnp.uint32, 8: jnp.uint64}[
        e.dtype.itemsize])
    z = jnp.minimum(bits, jnp.zeros((), bits.dtype)).astype(jnp.int32)
    v = x.reshape((1,)) if x.ndim == 0 else x
    idx = (z,) * v.ndim
    v = jax.lax.dynamic_update_slice(v, jax.lax.dynamic_slice(v, idx, (1,) * v.ndim), idx)
    return v.reshape(()) if x.ndim == 0 else v


def _chain(y):
    _spmd.active().last = y
    return y


def _me(ax):
    return jax.lax.axis_index(ax)


def all_reduce(x, red):
    """``red``: ``_collectives._reducer`` for the op (bool and the gather-based ops included)."""
    return _chain(red(_after_previous(x)))


def broadcast(x, s, ax):
    is_bool = x.dtype == np.bool_
    v = _after_previous(x.astype(jnp.int32) if is_bool else x)
    y = _chain(jax.lax.psum(jnp.where(_me(ax) == s, v, jnp.zeros_like(v)), ax))
    return (y != 0) if is_bool else y.astype(x.dtype)


def reduce(x, d, red, ax):
    return jnp.where(_me(ax) == d, _chain(red(_after_previous(x))), x)


def all_gather(x, ax):
    """(group_size, *x.shape): every rank's ``x``."""
    return _chain(jax.lax.all_gather(_after_previous(x), ax))


def scatter(stacked, ax):
    """``stacked`` (group_size, *shape): src's list, zeros elsewhere; this rank's row of the sum."""
    is_bool = stacked.dtype == np.bool_
    v = _after_previous(stacked.astype(jnp.int32) if is_bool else stacked)
    y = _chain(jax.lax.psum_scatter(v, ax, scatter_dimension=0, tiled=False))
    return (y != 0) if is_bool else y


def reduce_scatter(x, n, op_is_sum_or_avg, avg, red, ax):
    """``x`` (n*k, *rest): the reduction of block ``rank`` over ranks, (k, *rest)."""
    x = _after_previous(x)
    if op_is_sum_or_avg and x.dtype != np.bool_:
        s = _chain(jax.lax.psum_scatter(x, ax, scatter_dimension=0, tiled=True))
        if avg:
            s = s // n if jnp.issubdtype(x.dtype, jnp.integer) else s / n
        return s.astype(x.dtype)
    k = x.shape[0] // n
    return jax.lax.dynamic_slice_in_dim(_chain(red(x)), _me(ax) * k, k, axis=0)


def all_to_all(x, ax):
    """``x`` (n*k, *rest): block j goes to rank j; received blocks in rank order."""
    return _chain(jax.lax.all_to_all(_after_previous(x), ax, 0, 0, tiled=True))


# ---- the fallback: a collective as an ordered host callback of the compiled program -----------------------
def needs_callbacks(why):
    return _spmd.NeedsCallbacks(why)


def work(async_op):
    return Work(None) if async_op else None


def in_program(run, tensors, outs, async_op):
    """The collective inside a ``torchlike.compile``d function that is not lowered (one process, or a collective
    ``axis`` refuses): an ordered ``io_callback`` of the compiled program runs ``run`` (the eager collective) on
    this rank's values, so the function stays one program (no graph break) and the collectives keep their order.
    ``outs``: positions in ``tensors`` written in place."""
    from jax.experimental import io_callback

    if axis_bound():  # a callback cannot run inside the SPMD program: compile traces again without it
        raise needs_callbacks("a collective that is not lowered")
    outs = list(outs)
    shapes = tuple(jax.ShapeDtypeStruct(tuple(tensors[i].shape), tensors[i]._value.dtype) for i in outs)

    def cb(*vals):
        fresh = [Tensor._wrap(jnp.asarray(v)) for v in vals]
        run(*fresh)
        return tuple(np.asarray(fresh[i]._value) for i in outs)
    ys = io_callback(cb, shapes, *[t._value for t in tensors], ordered=True)
    for i, y in zip(outs, ys):
        tensors[i]._set_value(y)
    return work(async_op)


# ---- running compiled SPMD programs -------------------------------------------------------------------------
_RUNS = [0]


def _run(exe, args):
    """Run a compiled SPMD program (``compile/_spmd.py``) on the collective thread, in issue order with the eager
    collectives, under the process group's timeout; returns its global outputs."""
    if _state.get("broken"):
        raise RuntimeError(f"torchlike.distributed: a compiled collective program on a process group that timed "
                           f"out earlier: {_state['broken']}")
    _RUNS[0] += 1
    job = _engine.submit(exe, *args)
    return _engine.Pending("compiled program", "ALLREDUCE", GroupMember.WORLD, job, f"compiled{_RUNS[0]}", None,
                           _state).wait()


def register(world):
    """Let ``torchlike.compile`` lower collectives into its programs over ``world`` (None: stop)."""
    _spmd.runtime = None if world is None or world.size() < 2 else _spmd.Runtime(world.mesh, world.size(), _run)


on_world_change.append(register)  # init/destroy_process_group (re)point compile's runtime
