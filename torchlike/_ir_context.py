"""One MLIR context per thread for JAX's lowerings, instead of a new one per program.

JAX lowers every jitted program into a fresh MLIR context (``jax._src.interpreters.mlir.make_ir_context``),
which loads and registers its dialects each time: ~4-6 ms per program on this project's CPUs.  Eager torchlike
compiles one program per op and shape, so a small training script lowers hundreds of them
(tests/programs/ex_d2l_cnn.py: 732); with the persistent compilation cache warm, making contexts was a quarter
of the script's CPU time.  Reusing one context per thread (MLIR contexts are not thread-safe) measured there:
13.3-14.1 s -> 10.3-10.4 s of CPU, identical output; resident memory over 200 new shapes of a 4-op step grew
40 MB instead of 205 MB (each retained context keeps its own uniqued types and attributes).

A context keeps every type and attribute it ever uniqued (constants included) for as long as it lives, so a
thread's context is replaced by a fresh one after ``_LOWERINGS_PER_CONTEXT`` lowerings: memory stays bounded in a
long run, and the old context is freed once the last module lowered in it (held by JAX's caches) goes.

``TORCHLIKE_SHARED_IR_CONTEXT=0`` keeps JAX's own behaviour.

>>> import torchlike
>>> from torchlike import _ir_context
>>> _ir_context.installed() in (True, False)
True
"""
from __future__ import annotations

import os
import threading

__all__ = ["install", "installed"]

_LOWERINGS_PER_CONTEXT = 512

_tls = threading.local()
_original = None


def _per_thread():
    ctx = getattr(_tls, "ctx", None)
    uses = getattr(_tls, "uses", 0)
    if ctx is None or uses >= _LOWERINGS_PER_CONTEXT:
        ctx = _tls.ctx = _original()
        uses = 0
    _tls.uses = uses + 1
    return ctx


def install():
    """Make JAX's lowerings reuse one MLIR context per thread (unless ``TORCHLIKE_SHARED_IR_CONTEXT=0``, or
    this JAX has no ``make_ir_context`` to wrap)."""
    global _original
    if _original is not None or os.environ.get("TORCHLIKE_SHARED_IR_CONTEXT", "1") == "0":
        return
    try:
        from jax._src.interpreters import mlir
    except ImportError:  # (another JAX layout: its own behaviour)
        return
    make = getattr(mlir, "make_ir_context", None)
    if make is None:
        return
    _original = make
    mlir.make_ir_context = _per_thread


def installed():
    return _original is not None
