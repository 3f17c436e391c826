"""Functionalization: trace a Python function over Tensors into one pure JAX function.

While tracing (``jax.make_jaxpr``), every Tensor that holds a *concrete* array and is read by the
function is recorded: its array becomes a closed-over constant of the jaxpr, and we remember which
constant belongs to which tensor, so at call time the tensor's *current* array is passed in its place
(parameters, buffers, optimizer state, RNG state are inputs, never baked in).  Tensors whose array is
a tracer when the trace ends were written (in-place updates, ``.grad``, running stats) or created and
kept (new optimizer state): their final arrays become extra outputs, written back after each call.

The same lifting serves ``torchlike.compile``, ``torchlike.export`` and data parallelism.
"""
from __future__ import annotations

import threading
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _trace_hooks, _views
from .._errors import GraphBreak, is_tracer as _is_tracer
from ..autograd import engine as _engine
from ..tensor import _ALIAS_CHAIN, _NUMPY_CHAIN, _SHARED_CHAIN, Tensor

__all__ = ["Trace", "current", "is_tracing"]

_local = _trace_hooks._local  # the thread's trace stack lives in layer 0, where the random generators read it
current = _trace_hooks.current


def is_tracing() -> bool:
    return current() is not None


def _backward_started():
    tr = current()
    if tr is not None:
        tr.backward_ran = True  # a compiled step that runs backward owns its gradients


_engine.on_backward.append(_backward_started)


_orig_value = Tensor.__dict__["_value"]
_orig_wrap = Tensor.__dict__["_wrap"]
_SLOT_X = Tensor.__dict__["_x"]
_SLOT_RG = Tensor.__dict__["_rg"]
_SLOT_GRAD = Tensor.__dict__["_grad"]
_MISSING = object()


def _value_tracing(self):
    """``Tensor._value`` while tracing: record concrete roots; views are re-read from their root.
    In a thread that is not tracing (while another one is), the ordinary property."""
    tr = current()
    if tr is None:
        return _orig_value.__get__(self)
    b = self._vbase
    if self._chain is _ALIAS_CHAIN:  # a host tensor (Tensor._from_host) becomes a plain device tensor first
        b = self._settle()
    if b is None:
        x = _SLOT_X.__get__(self)
        if not _is_tracer(x):
            tr.record_read(self, x)
        return x
    if self._chain is _NUMPY_CHAIN or self._chain is _SHARED_CHAIN:
        # a tensor whose storage is a numpy array or a shared mapping (``p.detach().numpy()``,
        # ``share_memory_()``) is an alias of a hidden root that never requires grad: the program's input is
        # recorded as the tensor itself first (it is the leaf, or has the grad_fn, that gradients reach),
        # then as the root (whose snapshot restores and writes back the trace's writes)
        x = b._x
        if not _is_tracer(x):
            tr.record_read(self, x)
            tr.record_read(b, x)
        return x
    root = _value_tracing(b)
    la = tr.leaf_alias.get(id(b))
    if la is None and not self._rg and self._grad_fn is None:
        return _views.chain_fn(self._chain)(root)
    return _leaf_alias_value(tr, self, b, root, la)


_DETACHED = (("alias", "detach"), ("alias", "data"))


@jax.custom_jvp
def _attach(v, g):
    """``v``, whose gradient goes to ``g`` (of the same shape and dtype) instead of to what ``v`` was read from."""
    return v


@_attach.defjvp
def _attach_jvp(primals, tangents):
    return primals[0], tangents[1]


def _through(entry, root):
    """The value of the leaf of ``entry`` (``(id, chain, its input, the root's array then)``) over ``root``: its
    input itself while the root keeps the array it had (any order of gradient is the leaf's), else the root's
    array read through its chain (the trace wrote the storage) with the first-order gradient going to the input."""
    _, cp, gi, r0 = entry
    if root is r0:
        return gi
    return _attach(_views.chain_fn(cp)(root), gi)


def _leaf_alias_value(tr, t, b, root, la):
    """The traced value of view ``t`` of root ``b`` where ``t`` is a grad-requiring leaf sharing ``b``'s storage (a
    Parameter of a view, ``p.data = flat[a:b]``), or a view of one: the leaf is an input of the program of its own
    (torch's leaf is its own tensor for autograd; the root's gradient never reached it), whose value the trace's
    writes to the storage replace (``_through``).  A leaf that existed before the trace gets its input here (its
    current value is passed at each call); argument leaves get theirs from the argument plan
    (``_writeback.ArgPlan``)."""
    chain = t._chain
    for entry in la or ():
        if entry[0] == id(t) and entry[1] == chain:
            return _through(entry, root)
    if t._rg and t._grad_fn is None and id(t) not in tr.created_ids:
        r0 = None if _is_tracer(root) else root
        with jax.ensure_compile_time_eval():  # a concrete array: a jaxpr constant swapped for t's value per call
            if r0 is not None:
                gi = _views.chain_fn(chain)(root)
            else:  # (the storage was written earlier in the trace: only gi's shape and dtype count)
                v = jax.eval_shape(_views.chain_fn(chain), root)
                gi = jnp.zeros(v.shape, v.dtype)
        tr.lift_leaf_alias(t, gi)
        entry = (id(t), chain, gi, r0)
        tr.leaf_alias.setdefault(id(b), []).append(entry)
        return _through(entry, root)
    best, hits = None, 0  # a view of such a leaf, made from it (its chain goes on from the leaf's)
    for entry in la or ():
        n = len(entry[1])
        if n < len(chain) and chain[:n] == entry[1]:
            if best is None or n > len(best[1]):
                best, hits = entry, 1
            elif n == len(best[1]):
                hits += 1
    if hits > 1:
        raise GraphBreak("a view of one of several grad-requiring tensors that alias the same part of a storage")
    if best is not None:
        return _views.chain_fn(chain[len(best[1]):])(_through(best, root))
    if (t._rg or t._grad_fn is not None) and not (b._rg or b._grad_fn is not None) and (
            la or (id(t) not in tr.created_ids and any(st in _DETACHED for st in chain))):
        # a view requiring grad that is not read through its leaf (``as_strided`` of it, or a view made before the
        # trace, read before the leaf): its gradient would stop at the root, which does not require grad
        raise GraphBreak("a view requiring grad of a storage shared with a grad-requiring leaf, not read through it")
    return _views.chain_fn(chain)(root)


def _wrap_tracing(cls, x, dev=None):
    t = _orig_wrap.__func__(cls, x, dev) if dev is not None else _orig_wrap.__func__(cls, x)
    tr = current()
    if tr is not None:
        tr.created_ids.add(id(t))
        if _is_tracer(x):
            tr.created.append(weakref.ref(t))
    return t


def _slot_property(slot):
    """A property over a slot that, while this thread traces, records the first write to a tensor
    that existed before the trace (so the write is restored after the trace and written back by the
    compiled program), even when the tensor was never read."""
    get = slot.__get__

    def setter(self, v):
        tr = current()
        if tr is not None and id(self) not in tr.created_ids and id(self) not in tr.snap:
            try:
                get(self)
            except AttributeError:  # the slot's first assignment: a tensor being constructed
                pass
            else:
                tr.record_write(self)
        slot.__set__(self, v)
    return property(get, setter, slot.__delete__)


_tracing_attrs = {"_value": property(_value_tracing), "_wrap": classmethod(_wrap_tracing),
                  "_x": _slot_property(_SLOT_X), "_rg": _slot_property(_SLOT_RG),
                  "_grad": _slot_property(_SLOT_GRAD)}
_plain_attrs = {"_value": _orig_value, "_wrap": _orig_wrap, "_x": _SLOT_X, "_rg": _SLOT_RG, "_grad": _SLOT_GRAD}
_install_lock = threading.Lock()
_active = [0]  # traces running in any thread


def _install():
    """Tracing versions of Tensor's attributes stay installed while any thread traces (they fall back
    to the plain behaviour in threads that are not tracing)."""
    with _install_lock:
        if _active[0] == 0:
            for k, v in _tracing_attrs.items():
                setattr(Tensor, k, v)
        _active[0] += 1


def _uninstall():
    with _install_lock:
        _active[0] -= 1
        if _active[0] == 0:
            for k, v in _plain_attrs.items():
                setattr(Tensor, k, v)


class Trace:
    """State gathered while tracing one call of a function."""

    def __init__(self):
        self.reads = {}  # id(array) -> [tensor, ...] for concrete arrays read
        self.order = []  # tensors in first-read order
        self.snap = {}  # id(tensor) -> slot snapshot, to restore after a failed trace
        self.created = []  # weakrefs to tensors created during the trace with a traced value
        self.created_ids = set()  # ids of all tensors created during the trace
        self.modules = {}  # id(module) -> (module, training) for modules called
        self.scalars = []  # (key, getter, array): Python scalars lifted to inputs (optimizer hyperparameters)
        self.backward_ran = False
        # why a JAX gradient of the program would not be torch's (an autograd.Function's own backward, a
        # tensor hook): then its outputs cannot be differentiated later as one program (_compiled.py)
        self.custom_grad = None
        self.spmd = None  # compile._spmd._Ctx: collectives lower to XLA collectives over the world axis
        # id(root) -> [(id(leaf), its chain, its input, the root's array then)]: grad-requiring leaves sharing that
        # root's storage, each an input of the program of its own (_leaf_alias_value)
        self.leaf_alias = {}

    def record_read(self, t, x):
        snap = self.snap.get(id(t))
        if snap is not None and snap[0] is not x:
            return  # written earlier in this trace: its value is the program's own, not an input
        lst = self.reads.get(id(x))
        if lst is None:
            self.reads[id(x)] = [t]
        elif all(o is not t for o in lst):
            lst.append(t)
        else:
            return
        if id(t) not in self.snap:  # (a tensor written before it was read keeps its earlier snapshot)
            self.order.append(t)
            self.snap[id(t)] = _snapshot(t)

    def record_write(self, t):
        """``t`` (pre-existing) is about to be written: snapshot it so it can be restored and diffed."""
        if id(t) not in self.snap:
            self.order.append(t)
            self.snap[id(t)] = _snapshot(t)

    def lift_leaf_alias(self, t, gi):
        """``gi`` (a concrete array) is the program input of grad-requiring leaf ``t``, a view of another storage:
        each call passes ``t``'s value, the leaf's value and gradient in the program (``_leaf_alias_value``)."""
        self.reads[id(gi)] = [t]
        self.record_write(t)

    def lift_scalar(self, key, getter):
        """A concrete 0-d float64 array for ``getter()`` that becomes an input of the compiled program;
        each call re-evaluates ``getter`` (so e.g. a scheduler's new learning rate is used)."""
        for k, _, arr in self.scalars:
            if k == key:
                return arr
        with jax.ensure_compile_time_eval():  # a concrete array, so it becomes a jaxpr constant we can swap
            arr = jax.device_put(np.float64(getter()))
        self.scalars.append((key, getter, arr))
        return arr

    def __enter__(self):
        _trace_hooks.run_before_trace()  # e.g. generators' host-built keys become device arrays first
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        _install()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        stack = _local.stack
        if stack and stack[-1] is self:
            stack.pop()
        _uninstall()
        return False

    def restore(self):
        """Undo the trace's writes into pre-existing tensors (after a graph break)."""
        for t in self.order:
            _restore(t, self.snap[id(t)])


_SLOTS = ("_x", "_grad", "_grad_fn", "_oi", "_rg", "_seen", "_vbase", "_chain", "_dev")


SNAP_X = 0  # index of ``_x`` in a snapshot


def _snapshot(t):
    ver = getattr(t, "_ver", None)
    return tuple(getattr(t, s, _MISSING) for s in _SLOTS) + (ver, ver[0] if ver else None)


def _restore(t, snap):
    for s, v in zip(_SLOTS, snap[:-2]):
        if v is not _MISSING:
            setattr(t, s, v)
    if snap[-2] is not None:
        t._ver = snap[-2]
        t._ver[0] = snap[-1]


def lift_scalar(key, getter):
    """``getter()`` as a float64 value: a lifted 0-d array input while tracing, a numpy float otherwise.

    Optimizers read hyperparameters through this, so an LR scheduler outside a compiled step changes
    the learning rate without recompiling.
    """
    tr = current()
    if tr is None:
        return np.float64(getter())
    return tr.lift_scalar(key, getter)
