"""torch.cuda's legacy type names (``torch.cuda.FloatTensor``, ``torch.cuda.LongStorage``, ...) and the small
queries scripts make of the CUDA runtime (``has_half``, ``is_tf32_supported``, ``device_of``, ...).

Older training scripts name the CUDA tensor types in type checks and in ``x.type(torch.cuda.FloatTensor)``;
they exist whether or not a GPU does, as in a CPU build of torch: an isinstance check is simply False for a
CPU tensor, and only making one without a GPU fails (torch's TypeError).

>>> import torchlike as torch
>>> isinstance(torch.ones(2), torch.cuda.FloatTensor), torch.cuda.FloatTensor.dtype
(False, torch.float32)
"""
from __future__ import annotations

import collections
import contextlib

from .. import _dtype, _layout
from .._device import _gpus
from .._storage import TypedStorage, _LEGACY_NAMES as _STORAGE_NAMES, _LegacyStorageMeta, _warn_typed_storage_removal
from .._tensor_casts import LEGACY
from ..tensor import Tensor
from ._runtime import _nvml, missing_binding, require_gpu

__all__ = ["TENSOR_TYPES", "STORAGE_TYPES", "has_half", "has_magma", "is_tf32_supported", "device_of",
           "set_stream", "memory_stats_as_nested_dict", "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_accumulated_host_memory_stats", "reset_peak_host_memory_stats",
           "get_per_process_memory_fraction", "current_blas_handle", "current_solver_handle", "memory_usage",
           "clock_rate", "power_draw", "device_memory_used"]

_TENSOR_NAMES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
                 "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor")


class _CudaTensorTypeMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.is_cuda

    def __repr__(cls):
        return f"<class 'torch.cuda.{cls.__name__}'>"


def _cuda_tensor_type(name, dt):
    def __new__(cls, *args, **kwargs):
        if not _gpus():
            raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled.")
        return Tensor.__new__(Tensor, *args, dtype=dt, device="cuda", **kwargs)

    return _CudaTensorTypeMeta(name, (), {"__new__": __new__, "dtype": dt, "is_cuda": True, "is_sparse": False,
                                          "layout": _layout.strided, "__module__": "torchlike.cuda",
                                          "__doc__": f"torch.cuda.{name}: the CUDA tensor type of {dt}."})


TENSOR_TYPES = {name: _cuda_tensor_type(name, LEGACY[name]) for name in _TENSOR_NAMES}


class _CudaLegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """The base of ``torch.cuda.FloatStorage`` & co.: calling one makes a CUDA TypedStorage of its dtype."""

    _device_type = "cuda"
    is_cuda = True

    def __new__(cls, *args, **kwargs):
        _warn_typed_storage_removal(stacklevel=2)
        require_gpu()
        return TypedStorage(*args, dtype=cls.dtype, device="cuda", _internal=True, **kwargs)


STORAGE_TYPES = {name: _LegacyStorageMeta(name, (_CudaLegacyStorage,), {"dtype": getattr(_dtype, dt),
                                                                     "__module__": "torchlike.cuda"})
                 for dt, name in _STORAGE_NAMES.items()}

has_half = True    # torch.cuda.has_half: half tensors exist (they do here on every device)
has_magma = False  # no MAGMA: linear algebra is XLA's


def is_tf32_supported() -> bool:
    """True when a GPU of compute capability 8.0 or newer is present (TF32 matmuls), as torch."""
    gpus = _gpus()
    if not gpus:
        return False
    cc = getattr(gpus[0], "compute_capability", None)
    try:
        return float(cc) >= 8.0
    except (TypeError, ValueError):
        return False


class device_of(contextlib.AbstractContextManager):
    """Context manager that makes the device of ``obj`` current (a no-op for a CPU tensor), as torch's."""

    def __init__(self, obj):
        self.idx = obj.get_device() if getattr(obj, "is_cuda", False) else -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def set_stream(stream):
    """Make ``stream`` current: XLA orders each device's work itself, so there is nothing to switch."""
    if stream is None:
        return


def memory_stats_as_nested_dict(device=None) -> dict:
    return {} if not _gpus() else {"allocated_bytes": {"all": {"current": 0}}}


def host_memory_stats():
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict() -> dict:
    return {}


def reset_accumulated_host_memory_stats() -> None:
    missing_binding("_cuda_resetAccumulatedHostMemoryStats")


def reset_peak_host_memory_stats() -> None:
    missing_binding("_cuda_resetPeakHostMemoryStats")


def get_per_process_memory_fraction(device=None) -> float:
    require_gpu()
    return 1.0


def current_blas_handle():
    require_gpu()
    raise RuntimeError("torchlike: cuBLAS handles belong to XLA and are not exposed")


def current_solver_handle():
    require_gpu()
    raise RuntimeError("torchlike: cuSOLVER handles belong to XLA and are not exposed")


def _nvml_query(call):
    def query(device=None) -> int:
        pynvml = _nvml()
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(device if isinstance(device, int) else 0)
        return call(pynvml, handle)
    return query


memory_usage = _nvml_query(lambda nv, h: nv.nvmlDeviceGetUtilizationRates(h).memory)
clock_rate = _nvml_query(lambda nv, h: nv.nvmlDeviceGetClockInfo(h, 1))
power_draw = _nvml_query(lambda nv, h: nv.nvmlDeviceGetPowerUsage(h))
device_memory_used = _nvml_query(lambda nv, h: nv.nvmlDeviceGetMemoryInfo(h).used)
