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
import numpy as np

from .. import _views
from ..tensor import Tensor

__all__ = ["Trace", "current", "is_tracing"]

_local = threading.local()


def current():
    """The active Trace, or None."""
    return getattr(_local, "trace", None)


def is_tracing() -> bool:
    return current() is not None


_orig_value = Tensor.__dict__["_value"]
_orig_wrap = Tensor.__dict__["_wrap"]


def _is_tracer(x):
    return isinstance(x, jax.core.Tracer)


def _value_tracing(self):
    """``Tensor._value`` while tracing: record concrete roots; views are re-read from their root."""
    tr = current()
    b = self._vbase
    if b is None:
        x = self._x
        if tr is not None and not _is_tracer(x):
            tr.record_read(self, x)
        return x
    root = _value_tracing(b)
    return _views.chain_fn(self._chain)(root)


def _wrap_tracing(cls, x, dev=None):
    t = _orig_wrap.__func__(cls, x, dev) if dev is not None else _orig_wrap.__func__(cls, x)
    tr = current()
    if tr is not None and _is_tracer(x):
        tr.created.append(weakref.ref(t))
    return t


class Trace:
    """State gathered while tracing one call of a function."""

    def __init__(self):
        self.reads = {}  # id(array) -> [tensor, ...] for concrete arrays read
        self.order = []  # tensors in first-read order
        self.snap = {}  # id(tensor) -> slot snapshot, to restore after a failed trace
        self.created = []  # weakrefs to tensors created during the trace
        self.modules = {}  # id(module) -> (module, training) for modules called
        self.scalars = []  # (key, getter, array): Python scalars lifted to inputs (optimizer hyperparameters)
        self.backward_ran = False

    def record_read(self, t, x):
        lst = self.reads.get(id(x))
        if lst is None:
            self.reads[id(x)] = [t]
            self.order.append(t)
            self.snap[id(t)] = _snapshot(t)
        elif all(o is not t for o in lst):
            lst.append(t)
            self.order.append(t)
            self.snap[id(t)] = _snapshot(t)

    def lift_scalar(self, key, getter):
        """A concrete 0-d float64 array for ``getter()`` that becomes an input of the compiled program;
        each call re-evaluates ``getter`` (so e.g. a scheduler's new learning rate is used)."""
        import jax.numpy as jnp
        for k, _, arr in self.scalars:
            if k == key:
                return arr
        with jax.ensure_compile_time_eval():  # a concrete array, so it becomes a jaxpr constant we can swap
            arr = jax.device_put(np.float64(getter()))
        self.scalars.append((key, getter, arr))
        return arr

    def __enter__(self):
        if current() is not None:
            raise RuntimeError("nested torchlike.compile traces are not supported")
        _local.trace = self
        Tensor._value = property(_value_tracing)
        Tensor._wrap = classmethod(_wrap_tracing)
        return self

    def __exit__(self, *exc):
        Tensor._value = _orig_value
        Tensor._wrap = _orig_wrap
        _local.trace = None
        return False

    def restore(self):
        """Undo the trace's writes into pre-existing tensors (after a graph break)."""
        for t in self.order:
            _restore(t, self.snap[id(t)])


_SLOTS = ("_x", "_grad", "_grad_fn", "_oi", "_rg", "_seen", "_vbase", "_chain")


def _snapshot(t):
    return tuple(getattr(t, s) for s in _SLOTS) + (t._ver[0],)


def _restore(t, snap):
    for s, v in zip(_SLOTS, snap[:-1]):
        setattr(t, s, v)
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
