"""``torch.overrides``: the ``__torch_function__`` protocol helpers and ``TorchFunctionMode``.

torchlike calls no ``__torch_function__`` of its own: a ``TorchFunctionMode`` can be entered and nested (the
mode stack is kept as in torch), but torchlike functions do not route through the active mode — see
docs/differences.md ("Libraries: Lightning, torchmetrics, accelerate").

>>> import torchlike as torch
>>> from torchlike.overrides import TorchFunctionMode, is_tensor_like
>>> is_tensor_like(torch.zeros(1)), is_tensor_like(1.0)
(True, False)
>>> with TorchFunctionMode() as mode:
...     torch.overrides._get_current_function_mode() is mode
True
"""
from __future__ import annotations

import warnings

from .autograd.extras import handle_torch_function, has_torch_function, is_tensor_like

__all__ = ["enable_reentrant_dispatch", "get_ignored_functions", "get_overridable_functions",
           "get_testing_overrides", "handle_torch_function", "has_torch_function", "is_tensor_like",
           "is_tensor_method_or_property", "resolve_name", "wrap_torch_function"]

_MODE_STACK: list = []


def _push_mode(mode):
    _MODE_STACK.append(mode)


def _pop_mode():
    return _MODE_STACK.pop()


def _get_current_function_mode():
    """The innermost active mode, or None."""
    return _MODE_STACK[-1] if _MODE_STACK else None


def _get_current_function_mode_stack():
    """The active modes, outermost first."""
    return list(_MODE_STACK)


class TorchFunctionMode:
    """A scope whose ``__torch_function__`` would see the torch functions called inside it (entered and stacked
    as in torch; torchlike's functions do not call it)."""

    inner: "TorchFunctionMode"

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function unchanged."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def get_ignored_functions():
    """The torch functions that cannot be overridden (none are tracked in torchlike)."""
    return set()


def get_overridable_functions():
    """{namespace: [functions]} that ``__torch_function__`` may override (empty in torchlike)."""
    return {}


def get_testing_overrides():
    """{function: dummy override} (empty in torchlike)."""
    return {}


def is_tensor_method_or_property(func) -> bool:
    """Whether ``func`` is a method or property of Tensor."""
    from .tensor import Tensor  # lazy: keeps this module free of the Tensor import at load
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func


def resolve_name(f):
    """The ``torch.``-qualified name of ``f`` ("torch.Tensor.add" style), or None."""
    mod, name = getattr(f, "__module__", None), getattr(f, "__qualname__", getattr(f, "__name__", None))
    if mod is None or name is None:
        return None
    return f"{mod.replace('torchlike', 'torch', 1)}.{name}"


def wrap_torch_function(dispatcher):
    """Decorator making a function dispatch through ``__torch_function__`` of its relevant arguments."""
    import functools

    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


class enable_reentrant_dispatch:
    """Context manager (a no-op in torchlike, which has no dispatch keys to re-enter)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
