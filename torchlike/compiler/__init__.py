"""torchlike.compiler: torch.compiler's public API over torchlike.compile.

Libraries ask ``torch.compiler.is_compiling()`` to take trace-friendly paths while a function is being
compiled; it is True inside a function that ``torchlike.compile`` is tracing.

>>> import torchlike
>>> torchlike.compiler.is_compiling()
False
>>> torchlike.compile(lambda x: x + int(torchlike.compiler.is_compiling()))(torchlike.zeros(1)).item()
1.0
"""
from __future__ import annotations

import functools

from .. import compile as _compile_pkg
from ..compile._trace import is_tracing as _is_tracing
from .. import export as _export

__all__ = ["compile", "reset", "allow_in_graph", "substitute_in_graph", "assume_constant_result", "list_backends",
           "disable", "set_stance", "cudagraph_mark_step_begin", "wrap_numpy", "is_compiling", "is_dynamo_compiling",
           "is_exporting", "nested_compile_region", "get_default_backend", "set_default_backend"]

_default_backend = ["inductor"]


def compile(*args, **kwargs):
    """torch.compiler.compile: the same as ``torchlike.compile``."""
    return _compile_pkg.compile(*args, **kwargs)


def is_compiling() -> bool:
    """True while torchlike.compile (or torchlike.export) traces the calling code."""
    return _is_tracing()


def is_dynamo_compiling() -> bool:
    """Like :func:`is_compiling` (torchlike's tracer plays dynamo's part)."""
    return _is_tracing()


def is_exporting() -> bool:
    """True while ``torchlike.export.export`` traces a module."""
    return bool(getattr(_export, "_exporting", False))


def reset() -> None:
    """Forget compiled programs (torchlike keeps them per compiled function, so there is nothing global)."""


def disable(fn=None, recursive=True, *, reason=None):
    """Mark ``fn`` as not to be compiled; torchlike traces it like any other Python code, which gives the
    same results (use it as a decorator or call it on a function)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper._torchdynamo_disable = True
    return wrapper


def allow_in_graph(fn):
    """Returns ``fn`` (torchlike traces through every Python function)."""
    return fn


def assume_constant_result(fn):
    """Returns ``fn``: its result is computed while tracing and becomes a constant of the program."""
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    """A decorator registering a traceable replacement of ``original_fn``; torchlike traces the original."""
    return lambda fn: fn


def wrap_numpy(fn):
    """Returns ``fn`` unchanged."""
    return fn


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Marks a region that may be compiled once and reused; torchlike inlines it (same results)."""
    return (lambda f: f) if fn is None else fn


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The backend names ``torchlike.compile`` accepts (all of them compile to one XLA program)."""
    return ["cudagraphs", "inductor", "openxla", "tvm"]


def get_default_backend():
    return _default_backend[0]


def set_default_backend(backend) -> None:
    _default_backend[0] = "inductor" if backend is None else backend


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Accepted for compatibility; returns a context manager that does nothing (torchlike always compiles)."""
    import contextlib
    if stance not in ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile",
                      "aot_eager_then_compile"):
        raise RuntimeError(f"invalid torch.compile stance '{stance}'")
    return contextlib.nullcontext()


def cudagraph_mark_step_begin():
    """No CUDA graphs in torchlike: nothing to mark."""
