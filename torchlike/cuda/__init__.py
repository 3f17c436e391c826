"""torchlike.cuda: 'cuda' devices are JAX's GPU devices.

>>> import torchlike
>>> isinstance(torchlike.cuda.is_available(), bool)
True
"""
from __future__ import annotations

import contextlib
import warnings

from .. import _device_memory as _mem, _random
from .._device import _gpus, device as _device
from .._errors import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)
from . import amp, nvtx  # noqa: F401
from .graphs import CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing, make_graphed_callables  # noqa
from ._runtime import (  # noqa: F401 - torch.cuda's names
    caching_allocator_alloc, caching_allocator_delete, can_device_access_peer, get_arch_list, get_gencode_flags,
    get_sync_debug_mode, initial_seed, ipc_collect, list_gpu_processes, memory_snapshot, missing_binding,
    require_gpu, reset_accumulated_memory_stats, seed, seed_all, set_per_process_memory_fraction,
    set_sync_debug_mode, temperature, utilization)
from ._legacy_types import (  # noqa: F401 - torch.cuda's names
    STORAGE_TYPES as _STORAGE_TYPES, TENSOR_TYPES as _TENSOR_TYPES, clock_rate, current_blas_handle,
    current_solver_handle, device_memory_used, device_of, get_per_process_memory_fraction, has_half, has_magma,
    host_memory_stats, host_memory_stats_as_nested_dict, is_tf32_supported, memory_stats_as_nested_dict,
    memory_usage, power_draw, reset_accumulated_host_memory_stats,
    reset_peak_host_memory_stats, set_stream)

__all__ = ["is_available", "device_count", "current_device", "set_device", "synchronize", "manual_seed",
           "manual_seed_all", "is_bf16_supported", "get_device_name", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats", "mem_get_info",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "amp", "device", "Stream", "Event", "ExternalStream", "stream",
           "current_stream", "get_device_capability", "get_device_properties", "get_rng_state", "set_rng_state", "is_initialized", "init",
           "get_rng_state_all", "set_rng_state_all", "seed", "seed_all", "initial_seed", "ipc_collect", "get_arch_list",
           "get_gencode_flags", "memory_summary", "set_per_process_memory_fraction", "reset_accumulated_memory_stats",
           "memory_snapshot", "list_gpu_processes", "utilization", "temperature", "memory_cached", "max_memory_cached",
           "caching_allocator_alloc", "caching_allocator_delete", "can_device_access_peer", "set_sync_debug_mode",
           "get_sync_debug_mode", "nvtx", "_is_compiled", "device_of", "set_stream", "has_half", "has_magma",
           "is_tf32_supported", "memory_stats_as_nested_dict", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats", "reset_max_memory_cached",
           "get_per_process_memory_fraction", "current_blas_handle", "current_solver_handle", "memory_usage",
           "clock_rate", "power_draw", "device_memory_used", *_TENSOR_TYPES, *_STORAGE_TYPES]

globals().update(_TENSOR_TYPES)   # torch.cuda.FloatTensor, ... (legacy CUDA tensor types)
globals().update(_STORAGE_TYPES)  # torch.cuda.FloatStorage, ...
_current = [0]


def is_available() -> bool:
    """True when JAX sees at least one GPU."""
    return bool(_gpus())


def device_count() -> int:
    return len(_gpus())


def current_device() -> int:
    require_gpu()
    return _current[0]


def set_device(d) -> None:
    i = d if isinstance(d, int) else (_device(d).index or 0)
    if i >= 0:
        missing_binding("_cuda_setDevice")
        _current[0] = i


def is_initialized() -> bool:
    return is_available()


def init() -> None:
    require_gpu()


def __getattr__(name):
    # torch.cuda._initialized: the flag libraries read before saving CUDA RNG state (reversible layers,
    # checkpointing); JAX's GPU client is ready once a GPU exists, so it reads as is_initialized()
    if name == "_initialized":
        return is_initialized()
    raise AttributeError(f"module 'torch.cuda' has no attribute '{name}'")


def _gpu(device=None):
    gpus = _gpus()
    if not gpus:   # (this package's _gpus: tests stand a fake GPU in for it)
        raise AssertionError("Torch not compiled with CUDA enabled")
    if device is None:
        i = _current[0]
    elif isinstance(device, int):
        i = device
    else:
        i = _device(device).index or 0
    if not 0 <= i < len(gpus):
        raise RuntimeError("CUDA error: invalid device ordinal")
    return gpus[i]


def synchronize(device=None) -> None:
    """Wait for all queued GPU work (JAX dispatch is asynchronous)."""
    _mem.synchronize(_gpu(device))


def manual_seed(seed) -> None:
    """Seeds the shared generator (torchlike uses one generator for every device). Without a GPU torch queues
    the call until CUDA initializes, which it never does, so the CPU generator's stream is left as it is."""
    if _gpus():
        _random.manual_seed(seed)


manual_seed_all = manual_seed


def get_rng_state(device="cuda"):
    require_gpu()
    return _random.get_rng_state()


def set_rng_state(state, device="cuda"):
    """Sets the generator state (without a GPU torch queues the call until CUDA initializes: nothing happens)."""
    if _gpus():
        _random.set_rng_state(state)


def get_rng_state_all():
    """One generator state per GPU (``[]`` without one, as in torch)."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    """Sets each GPU's generator state from ``new_states`` (what :func:`get_rng_state_all` returned)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def _is_compiled() -> bool:
    """Whether CUDA is built in: here, whether JAX has a GPU backend."""
    return bool(_gpus())


def is_bf16_supported(including_emulation=True) -> bool:
    return is_available()


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None):
    """(major, minor) compute capability of the GPU (JAX's ``device.compute_capability``)."""
    p = get_device_properties(device)
    return p.major, p.minor


class _CudaDeviceProperties:
    """What ``get_device_properties`` returns (torch's ``_CudaDeviceProperties`` fields JAX can fill)."""

    def __init__(self, dev):
        cc = str(getattr(dev, "compute_capability", "0.0") or "0.0").split(".")
        self.name = dev.device_kind
        self.major, self.minor = int(cc[0]), int(cc[1]) if len(cc) > 1 else 0
        self.total_memory = int(_mem.stats(dev).get("bytes_limit", 0))
        self.multi_processor_count = int(getattr(dev, "core_count", 0) or 0)
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """Name, compute capability, memory and SM count of a GPU, from its JAX device.

    >>> import torchlike
    >>> torchlike.cuda.get_device_properties(0).name if torchlike.cuda.is_available() else "no GPU"
    'no GPU'
    """
    return _CudaDeviceProperties(_gpu(device))


def empty_cache() -> None:
    """Nothing to free: XLA's allocator returns memory when arrays die."""
    return None


def memory_allocated(device=None) -> int:
    """Bytes of device memory in use by arrays (JAX's ``memory_stats()``; 0 without a GPU, as in torch)."""
    return _mem.allocated(_gpu(device)) if _gpus() else 0


def max_memory_allocated(device=None) -> int:
    """Peak bytes in use since the start or the last ``reset_peak_memory_stats``."""
    return _mem.peak(_gpu(device)) if _gpus() else 0


def memory_reserved(device=None) -> int:
    return _mem.reserved(_gpu(device)) if _gpus() else 0


max_memory_reserved = max_memory_allocated


def memory_stats(device=None):
    """torch's statistics keys for what JAX reports (empty without a GPU, as in torch)."""
    import collections
    return _mem.stats(_gpu(device)) if _gpus() else collections.OrderedDict()


def mem_get_info(device=None):
    """(free, total) bytes of the GPU."""
    return _mem.mem_info(_gpu(device))


def memory_summary(device=None, abbreviated=False) -> str:
    if not _gpus():
        raise KeyError("allocated_bytes.all.current")
    return (f"|  allocated: {memory_allocated(device)} bytes  |  reserved: {memory_reserved(device)} bytes  |\n"
            "(XLA's allocator: torch's per-pool statistics are not available)")


def memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    missing_binding("_cuda_resetPeakMemoryStats")
    _mem.reset_peak(_gpu(device))


def reset_max_memory_cached(device=None) -> None:
    """Deprecated: ``reset_peak_memory_stats`` (torch warns the same way)."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


class device(contextlib.ContextDecorator):
    """Context manager selecting the current CUDA device."""

    def __init__(self, d):
        self.idx = d if isinstance(d, int) else (_device(d).index or 0) if d is not None else 0

    def __enter__(self):
        self.prev = _current[0]
        if self.idx < 0:  # (torch: a negative index selects nothing)
            return
        if not _gpus():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        _current[0] = self.idx

    def __exit__(self, *a):
        _current[0] = self.prev


class Stream:
    """A CUDA stream: JAX orders each device's work in one queue, so streams only select the device."""

    def __init__(self, device=None, priority=0, **kw):
        if not _gpus():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.device = _device("cuda", _gpus().index(_gpu(device)))
        self.priority = priority

    def synchronize(self):
        synchronize(self.device)

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def query(self):
        return True


class Event:
    """A CUDA event: ``record`` waits for the queued work, then stamps the time (ms in ``elapsed_time``)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if not _gpus():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self.enable_timing = enable_timing
        self.t = None

    def record(self, stream=None):
        import time
        synchronize(stream.device if stream is not None else None)
        self.t = time.perf_counter()

    def synchronize(self):
        synchronize()

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, end):
        if not self.enable_timing or self.t is None or end.t is None:
            raise RuntimeError("Both events must be recorded with enable_timing=True before elapsed_time")
        return (end.t - self.t) * 1e3


def stream(s):
    """``with torch.cuda.stream(s):`` (a StreamContext)."""
    return StreamContext(s)


def current_stream(device=None):
    require_gpu()
    return Stream(device)


class StreamContext:
    """``with torch.cuda.StreamContext(stream):`` selects a stream; XLA orders work itself."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def reset_max_memory_allocated(device=None) -> None:
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


default_generators = ()  # per-GPU generators: torchlike's RNG is one global generator


default_stream = current_stream

from . import memory, random, streams  # noqa: E402,F401 - torch.cuda.random/.memory/.streams (they import this package)
from .streams import ExternalStream  # noqa: E402
