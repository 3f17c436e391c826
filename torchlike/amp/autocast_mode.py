"""autocast context manager/decorator (torch.amp.autocast / torch.autocast) and custom_fwd/custom_bwd.

Ops opt into casting through the policies in ``torchlike._autocast`` (torch's per-op lists).
"""
from __future__ import annotations

import functools
import warnings

from .. import _dtype
from .._errors import torch_warn
from .._autocast import clear_cache, state as _state
from ..tensor import Tensor
from .._device import device as _device_type
from .._device import _gpus  # (torch.cuda.is_available(): JAX sees a GPU)

__all__ = ["autocast", "is_autocast_available", "get_autocast_dtype", "custom_fwd", "custom_bwd",
           "is_autocast_enabled", "set_autocast_enabled", "set_autocast_dtype", "clear_autocast_cache",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled"]

_DEFAULT = {"cpu": "bfloat16", "cuda": "float16", "xla": "bfloat16", "tpu": "bfloat16", "hpu": "bfloat16"}


def is_autocast_available(device_type: str) -> bool:
    return device_type in ("cpu", "cuda", "xla")


def get_autocast_dtype(device_type="cpu"):
    """The dtype autocast casts to on ``device_type`` (torch.get_autocast_dtype)."""
    d = _state.dtype.get(device_type)
    if d is None and device_type not in _DEFAULT:
        _device_type(device_type)  # (not a device type: c10's parser error, as torch's)
    return d if d is not None else getattr(_dtype, _DEFAULT.get(device_type, "float16"))


def is_autocast_enabled(device_type="cuda"):
    """Whether autocast is on for ``device_type`` (torch.is_autocast_enabled; its default is 'cuda')."""
    return bool(_state.enabled.get(device_type))


def _refresh():
    _state.on = any(_state.enabled.values())


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:  # torch's legacy one-argument form sets 'cuda'
        device_type, enabled = "cuda", device_type
    _state.enabled[device_type] = bool(enabled)
    _refresh()


def set_autocast_dtype(device_type, dtype):
    _state.dtype[device_type] = dtype


def clear_autocast_cache():
    clear_cache()


def is_autocast_cache_enabled():
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    _state.cache_enabled = bool(enabled)


class autocast:
    """Mixed-precision region: ops on torch's lower-precision list (matmul, linear, conv, SDPA, ...) run in
    ``dtype``; ops on its float32 list (losses, prod, cdist, FFTs, ...) run in float32; others follow their
    inputs.  Gradients flow back to each tensor in its own dtype.

    >>> import torchlike
    >>> lin = torchlike.nn.Linear(4, 2)
    >>> with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
    ...     y = lin(torchlike.ones(3, 4))
    >>> y.dtype
    torch.bfloat16
    """

    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.device_type = device_type
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        self._enabled = bool(enabled)
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else bool(cache_enabled)
        if device_type == "cuda":
            if enabled and not _gpus():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                self._enabled = False
        elif device_type == "cpu" and self._enabled and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.", stacklevel=2)
            self._enabled = False

    def __enter__(self):
        d = self.device
        self.prev = (_state.enabled.get(d, False), _state.dtype.get(d), _state.cache_enabled)
        _state.enabled[d] = self._enabled
        _state.dtype[d] = self.fast_dtype
        _state.cache_enabled = self._cache_enabled
        _state.depth += 1
        _refresh()
        return self

    def __exit__(self, *a):
        d = self.device
        _state.depth -= 1
        if _state.depth == 0:
            clear_cache()
        _state.enabled[d], _state.dtype[d], _state.cache_enabled = self.prev
        _refresh()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapper


def is_enabled():
    return _state.on


def _cast(value, device_type, dtype):
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.dtype is not _dtype.float64 and value.device.type == device_type:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device_type, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate an ``autograd.Function.forward``: with ``cast_inputs``, inside an enabled autocast region its
    floating inputs are cast to ``cast_inputs`` and it runs with autocast off; ``custom_bwd`` then runs the
    backward under the forward's autocast state.

    >>> import torchlike
    >>> class Mul2(torchlike.autograd.Function):
    ...     @staticmethod
    ...     @torchlike.amp.custom_fwd(device_type="cpu", cast_inputs=torchlike.float32)
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     @torchlike.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> with torchlike.autocast("cpu"):
    ...     Mul2.apply(torchlike.ones(2, dtype=torchlike.bfloat16)).dtype
    torch.float32
    """
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        on = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = on
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(ctx, *_cast(args[1:], device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate an ``autograd.Function.backward`` to run under the autocast state of its forward."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)
    return decorate_bwd


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


# ---- torch's older per-device spellings (torch.is_autocast_cpu_enabled() & co.), kept by torch with a warning --
_LEGACY_DEVICES = {"cpu": "cpu", "gpu": "cuda", "xla": "xla", "ipu": "ipu"}


# where torch's C++ gives each deprecation (torch/csrc/autograd/init.cpp), the note its warning ends with
_INIT_CPP_LINES = {"is_autocast_cpu_enabled": 883, "set_autocast_cpu_enabled": 874, "get_autocast_cpu_dtype": 1016,
                   "set_autocast_cpu_dtype": 967, "get_autocast_gpu_dtype": 1007, "set_autocast_gpu_dtype": 952,
                   "is_autocast_xla_enabled": 935, "set_autocast_xla_enabled": 926, "get_autocast_xla_dtype": 1034,
                   "set_autocast_xla_dtype": 997, "is_autocast_ipu_enabled": 909, "set_autocast_ipu_enabled": 900,
                   "get_autocast_ipu_dtype": 1025, "set_autocast_ipu_dtype": 982}


def _deprecated(old, new):
    line = _INIT_CPP_LINES[old.split("(")[0]]
    old = old if old.endswith(")") else old + "()"
    torch_warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", f"torch/csrc/autograd/init.cpp:{line}",
               category=DeprecationWarning)


def _legacy_functions():
    out = {}
    for short, dev in _LEGACY_DEVICES.items():
        def is_enabled(dev=dev, short=short):
            _deprecated(f"is_autocast_{short}_enabled", f"is_autocast_enabled('{dev}')")
            return is_autocast_enabled(dev)

        def set_enabled(enabled, dev=dev, short=short):
            _deprecated(f"set_autocast_{short}_enabled(enabled)", f"set_autocast_enabled('{dev}', enabled)")
            set_autocast_enabled(dev, enabled)

        def get_dtype(dev=dev, short=short):
            _deprecated(f"get_autocast_{short}_dtype", f"get_autocast_dtype('{dev}')")
            return get_autocast_dtype(dev)

        def set_dtype(dtype, dev=dev, short=short):
            _deprecated(f"set_autocast_{short}_dtype(dtype)", f"set_autocast_dtype('{dev}', dtype)")
            set_autocast_dtype(dev, dtype)

        fns = {f"get_autocast_{short}_dtype": get_dtype, f"set_autocast_{short}_dtype": set_dtype}
        if short != "gpu":  # (torch's 'gpu' spelling has only the dtype pair; is_autocast_enabled() is cuda's)
            fns.update({f"is_autocast_{short}_enabled": is_enabled, f"set_autocast_{short}_enabled": set_enabled})
        for name, fn in fns.items():
            fn.__name__ = fn.__qualname__ = name
            fn.__module__ = "torchlike"
            fn.__doc__ = f"torch.{name}: the per-device form of the ``torch.*autocast*`` functions ('{dev}')."
            out[name] = fn
    return out


LEGACY_FUNCTIONS = _legacy_functions()


def autocast_increment_nesting() -> int:
    """Enter one more autocast level by hand; returns the new depth (``autocast`` itself counts here)."""
    _state.depth += 1
    return _state.depth


def autocast_decrement_nesting() -> int:
    """Leave one autocast level by hand; returns the new depth (the cast cache is cleared at 0)."""
    _state.depth -= 1
    if _state.depth == 0:
        clear_cache()
    return _state.depth


for _f in (autocast_increment_nesting, autocast_decrement_nesting):
    _f.__module__ = "torchlike"  # torch's home for them is torch itself
del _f
