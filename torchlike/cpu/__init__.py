"""torchlike.cpu: the CPU device module (torch.cpu), what ``torchlike.get_device_module("cpu")`` returns.

>>> import torchlike
>>> torchlike.cpu.is_available(), torchlike.cpu.device_count(), torchlike.cpu.current_device()
(True, 1, 'cpu')
"""
from __future__ import annotations

import contextlib

from . import amp  # noqa: F401  (torch.cpu.amp: legacy autocast / GradScaler)

__all__ = ["is_available", "is_initialized", "device_count", "current_device", "set_device", "synchronize",
           "current_stream", "stream", "Stream", "Event", "StreamContext", "amp"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """Accepted (there is one CPU device)."""


def synchronize(device=None) -> None:
    """Wait for queued CPU work: XLA runs asynchronously, so block on everything dispatched."""
    import jax
    jax.effects_barrier()


class Stream:
    """The (single) CPU stream."""

    def __init__(self, priority: int = -1):
        pass

    def wait_stream(self, stream) -> None:
        pass

    def synchronize(self) -> None:
        synchronize()


class Event:
    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_stream = Stream()


def current_stream(device=None) -> Stream:
    return _stream


StreamContext = contextlib.nullcontext


def stream(stream) -> contextlib.AbstractContextManager:
    return contextlib.nullcontext()
