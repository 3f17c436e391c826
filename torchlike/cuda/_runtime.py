"""The rest of torch.cuda's runtime surface (RNG seeding, allocator knobs, NVML queries, debug modes), and what
each does on a machine without a GPU: exactly what a CPU-only torch build does there — most functions fail
with its "Torch not compiled with CUDA enabled" AssertionError, some with the AttributeError of the missing
``torch._C._cuda_*`` binding, a few quietly return (seeding is queued until CUDA initializes, which it never
does). With a GPU they act on JAX's GPU devices where that has a meaning and are no-ops where XLA owns it.

>>> import torchlike
>>> torchlike.cuda.get_arch_list() if not torchlike.cuda.is_available() else []
[]
"""
from __future__ import annotations

from .. import _random
from .._device import _gpus

__all__ = ["seed", "seed_all", "initial_seed", "ipc_collect", "get_arch_list", "get_gencode_flags",
           "set_per_process_memory_fraction", "reset_accumulated_memory_stats", "memory_snapshot",
           "list_gpu_processes", "utilization", "temperature",
           "caching_allocator_alloc", "caching_allocator_delete", "can_device_access_peer", "set_sync_debug_mode",
           "get_sync_debug_mode", "require_gpu", "missing_binding"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_NO_NVML = "nvidia-ml-py does not seem to be installed or it can't be imported."


def require_gpu():
    """torch's lazy CUDA initialization: without a GPU, its AssertionError."""
    if not _gpus():
        raise AssertionError(_NOT_COMPILED)


def missing_binding(name):
    """A CPU-only torch build lacks the ``torch._C._cuda_*`` binding a function calls."""
    if not _gpus():
        raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


def seed() -> None:
    """Seeds the generator from a random number (queued until CUDA initializes, as in torch)."""
    if _gpus():
        _random.seed()


seed_all = seed


def initial_seed() -> int:
    require_gpu()
    return _random.initial_seed()


def ipc_collect() -> None:
    require_gpu()


def get_arch_list() -> list:
    return ["sm_" + "".join(d.compute_capability.split(".")) for d in _gpus()
            if getattr(d, "compute_capability", None)]


def get_gencode_flags() -> str:
    return " ".join(f"-gencode compute=compute_{a[3:]},code={a}" for a in get_arch_list())


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """XLA fixes its GPU memory pool at start-up (``XLA_PYTHON_CLIENT_MEM_FRACTION``): accepted, not applied."""
    require_gpu()
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")


def reset_accumulated_memory_stats(device=None) -> None:
    missing_binding("_cuda_resetAccumulatedMemoryStats")


def memory_snapshot(mempool_id=None):
    missing_binding("_cuda_memorySnapshot")
    return {"segments": [], "device_traces": []}


def list_gpu_processes(device=None) -> str:
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    return "no processes are running"


def _nvml():
    try:
        import pynvml
    except ModuleNotFoundError:
        raise ModuleNotFoundError(_NO_NVML) from None
    return pynvml


def utilization(device=None) -> int:
    pynvml = _nvml()
    pynvml.nvmlInit()
    return pynvml.nvmlDeviceGetUtilizationRates(pynvml.nvmlDeviceGetHandleByIndex(device or 0)).gpu


def temperature(device=None) -> int:
    pynvml = _nvml()
    pynvml.nvmlInit()
    return pynvml.nvmlDeviceGetTemperature(pynvml.nvmlDeviceGetHandleByIndex(device or 0), 0)


def caching_allocator_alloc(size, device=None, stream=None):
    require_gpu()
    raise RuntimeError("torchlike: raw allocations from XLA's GPU allocator are not supported")


def caching_allocator_delete(mem_ptr) -> None:
    require_gpu()


def can_device_access_peer(device, peer_device) -> bool:
    require_gpu()
    return len(_gpus()) > max(int(device), int(peer_device))


_SYNC_DEBUG = [0]


def set_sync_debug_mode(debug_mode) -> None:
    require_gpu()
    _SYNC_DEBUG[0] = {"default": 0, "warn": 1, "error": 2}.get(debug_mode, debug_mode)


def get_sync_debug_mode() -> int:
    require_gpu()
    return _SYNC_DEBUG[0]
