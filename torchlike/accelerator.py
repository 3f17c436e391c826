"""torch.accelerator over JAX's devices: the accelerator is JAX's GPU ('cuda') when there is one, else a
TPU or another non-CPU JAX backend under torch_xla's name ('xla'); with only a CPU there is none, and the
calls that need one raise torch's error.

>>> import torchlike
>>> acc = torchlike.accelerator.current_accelerator()
>>> acc is None or acc.type in ("cuda", "xla")
True
"""
from __future__ import annotations

import warnings

import jax

from . import _device_memory as _mem, cuda as _cuda
from ._device import _gpus, device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "synchronize", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "device_index", "current_stream",
           "set_stream", "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]

_current = [0]
_NONE = "Cannot access accelerator device when none is available."


def _accelerator():
    """(torch device type, JAX devices) of the accelerator, or (None, [])."""
    gpus = _gpus()
    if gpus:
        return "cuda", gpus
    devs = jax.devices()
    if devs and devs[0].platform != "cpu":
        return "xla", devs
    return None, []


def _jax_device(device=None):
    kind, devs = _accelerator()
    if kind is None:
        raise RuntimeError(_NONE)
    if device is None:
        i = _current[0]
    elif isinstance(device, int):
        i = device
    else:
        d = _device(device)
        if d.type != kind:
            raise ValueError(f"{d.type} doesn't match the current accelerator {kind}.")
        i = d.index if d.index is not None else _current[0]
    if not 0 <= i < len(devs):
        raise RuntimeError(f"device index {i} is out of range: {len(devs)} {kind} device(s)")
    return devs[i]


def is_available() -> bool:
    """True when JAX has a GPU, TPU or another non-CPU device."""
    return _accelerator()[0] is not None


def current_accelerator(check_available=False):
    """``device('cuda')`` with a GPU, ``device('xla')`` with a TPU (torch_xla's name), else None."""
    kind = _accelerator()[0]
    return _device(kind) if kind is not None else None


def device_count() -> int:
    return len(_accelerator()[1])


def synchronize(device=None) -> None:
    """Wait for the work queued on the accelerator."""
    _mem.synchronize(_jax_device(device))


def current_device_index() -> int:
    _jax_device()
    return _current[0]


def set_device_index(device) -> None:
    _jax_device(device)
    _current[0] = device if isinstance(device, int) else (_device(device).index or 0)


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:
    """``with torch.accelerator.device_index(i):`` selects accelerator ``i`` inside (None: no change)."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        self.prev = _current[0]
        if self.idx is not None:
            set_device_index(self.idx)

    def __exit__(self, *exc):
        _current[0] = self.prev
        return False


def current_stream(device=None, /):
    _jax_device(device)
    if _accelerator()[0] == "cuda":
        return _cuda.Stream(device)
    raise RuntimeError("streams are not available on the xla accelerator")


def set_stream(stream) -> None:
    _jax_device()


def empty_cache() -> None:
    _jax_device()


def empty_host_cache() -> None:
    _jax_device()


def get_device_capability(device=None, /):
    d = _jax_device(device)
    return {"device_kind": d.device_kind, "supported_dtypes": None}


def get_memory_info(device_index=None, /):
    return _mem.mem_info(_jax_device(device_index))


def memory_allocated(device_index=None, /) -> int:
    return _mem.allocated(_jax_device(device_index))


def max_memory_allocated(device_index=None, /) -> int:
    return _mem.peak(_jax_device(device_index))


def memory_reserved(device_index=None, /) -> int:
    return _mem.reserved(_jax_device(device_index))


max_memory_reserved = max_memory_allocated


def memory_stats(device_index=None, /):
    return _mem.stats(_jax_device(device_index))


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _jax_device(device_index)


def reset_peak_memory_stats(device_index=None, /) -> None:
    _mem.reset_peak(_jax_device(device_index))
