"""AOT autograd for compiled programs: a differentiable call of a compiled function (a compiled
module's forward) runs ONE forward program that also returns the residuals of its ``jax.vjp``, and
records ONE tape node whose backward is ONE cached program over those residuals — so
``loss.backward()`` neither re-runs the forward nor steps through per-op nodes.

Both programs are built once per (program, which inputs need grad) and reused by every later call.
``create_graph=True`` (double backward) still works: the node keeps the op form (``_pure_call`` and
its primals) that the engine's recorded backward differentiates.
"""
from __future__ import annotations

import weakref

import jax
import jax.numpy as jnp

from .. import _jit_cache, _profiler_state as _prof
from .._device import CPU
from .._tape import node_class
from ..tensor import Tensor

__all__ = ["run", "stats"]

_cache = _jit_cache.Cache("compiled-aot")  # (program key, diff_in, diff_out) -> Entry (forward)
_bwd_cache = _jit_cache.Cache("compiled-aot-backward")
_forwarded = {}  # forward cache key -> {argument signature: (residual treedef, per leaf: its input or None)}
_NO_EDGE = (None, 0)
enabled = True  # False: the pullback recomputes the forward (the older path; kept for comparison)
stats = {"forward_builds": 0, "backward_builds": 0}  # counted on each new jitted function (tests read them)

_Base = node_class("CompiledFunctionBackward")


class _AOTNode(_Base):
    """The tape node of one differentiable compiled call; ``apply`` runs the cached backward program."""

    __slots__ = ("_pb", "_bwd", "_inputs_saved")

    def apply(self, cts):
        cts = tuple(c if c is not None else jnp.zeros(m[0], m[1]) for c, m in zip(cts, self.out_meta))
        for x in self._inputs_saved:  # residuals that are inputs are the inputs' own arrays, not copies:
            if x.is_deleted():  # one a later program donated (overwrote in place) is gone
                raise RuntimeError("one of the variables needed for gradient computation has been modified by "
                                   "an inplace operation")
        return tuple(self._bwd(self._pb, cts))

    def free(self):
        super().free()
        self._pb = None
        self._inputs_saved = ()


_AOTNode.__name__ = _AOTNode.__qualname__ = _Base.__name__
_AOTNode.__module__ = _Base.__module__


def _pull(pb, cts):
    return pb(cts)


def _signature(d, rest):
    """What ``jax.jit`` keys a trace of the forward by (shapes, dtypes, weak types; None stays None)."""
    return tuple(None if x is None else (getattr(x, "shape", ()), getattr(x, "dtype", type(x)),
                                         getattr(x, "weak_type", False)) for x in d + rest)


def _forward_fn(prog, diff_in, diff_out):
    key = (prog._key, diff_in, diff_out)
    e = _cache.get(key)
    if e is None:
        call, n_consts = prog._key.call, prog._key.n_consts
        diff_set = frozenset(diff_out)

        def fwd(d, rest):
            def g(*dv):
                full = list(rest)
                for i, v in zip(diff_in, dv):
                    full[i] = v
                out = call(full[:n_consts], full[n_consts:])
                return (tuple(out[j] for j in diff_out),
                        tuple(o for j, o in enumerate(out) if j not in diff_set))

            diff_outs, pb, other = jax.vjp(g, *d, has_aux=True)
            flat, di, oi = [], iter(diff_outs), iter(other)
            for j in range(len(prog.out_dtypes)):
                flat.append(next(di) if j in diff_set else next(oi))
            # residuals that are the program's own inputs (a Linear's weight, the token ids) are not
            # returned: an output must be a fresh buffer, so XLA copied each of them on every call
            leaves, tree = jax.tree_util.tree_flatten(pb)
            pos = {id(v): ("d", i) for i, v in enumerate(d)}
            pos.update((id(v), ("r", i)) for i, v in enumerate(rest) if v is not None)
            src = tuple(pos.get(id(x)) for x in leaves)
            forwarded[_signature(d, rest)] = (tree, src)
            return flat, [x for x, w in zip(leaves, src) if w is None]

        # argument signature -> (residual treedef, per leaf: the input it is or None); None -> fwd itself
        forwarded = _forwarded[key] = {None: fwd}
        e = _cache.add(key, jax.jit(fwd))
        weakref.finalize(prog, _cache.discard, key)  # a dead program's executables go with it
        weakref.finalize(prog, _forwarded.pop, key, None)
        stats["forward_builds"] += 1
    b = _bwd_cache.get(key)
    if b is None:
        b = _bwd_cache.add(key, jax.jit(_pull))
        weakref.finalize(prog, _bwd_cache.discard, key)
        stats["backward_builds"] += 1
    return e, b, _forwarded[key]


def run(prog, leaves):
    """Run ``prog`` (a ``_Program``) recording one residual-saving tape node; returns (flat arrays,
    output Tensors) like ``_Program._run_recorded``."""
    ins = prog._inputs(leaves)
    if _prof._COLLECTING or not enabled:  # the profiler times ops through the dispatcher
        return prog._run_recorded(leaves, ins)
    arrays, edges, diff_in = [], [], []
    dev = None
    for i, a in enumerate(ins):
        if isinstance(a, Tensor):
            x = a._value
            arrays.append(x)
            if dev is None:
                dev = a._dev
            if a._rg or a._grad_fn is not None:
                if x.dtype.kind != "f" and x.dtype.name != "bfloat16":
                    return prog._run_recorded(leaves, ins)  # complex: the dispatcher's conj convention
                diff_in.append(i)
                gf = a._grad_fn
                edges.append((gf, a._oi) if gf is not None else (a._accumulator(), 0))
            else:
                edges.append(_NO_EDGE if x.dtype.kind in "fcV" else None)
        else:
            arrays.append(a)
            edges.append(None)
    diff_out = tuple(j for j, dt in enumerate(prog.out_dtypes) if dt.kind in "fV")
    if not diff_in or not diff_out or any(dt.kind == "c" for dt in prog.out_dtypes):
        return prog._run_recorded(leaves, ins)
    diff_in = tuple(diff_in)
    fwd, bwd, forwarded = _forward_fn(prog, diff_in, diff_out)
    dset = frozenset(diff_in)
    d = tuple(arrays[i] for i in diff_in)
    rest = tuple(None if i in dset else x for i, x in enumerate(arrays))
    flat, kept = fwd(d, rest)
    sig = _signature(d, rest)
    if sig not in forwarded:  # jit reused a trace made under another signature: trace again (no compile)
        jax.eval_shape(forwarded[None], d, rest)
    tree, src = forwarded[sig]
    kept = iter(kept)
    res = [next(kept) if w is None else (d if w[0] == "d" else rest)[w[1]] for w in src]
    pb = jax.tree_util.tree_unflatten(tree, res)
    dev = dev or CPU
    outs = [Tensor._wrap(o, dev) for o in flat]
    out_meta = tuple((flat[j].shape, flat[j].dtype) for j in diff_out)
    node = _AOTNode(_pure_call, (("prog", prog._key),), tuple(arrays), tuple(edges), diff_in, diff_out,
                    out_meta, "CompiledFunctionBackward", ())
    node._pb, node._bwd = pb, bwd
    node._inputs_saved = tuple(x for x, w in zip(res, src) if w is not None and isinstance(x, jax.Array))
    for k, j in enumerate(diff_out):
        outs[j]._grad_fn = node
        outs[j]._oi = k
    return flat, outs


def _pure_call(*arrays, prog):
    """The compiled program ``prog`` as a pure function of its constants and arguments: the op a
    ``CompiledFunctionBackward`` node records (``_compiled`` dispatches it too)."""
    return tuple(prog.call(arrays[:prog.n_consts], arrays[prog.n_consts:]))
