"""Compiled functions whose collectives are XLA collectives inside the one program (multi-process).

Under ``torchlike.distributed`` with several processes, ``torchlike.compile`` traces a function with the world
axis bound (``jax.make_jaxpr(..., axis_env=[(AXIS, world_size)])``), so a collective on a traced tensor
(``dist.all_reduce`` ...) becomes ``lax.psum``/``all_gather``/``psum_scatter``/``all_to_all`` over ``AXIS`` in
the jaxpr. Such a program then runs as JAX's multi-controller SPMD: every process calls the same
``jit(shard_map(program))`` over the global mesh of all processes' devices, each passing its own values as its
block of global arrays (``jax.make_array_from_single_device_arrays``, no copy) and reading back its block of
the outputs. The collectives are XLA's (gloo on CPU, NCCL on GPU), fused into the rank's one program.

``torchlike.distributed`` registers the world (``runtime``) when it starts; without it (one process) nothing
here is used. A collective that cannot be lowered this way (a subgroup, unequal all-to-all splits) raises
``NeedsCallbacks`` during the trace, and the function is traced again with those collectives as ordered host
callbacks that run the eager collective (the older path).

>>> from torchlike.compile import _spmd
>>> _spmd.active() is None   # outside a trace with a bound world axis
True
"""
from __future__ import annotations

import jax
import numpy as np
from . import _trace

__all__ = ["AXIS", "NeedsCallbacks", "Runtime", "active", "build", "runtime"]

AXIS = "torchlike_world"


class NeedsCallbacks(Exception):
    """Raised while tracing when a collective cannot be an XLA collective of the program: retrace with callbacks."""


class Runtime:
    """What ``torchlike.distributed`` hands to the compiler: the world mesh and how to run a program (on its
    collective thread, with the process group's timeout)."""

    def __init__(self, mesh, size, submit):
        self.mesh, self.size, self.submit = mesh, size, submit


runtime = None  # a Runtime while a multi-process world is initialized


class _Ctx:
    """The SPMD state of one trace: the axis collectives reduce over, and whether any did."""

    __slots__ = ("axis", "size", "used", "last")

    def __init__(self, size):
        self.axis, self.size, self.used = AXIS, size, False
        self.last = None  # the latest collective's result: the next one is ordered after it


def active():
    """The current trace's ``_Ctx`` when collectives may lower to XLA collectives, else None."""
    tr = _trace.current()
    return getattr(tr, "spmd", None) if tr is not None else None


def build(call, donate, n_consts, avals_in, avals_out, rt):
    """The host-level runner of an SPMD program: ``run(don, keep, args)`` with this process's arrays."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P
    n = rt.size
    mesh = jax.sharding.Mesh(rt.mesh.devices, (AXIS,))
    spec = P(AXIS)
    sharding = NamedSharding(mesh, spec)
    dset = frozenset(donate)
    avals_in = [avals_in[i] for i in donate] + [a for i, a in enumerate(avals_in[:n_consts]) if i not in dset] + \
        list(avals_in[n_consts:])  # the order of run()'s arguments: donated constants, kept ones, arguments
    scal_in = [a.ndim == 0 for a in avals_in]  # 0-d values travel as (1,) blocks
    scal_out = [a.ndim == 0 for a in avals_out]
    k_don = len(donate)

    def body(*flat):
        flat = [v.reshape(()) if s else v for v, s in zip(flat, scal_in)]
        don, rest = flat[:k_don], flat[k_don:]
        keep, args = rest[:n_consts - k_don], rest[n_consts - k_don:]
        consts, di, ki = [], iter(don), iter(keep)
        for i in range(n_consts):
            consts.append(next(di) if i in dset else next(ki))
        outs = call(consts, args)
        return tuple(o.reshape((1,)) if s else o for o, s in zip(outs, scal_out))

    prog = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=spec,
                                 out_specs=spec, check_vma=False),
                   donate_argnums=tuple(range(k_don)))
    shapes = [((n,) if s else (n * a.shape[0],) + tuple(a.shape[1:])) for a, s in zip(avals_in, scal_in)]
    me = [None]
    compiled = [None]

    def glob(x, shape, s):
        if s:
            x = x.reshape((1,))
        return jax.make_array_from_single_device_arrays(shape, sharding, [x])

    def run(don, keep, args):
        dev = me[0]
        if dev is None:
            dev = me[0] = next(d for d in mesh.devices.flat if d.process_index == jax.process_index())
        flat = list(don) + list(keep) + list(args)
        g = []
        for x, shape, s in zip(flat, shapes, scal_in):
            if not isinstance(x, jax.Array) or x.devices() != {dev}:
                x = jax.device_put(np.asarray(x) if not isinstance(x, jax.Array) else x, dev)
            g.append(glob(x, shape, s))
        if compiled[0] is None:  # compiled here, before the run is queued: compiling is not part of the timeout
            compiled[0] = prog.lower(*g).compile()
        outs = rt.submit(compiled[0], g)
        res = []
        for o, s in zip(outs, scal_out):
            o = o.addressable_data(0)
            res.append(o.reshape(()) if s else o)
        return res

    run.executable = lambda: compiled[0]  # the compiled XLA program (tests read its HLO)
    return run
