"""Compiled functions: guards, a per-function cache of XLA programs, graph breaks, write-back."""
from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import traceback
import warnings
import weakref

import jax
import numpy as np

from .. import _dtype, _errors, _jit_cache, _grad_mode as grad_mode
from .._device import commit_to
from .._dispatch import dispatch
from ..tensor import _ALIAS_CHAIN, Tensor
from . import _aot, _dynamic, _side_effects, _spmd, _trace
from ._aot import _pure_call
from ._writeback import ArgPlan as _ArgPlan, apply_meta, pre_existing_writes as _pre_existing_writes
from ._errors import GraphBreak

__all__ = ["CompiledFunction", "config", "set_logs", "Unsupported"]

log = logging.getLogger("torchlike.compile")


class config:
    """Knobs like torch._dynamo.config."""
    cache_size_limit = 8
    log_recompiles = "recompiles" in os.environ.get("TORCHLIKE_LOGS", "")


def set_logs(recompiles=False):
    """Log each (re)compilation with its reason (also ``TORCHLIKE_LOGS=recompiles``)."""
    config.log_recompiles = bool(recompiles)


class TorchDynamoException(RuntimeError):
    """The base of the compiler's errors (torch._dynamo.exc.TorchDynamoException)."""


class Unsupported(TorchDynamoException):
    """Raised with ``fullgraph=True`` when the function cannot be captured in one graph."""


class InvalidBackend(TorchDynamoException):
    """``compile(fn, backend=name)`` with a name no backend has (torch._dynamo.exc.InvalidBackend)."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


_BREAK_ERRORS = (GraphBreak, jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError,
                 jax.errors.TracerIntegerConversionError, jax.errors.TracerArrayConversionError)


def _user_frame(tb):
    """file:line of the innermost frame outside torchlike and jax (where the user's code broke)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    best = None
    for fr in traceback.extract_tb(tb):
        f = os.path.abspath(fr.filename)
        if not f.startswith(here) and "/jax/" not in f and "/jaxlib/" not in f and "/site-packages/" not in f:
            best = f"{fr.filename}:{fr.lineno}"
    return best or "<unknown>"


# ---- guards --------------------------------------------------------------------------------------
def _leaf_key(x):
    if isinstance(x, Tensor):
        return ("T", tuple(x.shape), x.dtype.name, x.requires_grad, str(x.device))
    if isinstance(x, (int, float, bool, str, type(None), complex)):
        return ("S", type(x).__name__, x)
    if isinstance(x, _dtype.dtype):
        return ("D", x.name)
    return ("O", id(x))  # any other object: guarded by identity


def _leaf_keys(leaves):
    """Guard keys of the leaves; tensors also record which argument storage (root) they share and, for
    views, where in it they look, so aliasing between arguments is part of the guard."""
    roots = {}
    keys = []
    for x in leaves:
        if isinstance(x, Tensor):
            if x._chain is _ALIAS_CHAIN:
                x._settle()  # a host tensor (Tensor._from_host) enters as the plain device tensor it becomes
            b = x._vbase
            r = x if b is None else b
            slot = roots.setdefault(id(r), len(roots))
            k = ("T", tuple(x.shape), x.dtype.name, x.requires_grad, str(x.device), slot)
            if b is not None:
                k += (x._chain, tuple(b.shape), b.dtype.name, b.requires_grad, x._rg)
            keys.append(k)
        else:
            keys.append(_leaf_key(x))
    return tuple(keys)


def _flatten(obj, leaves):
    """Flatten nested tuples/lists/dicts; returns a hashable structure description."""
    if isinstance(obj, (list, tuple)):
        # the exact type is kept so named tuples (torch.return_types.max, ...) and Size come back as such
        return ("seq", type(obj), tuple(_flatten(o, leaves) for o in obj))
    if isinstance(obj, dict):
        keys = list(obj.keys())
        return ("dict", tuple(keys), tuple(_flatten(obj[k], leaves) for k in keys))
    leaves.append(obj)
    return ("leaf",)


def _unflatten(struct, it):
    kind = struct[0]
    if kind == "leaf":
        return next(it)
    if kind == "dict":
        return {k: _unflatten(s, it) for k, s in zip(struct[1], struct[2])}
    typ, seq = struct[1], [_unflatten(s, it) for s in struct[2]]
    if typ is list:
        return seq
    if typ is tuple:
        return tuple(seq)
    return typ(*seq) if hasattr(typ, "_fields") else typ(seq)


class _Entry:
    """One compiled program for one guard key."""

    def __init__(self):
        self.eager = False
        self.reason = None
        self.run = None


class CompiledFunction:
    """``torchlike.compile(fn)``: trace ``fn`` on first call per guard key into one XLA program."""

    def __init__(self, fn, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
                 disable=False):
        self._fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self._auto_dynamic = False  # dynamic=None: becomes True after the first batch-size change
        self._needs_concrete = set()  # guard keys whose symbolic trace failed: not retried per new size
        self.disable = disable
        self._cache = {}
        self._warned = set()
        self.compile_count = 0
        self.breaks = []
        functools.update_wrapper(self, fn, updated=())
        if backend not in ("inductor", "eager", "aot_eager", "cudagraphs", "openxla", "xla", "jax") and \
                not callable(backend):
            _notice(f"backend={backend!r} is accepted and ignored: torchlike always lowers through XLA")
        if mode not in (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
            _notice(f"mode={mode!r} is accepted and ignored")

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    # -- guards
    def _guard(self, args, kwargs):
        leaves = []
        struct = _flatten((args, kwargs), leaves)
        return (struct, _leaf_keys(leaves), grad_mode.is_grad_enabled(),
                _dtype.get_default_dtype().name), leaves

    def __call__(self, *args, **kwargs):
        if self.disable or _trace.is_tracing():
            return self._fn(*args, **kwargs)
        key, leaves = self._guard(args, kwargs)
        dyn = self.dynamic or self._auto_dynamic
        keys = (key, _dynamic.dynamic_key(key, leaves)) if dyn else (key,)
        for k in keys:
            entries = self._cache.get(k)
            if entries is not None:
                entries[:] = [e for e in entries if e.eager or e.run is not None]
                for e in entries:
                    if e.eager:
                        return self._fn(*args, **kwargs)
                    if e.valid():
                        return e.run(leaves)
        reason = "first call" if not any(self._cache.values()) else (
            "state created by the previous call" if key in self._cache else self._why(key))
        if sum(len(v) for v in self._cache.values()) >= config.cache_size_limit:
            if "limit" not in self._warned:
                self._warned.add("limit")
                warnings.warn(f"torchlike.compile: {getattr(self._fn, '__name__', self._fn)} hit the cache size "
                              f"limit ({config.cache_size_limit}) (last recompile reason: {reason}); "
                              "falling back to eager for new guard keys")
            return self._fn(*args, **kwargs)
        if config.log_recompiles:
            log.warning("torchlike.compile: compiling %s (%s)", getattr(self._fn, "__qualname__", self._fn), reason)
        if self.dynamic is None and not dyn and self._only_dim0_changed(key):
            # torch's "automatic dynamic": after the first size change, trace with a symbolic dim 0
            self._auto_dynamic = dyn = True
            keys = (key, _dynamic.dynamic_key(key, leaves))
            if config.log_recompiles:
                log.warning("torchlike.compile: %s: dim 0 changed, compiling a dynamic program",
                            getattr(self._fn, "__qualname__", self._fn))
        if dyn and keys[1] not in self._needs_concrete:
            entry, result = self._compile(args, kwargs, leaves, symbolic=True)
            if entry is not None:
                self._cache.setdefault(keys[1], []).append(entry)
                return result
            self._needs_concrete.add(keys[1])
            if config.log_recompiles:
                log.warning("torchlike.compile: %s needs concrete sizes; compiling for these shapes",
                            getattr(self._fn, "__qualname__", self._fn))
        entry, result = self._compile(args, kwargs, leaves)
        self._cache.setdefault(key, []).append(entry)
        return result

    def _only_dim0_changed(self, key):
        """Some cached key differs from ``key`` only in the leading size of tensor arguments."""
        for old in self._cache:
            if old[0] != key[0] or old[2:] != key[2:] or len(old[1]) != len(key[1]) or old[1] == key[1]:
                continue
            same = True
            for a, b in zip(old[1], key[1]):
                if a == b:
                    continue
                if a[0] != "T" or b[0] != "T" or a[2:] != b[2:] or len(a[1]) != len(b[1]) or \
                        not a[1] or a[1][1:] != b[1][1:]:
                    same = False
                    break
            if same:
                return True
        return False

    def _why(self, key):
        for old in self._cache:
            if old[0] != key[0]:
                return "argument structure changed"
            for a, b in zip(old[1], key[1]):
                if a != b:
                    return f"guard failed: {a} -> {b}"
            if old[2] != key[2]:
                return "grad mode changed"
        return "lifted state changed (shape/dtype of a captured tensor, or a module's training flag)"

    # -- tracing
    def _compile(self, args, kwargs, leaves, symbolic=False):
        """Trace and compile for this call; with ``symbolic`` the tensor arguments' leading dims are
        symbolic and ``(None, None)`` means the function needs concrete sizes."""
        struct = _flatten((args, kwargs), [])
        tensor_pos = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        plan = _ArgPlan(leaves, tensor_pos)
        if symbolic:
            if plan.views:
                return None, None
            roots = plan.roots(leaves)
            arg_arrays = _dynamic.symbolic_specs(roots, range(len(roots)))
        else:
            arg_arrays = plan.arrays(leaves)
        entry = _Entry()
        rt = _spmd.runtime
        for spmd in ((True, False) if rt is not None else (False,)):
            try:
                return self._compile_once(args, kwargs, leaves, symbolic, struct, tensor_pos, plan, arg_arrays,
                                          entry, rt if spmd else None)
            except _spmd.NeedsCallbacks:
                continue  # a collective that cannot be part of the SPMD program: trace again with callbacks

    def _run_eagerly(self, entry, msg):
        """From now on this guard key's calls run fn eagerly (``msg``: why, warned once per function)."""
        if "break" not in self._warned:
            self._warned.add("break")
            warnings.warn(f"torchlike.compile: {msg}; running {getattr(self._fn, '__name__', 'fn')} eagerly")
        entry.eager = True
        entry.reason = msg

    def _compile_once(self, args, kwargs, leaves, symbolic, struct, tensor_pos, plan, arg_arrays, entry, rt):
        tr = _trace.Trace()
        if rt is not None:
            tr.spmd = _spmd._Ctx(rt.size)
        info = {}

        def traced(arrays):
            rts, new_leaves = plan.build(leaves, arrays)
            a2, k2 = _unflatten(struct, iter(new_leaves))
            out = self._fn(*a2, **k2)
            out_leaves = []
            info["out_struct"] = _flatten(out, out_leaves)
            info["out_tensors"] = [isinstance(o, Tensor) for o in out_leaves]
            info["out_static"] = [None if isinstance(o, Tensor) else o for o in out_leaves]
            for o in out_leaves:
                if not isinstance(o, Tensor) and not isinstance(o, (int, float, bool, str, type(None))):
                    raise GraphBreak(f"compiled function returned a {type(o).__name__}")
            outs = [o._value for o in out_leaves if isinstance(o, Tensor)]
            info["out_meta"] = [(o.requires_grad, o._dev) for o in out_leaves if isinstance(o, Tensor)]
            if tr.custom_grad and not tr.backward_ran and any(m[0] for m in info["out_meta"]):
                raise GraphBreak(f"{tr.custom_grad} on the way to an output that requires grad: a compiled call's "
                                 "backward differentiates the traced program, which would not run it")
            # writes: pre-existing tensors whose array was replaced, and kept new tensors
            arg_writes = plan.finish(new_leaves)
            mutated, meta = _pre_existing_writes(tr)
            grad_slots = [t for t in tr.order if isinstance(t._grad, Tensor) and _trace._is_tracer(t._grad._x)]
            returned = {id(o) for o in out_leaves} | {id(new_leaves[i]) for i in tensor_pos} | \
                {id(t) for t in rts} | {id(t._grad) for t in rts}
            for o in out_leaves:  # the trace's tape is discarded: it must not keep intermediates alive
                if isinstance(o, Tensor):
                    o._grad_fn = None
            del out
            mutated_ids = {id(t) for t in mutated} | {id(t._grad) for t in grad_slots}
            escaped = []
            gc.collect()  # cycles among the trace's temporaries; the older heap is frozen (see _young_gc)
            for r in tr.created:
                t = r()
                if t is not None and t._vbase is None and _trace._is_tracer(t._x) and id(t) not in returned \
                        and id(t) not in mutated_ids:
                    escaped.append(t)
            info["mutated"], info["grad_slots"], info["escaped"] = mutated, grad_slots, escaped
            info["meta"] = meta
            info["mutated_tracks"] = [t._grad_fn is not None for t in mutated]
            return (outs, [t._x for t in mutated], [t._grad._x for t in grad_slots], [t._x for t in escaped],
                    arg_writes)

        module_hook = _module_recorder(tr)
        # the trace runs fn's Python code: where this call's result is not the trace's, its prints and
        # Python state changes must not count (a break reruns fn eagerly: each happens once per call)
        watch = _side_effects.Watch(self._fn)
        effects = ""
        try:
            with tr, _young_gc(), watch:
                closed = jax.make_jaxpr(traced, axis_env=[(_spmd.AXIS, rt.size)] if rt is not None else None)(
                    arg_arrays)
            effects = watch.happened()
        except _spmd.NeedsCallbacks:
            watch.undo()
            raise
        except Exception as e:
            if symbolic:  # whatever failed, the per-shape trace that follows decides (and reports) it
                watch.undo()
                tr.restore()
                return None, None
            if not isinstance(e, _BREAK_ERRORS):
                watch.keep()  # the error ends the call, as it would under torch after the same prints
                raise _errors.translate(e)  # torch's error, without JAX's frames and notes
            watch.undo()
            tr.restore()
            where = _user_frame(e.__traceback__)
            msg = f"graph break at {where}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            self.breaks.append(msg)
            if self.fullgraph:
                raise Unsupported(f"torchlike.compile(fullgraph=True) could not capture "
                                  f"{getattr(self._fn, '__qualname__', self._fn)}: {msg}") from e
            self._run_eagerly(entry, msg)
            closed = None  # run eagerly below, after the trace's writes are undone (not before: they'd undo it)
        finally:
            module_hook.remove()
            # pre-existing tensors go back to their pre-trace state (the first run applies the writes);
            # no tape node built during the trace may survive it (its arrays are tracers)
            tr.restore()
            for r in tr.created:
                t = r()
                if t is not None and _poisoned(t._grad_fn):
                    t._grad_fn = None
        msg = None
        if effects and any(isinstance(v, Tensor) for v in watch.changed_values()):
            # the trace stored a tensor (a tracer's) in Python state: undone, and this call runs eagerly
            watch.undo()
            msg = f"side effect in {getattr(self._fn, '__qualname__', 'fn')} ({effects}): a program cannot repeat it"
            self.breaks.append(msg)
            self._run_eagerly(entry, msg)
            return entry, self._fn(*args, **kwargs)
        if effects:
            # torch.compile prints, appends and counts on every call (print is a graph break there, the rest
            # replayed side effects); the program repeats none of it: this call's trace did it once (its output
            # is written once the program ran), and later calls run fn eagerly
            msg = f"side effect in {getattr(self._fn, '__qualname__', 'fn')} ({effects}): a program cannot repeat it"
            self.breaks.append(msg)
            if self.fullgraph and "print" in effects.split(", "):
                watch.undo()
                raise Unsupported(f"torchlike.compile(fullgraph=True) could not capture "
                                  f"{getattr(self._fn, '__qualname__', self._fn)}: {msg}")
        if closed is None:
            return entry, self._fn(*args, **kwargs)
        spmd = rt if tr.spmd is not None and tr.spmd.used else None
        if spmd is not None and (symbolic or (not tr.backward_ran and grad_mode.is_grad_enabled() and (
                any(t.requires_grad for t in plan.roots(leaves)) or
                any(t.requires_grad for ts in tr.reads.values() for t in ts)))):
            # a symbolic program, or one whose outputs eager code may differentiate (the tape's programs are
            # single-device): the collectives become host callbacks instead
            watch.undo()  # (traced again)
            raise _spmd.NeedsCallbacks()
        try:
            prog = _Program(closed, tr, info, plan, arg_arrays if symbolic else None, spmd)
        except Exception:
            if symbolic:  # jax.export refused the symbolic program
                watch.undo()
                return None, None
            watch.keep()
            raise
        self.compile_count += 1
        try:
            result = prog.run(leaves)
        finally:
            watch.keep()
        if msg is not None:
            self._run_eagerly(entry, msg)
            return entry, result
        if prog.escaped:
            # the call created state (e.g. optimizer moments on the first step): the program made it from
            # scratch, so the next call must retrace to read it as state instead
            entry.eager = False
            entry.valid = lambda: False
            entry.run = None
            return entry, result
        entry.valid = prog.valid
        entry.run = prog.run
        return entry, result


class _Program:
    """A traced jaxpr with its lifted inputs and write-back plan."""

    def __init__(self, closed, tr, info, plan, arg_specs=None, spmd=None):
        self.info = info
        self.plan = plan
        jaxpr, consts = closed.jaxpr, list(closed.consts)
        self.out_dtypes = [np.dtype(v.aval.dtype) for v in jaxpr.outvars]
        # map each closed-over constant to the tensors it came from (lifted) or keep it baked in
        self.lifted = []  # per const: list of tensors, a scalar getter, or None (baked)
        scalar_by_id = {id(arr): getter for _, getter, arr in tr.scalars}
        for c in consts:
            ts = tr.reads.get(id(c))
            if ts:
                self.lifted.append(("t", [weakref.ref(t) for t in ts], tuple(c.shape), c.dtype))
            elif id(c) in scalar_by_id:
                self.lifted.append(("s", scalar_by_id[id(c)]))
            else:
                self.lifted.append(("c", c))
        self._scalars = {}  # lifted-scalar index -> (value, device array)
        self._commit = None  # whether inputs are committed to their devices before a call (decided on call 1)
        self.modules = [(weakref.ref(m), training) for m, training in tr.modules.values()]
        mutated = info.pop("mutated")
        self.mutated = [weakref.ref(t) for t in mutated]
        self.mutated_tracks = info.pop("mutated_tracks")
        self.meta = [(kind, weakref.ref(t), v) for kind, t, v in info.pop("meta")]
        self.grad_owners = [weakref.ref(t) for t in info.pop("grad_slots")]
        self.escaped = info["escaped"]  # strong: they are state the program owns (e.g. new optimizer state)
        for t in self.escaped:
            t._grad_fn = None
        n_out = len([1 for x in info["out_tensors"] if x])
        self.n = (n_out, len(mutated), len(self.grad_owners), len(self.escaped), len(plan.writes))
        # donate the old arrays of mutated state when nothing else needs them
        mutated_ids = {id(t) for t in mutated}
        donate = []
        for i, l in enumerate(self.lifted):
            if l[0] == "t" and all(id(r()) in mutated_ids for r in l[1]) and len(l[1]) == 1:
                donate.append(i)
        self.donate = tuple(donate)
        self._donate_set = frozenset(donate)
        if arg_specs is None:
            call = functools.partial(_call_jaxpr, jaxpr)
        else:
            call = _dynamic.export_program(jaxpr, consts, arg_specs)
        if not tr.backward_ran:
            self.donate = ()  # outputs may be differentiated later: the tape keeps the old arrays
            self._donate_set = frozenset()
        n_c = len(consts)
        self._key = _ProgKey(call, len(consts))
        self.spmd = spmd is not None
        if spmd is not None:  # multi-process: one SPMD program over the world mesh (compile/_spmd.py)
            self.fn = _spmd.build(call, self.donate, n_c, [v.aval for v in jaxpr.constvars] + [
                v.aval for v in jaxpr.invars], [v.aval for v in jaxpr.outvars], spmd)
        else:
            self.fn = _programs.add(self._key, jax.jit(
                functools.partial(_eval_donating, call=call, donate=self.donate, n_consts=n_c),
                donate_argnums=(0,) if self.donate else ()))
            weakref.finalize(self, _programs.discard, self._key)  # a dead program's executables go with it
        # a program that ran backward itself (a training step) returns plain values; otherwise its
        # outputs get one tape node so eager code can backward through it
        self.differentiable = not tr.backward_ran

    def valid(self):
        for l in self.lifted:
            if l[0] == "t":
                t = l[1][0]()
                if t is None:
                    return False
                x = t._value
                if tuple(x.shape) != l[2] or x.dtype != l[3]:
                    return False
        for r, training in self.modules:
            m = r()
            if m is None or m.training != training:
                return False
        return True

    def _needs_tape(self, leaves):
        for t in self.plan.roots(leaves):
            if t.requires_grad:
                return True
        for l in self.lifted:
            if l[0] == "t":
                t = l[1][0]()
                if t is not None and t.requires_grad:
                    return True
        return False

    def _inputs(self, leaves):
        """The program's inputs: lifted tensors (as Tensors), scalars and baked constants (as arrays),
        then the argument tensors."""
        ins = []
        for i, l in enumerate(self.lifted):
            ins.append(l[1][0]() if l[0] == "t" else (self._scalar(i, l[1]) if l[0] == "s" else l[1]))
        ins += self.plan.tensors(leaves)
        return ins

    def _run_recorded(self, leaves, ins=None):
        """Run through the dispatcher: one tape node for the whole program, its pullback compiled
        (the pullback recomputes the forward; ``_aot.run`` is the residual-saving path)."""
        ins = self._inputs(leaves) if ins is None else ins
        outs = dispatch(_pure_call, tuple(ins), (("prog", self._key),), name="CompiledFunctionBackward",
                        saves=False)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [o._value for o in outs], list(outs)

    def _scalar(self, i, getter):
        """Lifted scalar ``i`` as a device array, transferred again only when its value changed."""
        v = np.float64(getter())
        bits = v.tobytes()  # exact: tells -0.0 from 0.0 and NaN payloads apart
        hit = self._scalars.get(i)
        if hit is not None and hit[0] == bits:
            return hit[1]
        arr = jax.device_put(v)
        self._scalars[i] = (bits, arr)
        return arr

    def _committed(self, don, keep, args):
        """Inputs committed to their devices where some of them already are.  JAX's outputs are committed
        when an input is, and its programs are cached per committedness: parameters moved with
        ``.to('cuda')`` are committed, state made on the device by a factory is not, and a training step's
        second call (its state now outputs of the first) compiled again (6.7 s for GPT-mini on an H200).
        Decided on the first call: where every input is uncommitted (the CPU), outputs stay so too."""
        arr, tracer = jax.Array, jax.core.Tracer  # (traced inputs: a transform's, with no placement yet)
        flags = [v.committed if isinstance(v, arr) and not isinstance(v, tracer) else None
                 for part in (don, keep, args) for v in part]
        vals = [v for part in (don, keep, args) for v in part]
        if self._commit is None:
            # mixed, and the committed inputs on one device (not arrays sharded over a mesh: data_parallel)
            self._commit = True in flags and False in flags and \
                len({d for v, f in zip(vals, flags) if f for d in v.devices()}) == 1
        if not self._commit or False not in flags:
            return don, keep, args
        target = next(iter(vals[flags.index(True)].devices()))  # the device the committed inputs are on
        fix = lambda part: commit_to(part, target)  # noqa: E731
        return fix(don), fix(keep), fix(args)

    def _const_values(self):
        vals = []
        for i, l in enumerate(self.lifted):
            if l[0] == "t":
                vals.append(l[1][0]()._value)
            elif l[0] == "s":
                vals.append(self._scalar(i, l[1]))
            else:
                vals.append(l[1])
        return vals

    def run(self, leaves):
        if self.meta:
            apply_meta(self.meta, True)
        if self.plan.meta:
            self.plan.apply_flags(leaves)
        if self.differentiable and grad_mode.is_grad_enabled() and self._needs_tape(leaves) and not self.spmd:
            flat, out_tensors = _aot.run(self, leaves)
        else:
            args = self.plan.arrays(leaves)
            consts = self._const_values()
            don = [consts[i] for i in self.donate]
            keep = [c for i, c in enumerate(consts) if i not in self._donate_set]
            if self._commit is not False:
                don, keep, args = self._committed(don, keep, args)
            flat, out_tensors = self.fn(don, keep, args), None
        n0, n1, n2, n3, _ = self.n
        e1, e2, e3 = n0 + n1, n0 + n1 + n2, n0 + n1 + n2 + n3
        outs, muts, grads, escs, argw = flat[:n0], flat[n0:e1], flat[e1:e2], flat[e2:e3], flat[e3:]
        info = self.info
        if self.meta:
            apply_meta(self.meta, False)
        for k, (r, new) in enumerate(zip(self.mutated, muts)):
            t = r()
            if t is not None:
                t._store(new)
                t._ver[0] += 1
                if self.mutated_tracks[k] and out_tensors is not None:
                    t._grad_fn, t._oi = out_tensors[n0 + k]._grad_fn, out_tensors[n0 + k]._oi
        if argw:
            self.plan.apply(leaves, argw, out_tensors[e3:] if out_tensors is not None else None)
        for r, new in zip(self.grad_owners, grads):
            t = r()
            if t is not None:
                g = t._grad
                if isinstance(g, Tensor) and tuple(g.shape) == tuple(new.shape):
                    g._x = new
                    g._ver[0] += 1
                else:
                    t._grad = Tensor._wrap(new, t._dev)
        for t, new in zip(self.escaped, escs):
            t._store(new)
            t._ver[0] += 1
        out_it = iter(outs)
        meta_it = iter(info["out_meta"])
        results = []
        k = 0
        for is_t, static in zip(info["out_tensors"], info["out_static"]):
            if is_t:
                rg, dev = next(meta_it)
                new = next(out_it)
                results.append(out_tensors[k] if out_tensors is not None else Tensor._wrap(new, dev))
                k += 1
            else:
                results.append(static)
        return _unflatten(info["out_struct"], iter(results))


_programs = _jit_cache.Cache("compiled")


class _ProgKey:
    """Hashable by identity: the static argument naming a program in the dispatcher's caches."""

    def __init__(self, call, n_consts):
        self.call, self.n_consts = call, n_consts


def _call_jaxpr(jaxpr, consts, args):
    return jax.core.eval_jaxpr(jaxpr, list(consts), *args)


def _eval_donating(don, keep, args, call, donate, n_consts):
    """Reassemble the constants (the donated old state arrays first) and run the program."""
    consts, di, ki = [], iter(don), iter(keep)
    dset = set(donate)
    for i in range(n_consts):
        consts.append(next(di) if i in dset else next(ki))
    return call(consts, args)


@contextlib.contextmanager
def _young_gc():
    """Freeze the pre-existing heap for the duration of a trace, so the ``gc.collect()`` that finds which
    trace-created tensors are still alive scans only objects made during the trace (O(trace), not
    O(heap): 0.06 s per trace on a small program, seconds in a large application).  Left alone when the
    application uses ``gc.freeze`` itself."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _poisoned(node):
    prims = getattr(node, "primals", None)
    return bool(prims) and any(_trace._is_tracer(p) for p in prims)


def _module_recorder(tr):
    try:
        from ..nn.modules.module import register_module_forward_pre_hook  # lazy: compile(fn) works without nn (imported after compile)
    except ImportError:
        class _Nop:
            def remove(self):
                pass
        return _Nop()

    def hook(module, args):
        if _trace.current() is tr:  # (the hook is global: other threads' modules are not this trace's)
            tr.modules.setdefault(id(module), (module, module.training))
    return register_module_forward_pre_hook(hook)


_noticed = set()


def _notice(msg):
    if msg not in _noticed:
        _noticed.add(msg)
        warnings.warn(f"torchlike.compile: {msg}")
