"""Ops whose shapes keep changing run on the host: no XLA compilation for a shape seen once.

Every new shape of an eager op costs an XLA compilation (~60-120 ms on this CPU), which is what text
generation pays per token: the KV cache, ``input_ids`` and the attention mask grow by one each step, so
``cat``, ``clone``, ``isin`` and integer arithmetic meet a new shape at every call.  An op whose cached
forward already holds ``WATCH_AFTER`` compiled shapes is *watched*: a call at a shape it has not compiled
runs a numpy implementation on the host instead (CPU tensors, not traced, no gradient recorded), until the
shape has run there ``COMPILE_AFTER`` times; then it compiles as before.  After ``SETTLE`` consecutive calls
at compiled shapes the watch ends (the hot path is again one attribute test), and the next compilation
starts it again.

Only ops whose numpy result is bit-identical to XLA's have a host implementation: data movement (``cat``
without casts, ``clone``), and integer/bool arithmetic, comparisons and ``isin`` (exact, wrapping on
overflow alike).  Floating-point arithmetic stays on XLA: XLA's CPU code flushes denormals to zero and
numpy does not.  (``_host_ops`` is the other host path: ops on small tensors that never left the host.)

>>> import numpy as np
>>> as_exact(np.arange(3), np.int32).dtype, as_exact(np.arange(3.0), np.int32)
(dtype('int32'), None)
"""
from __future__ import annotations

import math

import jax
import numpy as np

from . import _jit_cache, _views
from ._device import host_to_jax

__all__ = ["HOST_IMPLS", "host_impl", "as_exact", "quiet", "exact_dtype", "Watch", "route", "watch_after_compile", "WATCH_AFTER", "COMPILE_AFTER",
           "SETTLE", "MAX_ELEMENTS"]

WATCH_AFTER = 2  # compiled shapes before an op with a host implementation is watched
COMPILE_AFTER = 32  # host calls of one shape before it compiles (~20 us each against one ~60-120 ms compile)
SETTLE = 256  # consecutive calls at compiled shapes that end a watch
MAX_ELEMENTS = 1 << 20  # larger calls compile (the host copies its inputs and result)

# f (an op's jax implementation) -> numpy function with the same signature, returning a numpy array (or a
# tuple of them), or None where it declines (a dtype it does not compute exactly): the call then compiles.
HOST_IMPLS: dict = {}

_EXACT_KINDS = frozenset("biu")  # bool, signed and unsigned integers
_CPU_PLATFORM = "cpu"


def host_impl(f, np_fn):
    """Register ``np_fn`` as the exact host implementation of the op function ``f``."""
    HOST_IMPLS[f] = np_fn
    return np_fn


def exact_dtype(dt):
    """Whether numpy computes arithmetic in numpy dtype ``dt`` bit-identically to XLA (bool and integers)."""
    return np.dtype(dt).kind in _EXACT_KINDS


def as_exact(x, dt):
    """``x`` (a numpy array or a Python number) as a numpy array of the integer/bool dtype ``dt``, or None
    where the cast would not be the device program's (a float input, a Python number out of range)."""
    dt = np.dtype(dt)
    if dt.kind not in _EXACT_KINDS:
        return None
    if isinstance(x, np.ndarray):
        return x if x.dtype == dt else (x.astype(dt) if x.dtype.kind in _EXACT_KINDS else None)
    if type(x) is bool or (type(x) is int and dt.kind != "b" and np.iinfo(dt).min <= x <= np.iinfo(dt).max):
        return np.asarray(x, dt)
    return None


def quiet(fn, *args, **kw):
    """``fn(*args, **kw)`` without numpy's overflow warnings (integer arithmetic wraps silently on the
    device), its result an array (not a numpy scalar)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*args, **kw))


class Watch:
    """Per watched entry: the signatures compiled (as far as seen), host calls per signature, the streak of
    calls at compiled signatures."""

    __slots__ = ("sigs", "counts", "streak")

    def __init__(self):
        self.sigs, self.counts, self.streak = set(), {}, 0


def watch_after_compile(e, f, arrays):
    """Called on the miss path (entry ``e`` of op ``f`` just compiled ``arrays``' shape): watch it once it
    holds ``WATCH_AFTER`` shapes, and note the shape as compiled."""
    if f not in HOST_IMPLS or e.n < WATCH_AFTER:
        return
    w = e.watch
    if w is None:
        w = e.watch = Watch()
    w.sigs.add(_jit_cache.signature(arrays))


def route(e, f, statics, arrays, views=None, n=0):
    """The result of a watched entry's call computed on the host (jax arrays), or None to call the compiled
    program (a shape it compiled, or one that ran on the host ``COMPILE_AFTER`` times, or a call the host
    does not take).  ``arrays`` are the compiled program's arguments; with ``views`` ((position, lazy view)
    pairs of a fused call, whose program reads the views from their roots: ``arrays`` then holds the roots,
    and the views' start positions after the op's own ``n`` arguments) the views are read on the host."""
    w = e.watch
    sig = _jit_cache.signature(arrays)
    if sig in w.sigs:
        w.streak += 1
        if w.streak >= SETTLE:
            e.watch = None
        return None
    w.streak = 0
    c = w.counts.get(sig, 0)
    if c >= COMPILE_AFTER or not _jit_cache.top_level():
        return None
    host = []
    size = 0
    if views is not None:
        arrays = list(arrays[:n])
        for i, v in views:
            src = v._x.src
            if math.prod(v.shape) > MAX_ELEMENTS:  # (before reading: a reshape of an expand would copy)
                return None
            if isinstance(src, jax.Array) and next(iter(src.devices())).platform != _CPU_PLATFORM:
                return None
            try:
                r = _views.host_read(src, v._chain)
            except Exception:  # noqa: BLE001 - (the compiled path reads it, or raises torch's error)
                return None
            if r is None or r.size > MAX_ELEMENTS:
                return None
            arrays[i] = r
    device = None
    for a in arrays:
        if isinstance(a, jax.Array):
            if not a.is_fully_addressable or len(a.devices()) != 1:
                return None
            d = next(iter(a.devices()))
            if d.platform != _CPU_PLATFORM or device is not None and d != device:
                return None
            device = d
            size += a.size
            if size > MAX_ELEMENTS:  # (before reading it: the host copy of a huge array is no shortcut)
                return None
            try:
                a = np.asarray(a)
            except Exception:  # noqa: BLE001 - (a deleted buffer: the compiled path raises torch's error)
                return None
        elif isinstance(a, np.ndarray):  # (a view read on the host)
            size += a.size
        host.append(a)
    if size > MAX_ELEMENTS or device is None and views is None:
        return None
    try:
        out = HOST_IMPLS[f](*host, **dict(statics))
    except Exception:  # noqa: BLE001 - the compiled path raises torch's error for this call
        return None
    if out is None:
        w.sigs.add(sig)  # declined (not exact in this dtype): compile, and stop asking for this shape
        return None
    if len(w.counts) >= 4096:  # shapes seen once each, forever: forget them
        w.counts.clear()
    w.counts[sig] = c + 1
    if type(out) is tuple:
        return tuple(_to_device(o, device) for o in out)
    return _to_device(out, device)


def _to_device(a, device):
    """numpy result ``a`` as a jax array on the CPU device its inputs live on.  Where that is this process's
    default device (one local CPU device: also each process of a multi-process CPU run), an uncommitted
    array as a compiled program returns (``device_put`` to a device commits it, and
    jit keys its executables by committedness: each op after it compiled again)."""
    if _DEFAULT_IS_CPU[0] is None:
        _DEFAULT_IS_CPU[0] = jax.default_backend() == _CPU_PLATFORM and len(jax.local_devices()) == 1
    if _DEFAULT_IS_CPU[0] or device is None:  # (device None: only views, read from this process's CPU roots)
        return host_to_jax(a, copy=not (a.flags.owndata and a.flags.writeable))
    return jax.device_put(a, device)


_DEFAULT_IS_CPU = [None]
