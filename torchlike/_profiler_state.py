"""The running profiler's event collector (layer 0: imports nothing of torchlike).

``_dispatch.dispatch`` checks ``collecting()`` (one global read) and, while a profiler records, routes the
op through ``timed_op`` so each eager op becomes an ``aten::<name>`` event; while a ``TorchDispatchMode`` is
active (``MODES``, torch.utils._python_dispatch's mode stack) the same read routes it to ``MODE_HANDLER``; ``record_function`` ranges
open and close events around user code. Events nest by time (a range's self time excludes its children).
"""
from __future__ import annotations

import re
import threading
import time
import weakref

from ._views import HOST_CHAIN

__all__ = ["Collector", "start", "stop", "active", "timed_op", "observe_node", "observe_backward_end", "fused_kernel", "begin_range", "end_range", "aten_name", "MODES", "MODE_HANDLER", "MODE_FUSED", "MODE_BACKWARD",
           "MODE_INPLACE", "modes_changed", "SUBCLASSES", "SUBCLASS_HANDLER", "SUBCLASS_LOADER",
           "run_fused"]

_COLLECTING = False     # read by the dispatcher on every op: a profiler records or a dispatch mode is active
_active = None          # the Collector while a profiler records
MODES = []              # the TorchDispatchMode stack (innermost last); see torchlike.utils._python_dispatch
MODE_HANDLER = [None]   # handler(f, args, statics, name, diff, jit, saves): an op run under MODES[-1]
MODE_FUSED = [None]     # handler(op, args, run): a fused region (run_fused) under MODES[-1]
MODE_BACKWARD = [None]  # the engine's calls under MODES: .apply(node, ...), .accumulate, .buffer_sum, .ones_like
MODE_INPLACE = [None]   # handler(method, name, self, args, kwargs): an in-place method under MODES[-1]
# the Tensor subclasses whose own ``__torch_dispatch__`` runs (torch.utils._python_dispatch): empty until the first
# instance of one is made, so ops test one flag; SUBCLASS_HANDLER[0] routes their ops (utils/_subclass_dispatch.py)
SUBCLASSES = set()
SUBCLASS_HANDLER = [None]
SUBCLASS_LOADER = [None]  # () -> None: loads the handler (the facade fills it; the first such instance calls it)
_lock = threading.Lock()
_in_op = threading.local()


class Collector:
    """Raw events: [name, start_ns, end_ns, input_shapes, thread id, depth, children's time, self bytes,
    children's bytes]; children subtract from self time and add to total memory.

    With ``profile_memory``, an op's new (non-view, non-in-place) output tensors count as allocated by it,
    and each such tensor's release counts as freed (negative bytes) by the event open when it dies, or as a
    top-level ``[memory]`` event, as torch's CPU memory profiler reports.
    """

    def __init__(self, record_shapes=False, profile_memory=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events = []
        self.stack = []
        self.origin_ns = time.perf_counter_ns()
        self.observer = None  # FlopCounterMode's: told of each op (``op``) and each backward node run (``node``)

    def open(self, name, shapes=()):
        ev = [name, time.perf_counter_ns(), None, list(shapes) if self.record_shapes else [],
              threading.get_ident(), len(self.stack), 0, 0, 0]
        self.stack.append(ev)
        return ev

    def close(self, ev):
        ev[2] = time.perf_counter_ns()
        if self.stack and self.stack[-1] is ev:
            self.stack.pop()
        elif ev in self.stack:
            self.stack.remove(ev)
        if self.stack:
            self.stack[-1][6] += ev[2] - ev[1]
            self.stack[-1][8] += ev[7] + ev[8]
        self.events.append(ev)

    def allocated(self, ev, out, args):
        """Count ``out``'s new tensors as allocated by op event ``ev`` and watch for their release."""
        for t in (out if isinstance(out, (tuple, list)) else (out,)):
            if getattr(t, "_vbase", True) is not None and getattr(t, "_chain", None) is not HOST_CHAIN or \
                    any(t is a for a in args):  # (a host-resident result, a hidden root's alias, is new)
                continue  # not a Tensor, a view, or an in-place op's own input: nothing new
            try:
                n = t.nbytes
                weakref.finalize(t, self.freed, n)
            except Exception:  # a tensor without storage (meta) or one that cannot be watched
                continue
            ev[7] += n

    def freed(self, n):
        if _active is not self:
            return
        if self.stack:
            self.stack[-1][7] -= n
        else:
            now = time.perf_counter_ns()
            self.events.append(["[memory]", now, now, [], threading.get_ident(), 0, 0, -n, 0])


def start(record_shapes=False, profile_memory=False):
    """Begin collecting into a new Collector (one profiler at a time, as torch)."""
    global _COLLECTING, _active
    with _lock:
        if _active is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        _active = Collector(record_shapes, profile_memory)
        _COLLECTING = True
        return _active


def modes_changed():
    """Recompute the dispatcher's flag after the mode stack ``MODES`` changed."""
    global _COLLECTING
    _COLLECTING = _active is not None or bool(MODES)


def stop():
    """Stop collecting; returns the Collector (or None)."""
    global _COLLECTING, _active
    with _lock:
        c, _active, _COLLECTING = _active, None, bool(MODES)
        return c


def active():
    return _active


def collecting():
    return _COLLECTING


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def aten_name(name, f):
    """``MulBackward0`` -> ``aten::mul``; functions without a node name use their own name."""
    if name and ":" in name:   # "AddmmBackward0:linear": the public op is after the colon
        name = name.rsplit(":", 1)[1]
    base = re.sub(r"Backward\d*$", "", name) if name and name != "Op" else getattr(f, "__name__", "op")
    base = base.strip("_")
    if base.endswith("_impl"):
        base = base[:-5]
    return "aten::" + _CAMEL.sub("_", base).lower()


def timed_op(run, f, args, name, statics=()):
    """Run ``run()`` (the dispatcher, with collection paused for its own nested calls) as one event."""
    c = _active
    if c is None or getattr(_in_op, "on", False):
        return run()
    shapes = [list(getattr(a, "shape", ())) for a in args] if c.record_shapes else ()
    ev = c.open(aten_name(name, f), shapes)
    _in_op.on = True
    try:
        out = run()
        _block(out)
        if c.profile_memory:
            c.allocated(ev, out, args)
        if c.observer is not None:
            c.observer.op(f, name, args, statics, out)
        return out
    finally:
        _in_op.on = False
        c.close(ev)


def _block(out):
    """Wait for the op's result so the event measures the computation, not only its launch."""
    for t in (out if isinstance(out, tuple) else (out,)):
        x = getattr(t, "_x", None)
        if x is not None and hasattr(x, "block_until_ready"):
            try:
                x.block_until_ready()
            except Exception:  # a tracer or a deleted buffer: nothing to wait for
                pass


def observe_node(node):
    """Tell the collector's observer that backward runs ``node``."""
    c = _active
    if c is not None and c.observer is not None:
        c.observer.node(node)


def observe_backward_end():
    """Tell the collector's observer that a backward pass ended."""
    c = _active
    if c is not None and c.observer is not None:
        c.observer.backward_end()


class fused_kernel:
    """``with fused_kernel():`` runs ops that torch runs as one fused kernel here (``_native_multi_head_attention``,
    ``_transformer_encoder_layer_fwd``): a flop counter sees none of them, as it sees no formula for torch's."""

    def __enter__(self):
        self.observer = _active.observer if _active is not None else None
        if self.observer is not None:
            self.observer.paused += 1
        return self

    def __exit__(self, *exc):
        if self.observer is not None:
            self.observer.paused -= 1
        return False


def run_fused(op, args, run):
    """``run()``, a region torch runs as the one fused aten op ``op`` with arguments ``args``: a dispatch mode sees
    that one call (``MODE_FUSED``), a flop counter none of the ops inside (``fused_kernel``)."""
    if MODES and MODE_FUSED[0] is not None:
        return MODE_FUSED[0](op, args, run)
    with fused_kernel():
        return run()


def begin_range(name):
    c = _active
    return (c, c.open(name)) if c is not None else None


def end_range(token):
    if token is not None:
        token[0].close(token[1])
