"""torchlike.cuda: 'cuda' devices are JAX's GPU devices.

>>> import torchlike
>>> isinstance(torchlike.cuda.is_available(), bool)
True
"""
from __future__ import annotations

import contextlib

from .._device import _gpus, device as _device
from . import amp  # noqa: F401
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing, make_graphed_callables  # noqa

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "manual_seed",
           "manual_seed_all", "is_bf16_supported", "get_device_name", "empty_cache", "memory_allocated",
           "max_memory_allocated", "reset_peak_memory_stats", "amp", "device", "Stream", "Event", "stream",
           "current_stream", "get_device_capability", "get_rng_state", "set_rng_state", "is_initialized", "init"]

_current = [0]


def is_available() -> bool:
    """True when JAX sees at least one GPU."""
    return bool(_gpus())


def device_count() -> int:
    return len(_gpus())


def current_device() -> int:
    return _current[0]


def set_device(d) -> None:
    _current[0] = d if isinstance(d, int) else (_device(d).index or 0)


def is_initialized() -> bool:
    return is_available()


def init() -> None:
    return None


def synchronize(device=None) -> None:
    """Wait for all queued GPU work (JAX dispatch is asynchronous)."""
    import jax
    for d in _gpus():
        jax.device_put(0, d).block_until_ready()


def manual_seed(seed) -> None:
    """Seeds the shared generator (torchlike uses one generator for every device)."""
    from .._random import manual_seed as _ms
    _ms(seed)


manual_seed_all = manual_seed


def get_rng_state(device="cuda"):
    from .._random import get_rng_state as g
    return g()


def set_rng_state(state, device="cuda"):
    from .._random import set_rng_state as s
    s(state)


def is_bf16_supported(including_emulation=True) -> bool:
    return is_available()


def get_device_name(device=None) -> str:
    gpus = _gpus()
    if not gpus:
        raise AssertionError("Torch not compiled with CUDA enabled")
    return gpus[0].device_kind


def get_device_capability(device=None):
    return (8, 0) if is_available() else (0, 0)


def empty_cache() -> None:
    return None


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_allocated
memory_reserved = memory_allocated
max_memory_reserved = memory_allocated


def reset_peak_memory_stats(device=None) -> None:
    return None


class device(contextlib.ContextDecorator):
    """Context manager selecting the current CUDA device."""

    def __init__(self, d):
        self.idx = d if isinstance(d, int) else (_device(d).index or 0) if d is not None else 0

    def __enter__(self):
        self.prev = _current[0]
        _current[0] = self.idx

    def __exit__(self, *a):
        _current[0] = self.prev


class Stream:
    def __init__(self, device=None, priority=0, **kw):
        pass

    def synchronize(self):
        synchronize()

    def wait_stream(self, other):
        pass


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        import time
        self._time = time
        self.t = None

    def record(self, stream=None):
        self.t = self._time.perf_counter()

    def synchronize(self):
        synchronize()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


@contextlib.contextmanager
def stream(s):
    yield


def current_stream(device=None):
    return Stream()


class StreamContext:
    """``with torch.cuda.StreamContext(stream):`` selects a stream; XLA orders work itself."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def reset_max_memory_allocated(device=None) -> None:
    return None


default_generators = ()  # per-GPU generators: torchlike's RNG is one global generator


default_stream = current_stream
