"""Callbacks run before torchlike traces a program (compile, export, data parallelism), registered by
lower layers that cannot import the tracer: e.g. the random generators move their host-built keys to
the device so the trace lifts them as inputs instead of baking them in."""
from __future__ import annotations

__all__ = ["before_trace", "run_before_trace"]

before_trace = []


def run_before_trace():
    for f in before_trace:
        f()
