"""torch.backends.cuda flags, and the scaled-dot-product-attention backend switches.

torchlike has one SDPA implementation, so the switches only record the choice (read back by
``flash_sdp_enabled()`` & co., set by ``torch.nn.attention.sdpa_kernel`` and the deprecated ``sdp_kernel``).

>>> import torchlike
>>> with torchlike.nn.attention.sdpa_kernel(torchlike.nn.attention.SDPBackend.MATH):
...     torchlike.backends.cuda.flash_sdp_enabled(), torchlike.backends.cuda.math_sdp_enabled()
(False, True)
"""
import contextlib
import functools
import warnings

from ... import _global_settings
from ..._pybind_enum import PybindEnum

__all__ = ["is_built", "matmul", "SDPBackend", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp",
           "is_flash_attention_available", "can_use_flash_attention", "can_use_efficient_attention",
           "can_use_cudnn_attention", "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed",
           "sdp_kernel", "cuBLASModule", "preferred_linalg_library", "preferred_blas_library"]

def _strict_bool(value, setter):
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value


def _reduction_setting(value, attr):
    """torch's ``cuBLASModule._parse_reduction_setting``: a bool, or (allow_reduced_precision[, allow_splitk])."""
    if isinstance(value, bool):
        return value, True
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{attr} expects a bool or a tuple/list of bools, but got {type(value)!r}")
    if not value:
        raise TypeError(f"{attr} expects at least one boolean argument")
    if len(value) > 2:
        raise TypeError(f"{attr} expects at most two boolean arguments")
    for v, which in zip(value, ("allow_reduced_precision", "allow_splitk")):
        if not isinstance(v, bool):
            raise TypeError(f"{attr} expects a bool for {which}, but got {type(v)!r}")
    return value[0], value[1] if len(value) == 2 else True


_FP32_FROM_PRECISION = {"tf32": "high", "ieee": "highest", "none": "highest"}


class cuBLASModule:
    """``torch.backends.cuda.matmul``: cuBLAS flags. ``allow_tf32`` and ``fp32_precision`` are views of
    ``torch.set_float32_matmul_precision`` (True/"tf32" unless it is "highest"), as torch keeps them one setting;
    a misspelt flag raises instead of being stored. TF32 here is XLA's default precision for float32
    products (``_global_settings.matmul_precision``); the other flags change nothing in torchlike's arithmetic."""
    _reductions = {"fp16": (True, True), "bf16": (True, True)}
    _fp16_accumulation = [False]

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _global_settings.get_float32_matmul_precision() != "highest"
        if name == "fp32_precision":
            return _global_settings._cuda_matmul_fp32[0]
        if name == "allow_fp16_accumulation":
            return self._fp16_accumulation[0]
        for kind in self._reductions:
            if name == f"allow_{kind}_reduced_precision_reduction":
                return self._reductions[kind][0]
            if name == f"allow_{kind}_reduced_precision_reduction_split_k":
                return self._reductions[kind][1]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _global_settings.set_float32_matmul_precision(
                "high" if _strict_bool(value, "set_allow_tf32_cublas") else "highest")
        elif name == "fp32_precision":
            if value not in _FP32_FROM_PRECISION:
                raise RuntimeError(f"backend 'cuda' does not support precision '{value}'" if value == "bf16"
                                   else f"Unknown precision: {value}")
            _global_settings._set_prec(_FP32_FROM_PRECISION[value])
            _global_settings._cuda_matmul_fp32[0] = value
        elif name == "allow_fp16_accumulation":
            self._fp16_accumulation[0] = _strict_bool(value, "set_allow_fp16_accumulation_cublas")
        elif name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
            self._reductions[name[6:10]] = _reduction_setting(value, name)
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


class SDPBackend(PybindEnum):
    """The scaled-dot-product-attention backends torch knows (torchlike runs them all the same way)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# torch's flag names, in the order torch lists the enabled backends (nn.attention._backend_names)
_BACKEND_NAMES = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                  "mem_efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH,
                  "overrideable": SDPBackend.OVERRIDEABLE}
_sdp = dict.fromkeys(_BACKEND_NAMES, True)
_priority = [1, 2, 0, 3, 4]
_math_reduction = [False]


def is_built() -> bool:
    return False


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = bool(enabled)


def is_flash_attention_available() -> bool:
    """False: no CUDA flash-attention kernels here (as torch's CPU build)."""
    return False


def can_use_flash_attention(params, debug: bool = False) -> bool:
    return False


def can_use_efficient_attention(params, debug: bool = False) -> bool:
    return False


def can_use_cudnn_attention(params, debug: bool = False) -> bool:
    return False


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    _math_reduction[0] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _math_reduction[0]


def current_backends(with_priority=False):
    """The enabled SDPA backends (torch's ``_cur_sdpa_kernel_backends``)."""
    backends = [b for name, b in _BACKEND_NAMES.items() if _sdp[name]]
    return sorted(backends, key=lambda b: _priority.index(int(b))) if with_priority else backends


def set_backends(backends, set_priority=False):
    """Enable exactly ``backends`` (torch's ``_sdpa_kernel``), optionally in that priority order."""
    for name, b in _BACKEND_NAMES.items():
        _sdp[name] = b in backends
    if set_priority:
        order = [int(b) for b in backends]
        _priority[:] = order + [p for p in _priority if p not in order]


def _deprecated_context(message):
    # the warning comes from the call contextlib makes (contextlib.py ``self.gen = func(...)``), as with
    # torch's @contextmanager over typing_extensions.deprecated
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            warnings.warn(message, FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)
        return contextlib.contextmanager(inner)
    return wrap


@_deprecated_context("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                     "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                     "updated signature.")
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """Temporarily enable only the chosen SDPA backends (deprecated for ``torch.nn.attention.sdpa_kernel``)."""
    chosen = [b for on, b in [(enable_flash, SDPBackend.FLASH_ATTENTION),
                              (enable_mem_efficient, SDPBackend.EFFICIENT_ATTENTION),
                              (enable_math, SDPBackend.MATH), (enable_cudnn, SDPBackend.CUDNN_ATTENTION)] if on]
    previous = current_backends()
    set_backends(chosen)
    try:
        yield {}
    finally:
        set_backends(previous)


class _LinalgBackend(PybindEnum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(PybindEnum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


_preferred = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas}


def _prefer(kind, enum, backend):
    if backend is None:
        pass
    elif isinstance(backend, str):
        names = ({"default": enum.Default, "cusolver": enum.Cusolver, "magma": enum.Magma} if kind == "linalg" else
                 {"default": enum.Default, "cublas": enum.Cublas, "hipblas": enum.Cublas, "cublaslt": enum.Cublaslt,
                  "hipblaslt": enum.Cublaslt, "ck": enum.Ck})
        if backend not in names:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}.")
        _preferred[kind] = names[backend]
    elif isinstance(backend, enum):
        _preferred[kind] = backend
    else:
        raise RuntimeError("Unknown input value type.")
    return _preferred[kind]


def preferred_linalg_library(backend=None):
    """The preferred CUDA linear algebra library (recorded only: torchlike has none)."""
    return _prefer("linalg", _LinalgBackend, backend)


def preferred_blas_library(backend=None):
    """The preferred CUDA BLAS library (recorded only: torchlike has none)."""
    return _prefer("blas", _BlasBackend, backend)
