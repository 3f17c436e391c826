"""torch.accelerator over JAX's devices: the accelerator is JAX's GPU ('cuda') when there is one, else a
TPU or another non-CPU JAX backend under torch_xla's name ('xla'); with only a CPU there is none, and the
calls that need one raise torch's error.

>>> import torchlike
>>> acc = torchlike.accelerator.current_accelerator()
>>> acc is None or acc.type in ("cuda", "xla")
True
"""
from __future__ import annotations

import sys
import time
import types
import warnings

import jax

from . import _device_memory as _mem, cuda as _cuda
from ._device import _gpus, device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "synchronize", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "device_index", "current_stream",
           "set_stream", "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "Stream", "Event"]

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


# --- torch.Stream / torch.Event: the device-generic stream and event types ------------------------------------
# XLA orders the work on a device itself, so a stream is a name for "the device's queue" and waiting on one
# blocks on everything dispatched; libraries mostly name these types in annotations and isinstance checks.
def _stream_device(device):
    dev = _device(device) if device is not None else (current_accelerator() or _device("cpu"))
    if dev.type != "cpu" and dev.type != _accelerator()[0]:
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    return dev


_DEVICE_TYPE_CODES = {"cpu": 0, "cuda": 1, "xla": 9}  # c10::DeviceType, what torch's ``device_type`` holds


class Stream:
    """A device's work queue (``torch.Stream``).

    >>> import torchlike
    >>> s = torchlike.Stream(device="cpu")
    >>> s.device, s.query()
    (device(type='cpu'), True)
    """

    def __init__(self, device=None, *, priority: int = 0, **kwargs):
        dev = _stream_device(device)
        self._type = dev.type
        self.device_type = _DEVICE_TYPE_CODES[dev.type]
        self.device_index = -1 if dev.index is None else dev.index
        self.stream_id = 0

    @property
    def device(self):
        return _device(self._type, None if self.device_index < 0 else self.device_index)

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        jax.effects_barrier()

    def _events(self):
        if self._type == "cpu":
            raise RuntimeError("cpu backend doesn't support events.")

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        self._events()

    def record_event(self, event=None):
        self._events()
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def is_capturing(self) -> bool:
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device_type, self.device_index, self.stream_id) == (
            other.device_type, other.device_index, other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self._type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a device's queue (``torch.Event``); the CPU backend has none to record, as in torch.

    >>> import torchlike
    >>> torchlike.Event(device="cpu").query()
    True
    """

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False):
        self.device = _stream_device(device)
        self.event_id = 0
        self._timing = enable_timing
        self._time = None

    def _events(self):
        if self.device.type == "cpu":
            raise RuntimeError("cpu backend doesn't support events.")

    def record(self, stream=None) -> None:
        self._events()
        jax.effects_barrier()
        self._time = time.perf_counter()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        if self._time is not None:
            jax.effects_barrier()

    def wait(self, stream=None) -> None:
        pass

    def elapsed_time(self, end_event) -> float:
        if not (self._timing and end_event._timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        self._events()
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def __repr__(self):
        idx = -1 if self.device.index is None else self.device.index
        return (f"torch.Event device_type={self.device.type}, device_index={idx}, event_flag=0, "
                f"event_id={self.event_id}")


Stream.__module__ = Event.__module__ = "torch"


# torch.accelerator.memory: the same memory functions under their submodule path
memory = types.ModuleType(__name__ + ".memory", "torch.accelerator.memory: device memory figures (JAX's memory_stats).")
for _name in ("empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated", "max_memory_reserved",
              "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
              "reset_peak_memory_stats"):
    setattr(memory, _name, globals()[_name])
memory.__all__ = sorted(n for n in vars(memory) if not n.startswith("_"))
sys.modules[memory.__name__] = memory
