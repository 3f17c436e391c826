"""What lower layers need to know of torchlike's tracer (compile, export, data parallelism) without importing it:
callbacks run before a trace starts, registered by those layers (e.g. the random generators move their host-built
keys to the device so the trace lifts them as inputs instead of baking them in), and the thread's stack of active
traces (``compile._trace.Trace`` pushes and pops it; ``current()`` is its top).

>>> from torchlike._trace_hooks import current
>>> current() is None
True
"""
from __future__ import annotations

import threading

__all__ = ["before_trace", "run_before_trace", "current"]

_local = threading.local()  # .stack: the thread's active traces, innermost last


def current():
    """The active Trace of this thread, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None

before_trace = []


def run_before_trace():
    for f in before_trace:
        f()
