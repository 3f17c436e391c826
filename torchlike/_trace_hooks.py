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

__all__ = ["before_trace", "run_before_trace", "current", "on_compile_call", "note_compile_call", "compile_called"]

_local = threading.local()  # .stack: the thread's active traces, innermost last


def current():
    """The active Trace of this thread, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None

before_trace = []


def run_before_trace():
    for f in before_trace:
        f()


# torch's first ``torch.compile(...)`` call (not a disabled one) turns torch.distributions' argument validation off
# for the rest of the process (torch._dynamo's TorchPatcher).  ``torchlike.compile`` calls note_compile_call();
# torchlike.distributions registers its hook here when it is imported, and reads compile_called then.
compile_called = False
on_compile_call = []


def note_compile_call():
    global compile_called
    if not compile_called:
        compile_called = True
        for f in on_compile_call:
            f()
