"""autocast context manager/decorator (torch.amp.autocast / torch.autocast)."""
from __future__ import annotations

import functools
import threading

from .. import _dtype

__all__ = ["autocast", "is_autocast_available", "get_autocast_dtype", "custom_fwd", "custom_bwd"]


class _State(threading.local):
    def __init__(self):
        self.enabled = False
        self.dtype = None


_state = _State()


def is_autocast_available(device_type: str) -> bool:
    return device_type in ("cpu", "cuda")


def get_autocast_dtype(device_type="cpu"):
    return _state.dtype or (_dtype.bfloat16 if device_type == "cpu" else _dtype.float16)


class autocast:
    """Mixed precision region.  torchlike records the region and dtype; ops that opt in (matmul, linear,
    conv) cast their floating inputs to it.

    >>> import torchlike
    >>> with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
    ...     pass
    """

    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device_type = device_type
        self.fast_dtype = dtype if dtype is not None else (_dtype.bfloat16 if device_type == "cpu"
                                                           else _dtype.float16)
        self._enabled = enabled
        if device_type == "cuda":
            from .. import cuda
            if enabled and not cuda.is_available():
                import warnings
                warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
                self._enabled = False

    def __enter__(self):
        self.prev = (_state.enabled, _state.dtype)
        if self._enabled:
            _state.enabled, _state.dtype = True, self.fast_dtype
        return self

    def __exit__(self, *a):
        _state.enabled, _state.dtype = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_enabled():
    return _state.enabled


def custom_fwd(fwd=None, *, device_type="cuda", cast_inputs=None):
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type="cuda"):
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


def autocast_decorator(autocast_instance, func):
    """``func`` wrapped to run inside ``autocast_instance`` (what ``@autocast()`` applies).

    >>> import torchlike as torch
    >>> f = autocast_decorator(torch.autocast("cpu", enabled=False), lambda x: x + 1)
    >>> f(1)
    2
    """
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast
