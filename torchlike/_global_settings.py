"""Process-wide settings torch scripts flip (threads, determinism, float32 matmul precision, warn-always, the default
tensor type), the legacy tensor constructors (``torch.FloatTensor`` ...) and a small tensor query
(``typename_of``; ``is_same_size`` is an op table entry).  ``torch.autocast`` is ``torchlike.amp.autocast`` (the facade imports it)."""
from __future__ import annotations


from . import _dtype, _jit_cache
from ._errors import torch_warn
from ._legacy import LEGACY, make_legacy_constructor

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_default_tensor_type", "set_warn_always",
           "is_warn_always_enabled", "typename_of",
           "is_deterministic_algorithms_warn_only_enabled", "get_deterministic_debug_mode",
           "set_deterministic_debug_mode"] + list(LEGACY)

_threads = [2]
_det = [False]
_prec = ["highest"]
# torch.backends.cuda.matmul.fp32_precision: "none" until a script sets a precision, then what the legacy
# setting (the line above) means for cuBLAS, "tf32" or "ieee"
_cuda_matmul_fp32 = ["none"]


def get_num_threads() -> int:
    return _threads[0]


def _thread_count(name, n):
    """torch's checks of a thread count: an int (not a bool), positive."""
    if type(n) is not int:
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def set_num_threads(n: int) -> None:
    """Accepted (XLA manages its own thread pool)."""
    _threads[0] = _thread_count("set_num_threads", n)


def set_num_interop_threads(n: int) -> None:
    """Accepted (XLA manages its own thread pool)."""
    _threads[0] = _thread_count("set_num_interop_threads", n)


get_num_interop_threads = get_num_threads


_det_warn_only = [False]


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    _det[0] = bool(mode)
    _det_warn_only[0] = bool(warn_only)


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True, warn_only=True)`` is in effect."""
    return _det_warn_only[0]


def get_deterministic_debug_mode() -> int:
    """0 (deterministic algorithms off), 1 (on, warn only) or 2 (on)."""
    return 0 if not _det[0] else 1 if _det_warn_only[0] else 2


def set_deterministic_debug_mode(debug_mode) -> None:
    """``"default"``/0, ``"warn"``/1 or ``"error"``/2, as :func:`use_deterministic_algorithms`."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = modes[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def are_deterministic_algorithms_enabled() -> bool:
    return _det[0]


def set_float32_matmul_precision(precision: str) -> None:
    """float32 matrix products at full precision ("highest", torch's default) or faster ("high"/"medium":
    TF32 on a GPU, XLA's default precision; the CPU computes in full float32 either way).  Programs compiled
    under the previous setting are dropped, so eager ops pick the new one up."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):  # (torch's warning: the call has no effect)
        torch_warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                   f"setFloat32MatmulPrecision call has no effect.", "aten/src/ATen/Context.cpp:458")
        return
    _set_prec(precision)
    _cuda_matmul_fp32[0] = "ieee" if precision == "highest" else "tf32"


def _set_prec(precision):
    changed = (_prec[0] == "highest") != (precision == "highest")
    _prec[0] = precision
    if changed:
        _mm_prec[0] = None
        _jit_cache.clear_caches()  # the eager programs traced with the old precision


_mm_prec = [None]


def matmul_precision():
    """The ``precision`` of float matrix products (read while a program is traced): JAX's HIGHEST under
    torch's default "highest", else its DEFAULT (TF32 for float32 on a GPU)."""
    p = _mm_prec[0]
    if p is None:
        from jax import lax
        p = _mm_prec[0] = lax.Precision.HIGHEST if _prec[0] == "highest" else lax.Precision.DEFAULT
    return p


def get_float32_matmul_precision() -> str:
    return _prec[0]


def set_default_tensor_type(t):
    """Deprecated: set the default dtype from a legacy tensor type (``torch.DoubleTensor``)."""
    torch_warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
               "torch/csrc/tensor/python_tensor.cpp:434", once=True)
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    _dtype.set_default_dtype(LEGACY[name.split(".")[-1]])


_warn_always = [False]


def set_warn_always(b: bool) -> None:
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    return _warn_always[0]


def typename_of(x):
    return x.type()


for _name, _dt in LEGACY.items():
    globals()[_name] = make_legacy_constructor(_name, _dt)
