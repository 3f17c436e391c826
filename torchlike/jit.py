"""torch.jit: scripting/tracing return the function or module unchanged (use torchlike.compile)."""
from __future__ import annotations

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "Final"]


def script(obj, *args, **kwargs):
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    return func


def ignore(fn=None, **kw):
    return fn if fn is not None else (lambda f: f)


unused = ignore
export = ignore


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


Final = object
