"""``torch.cuda.nvtx``: NVIDIA NVTX ranges. torchlike, like a CPU-only torch build, has no NVTX: each function
raises torch's RuntimeError.

>>> import torchlike
>>> try:
...     torchlike.cuda.nvtx.range_push("step")
... except RuntimeError as e:
...     print(e)
NVTX functions not installed. Are you sure you have a CUDA build?
"""
from __future__ import annotations

import contextlib

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _missing():
    raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


def range_push(msg):
    """Push a range onto the stack of nested ranges (no NVTX here: RuntimeError)."""
    _missing()


def range_pop():
    """Pop the innermost range (no NVTX here: RuntimeError)."""
    _missing()


def range_start(msg) -> int:
    """Start a range that may span threads (no NVTX here: RuntimeError)."""
    _missing()


def range_end(range_id) -> None:
    """End the range ``range_id`` started (no NVTX here: RuntimeError)."""
    _missing()


def mark(msg):
    """Mark an instantaneous event (no NVTX here: RuntimeError)."""
    _missing()


@contextlib.contextmanager
def range(msg, *args, **kwargs):  # noqa: A001 - torch's name
    """A context manager pushing ``msg.format(*args, **kwargs)`` for its body (no NVTX here: RuntimeError)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
