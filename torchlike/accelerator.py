"""torch.accelerator: the current accelerator is JAX's GPU when there is one."""
from __future__ import annotations

from . import cuda as _cuda
from ._device import device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "synchronize", "current_device_index",
           "set_device_index"]


def is_available() -> bool:
    return _cuda.is_available()


def current_accelerator(check_available=False):
    return _device("cuda") if _cuda.is_available() else None


def device_count() -> int:
    return _cuda.device_count()


def synchronize(device=None) -> None:
    _cuda.synchronize()


def current_device_index() -> int:
    return _cuda.current_device()


def set_device_index(idx) -> None:
    _cuda.set_device(idx)
