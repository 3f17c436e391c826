"""torch.overrides: the ``__torch_function__`` protocol helpers libraries call.

torchlike's own ops do not dispatch ``__torch_function__`` (docs/differences.md); these helpers do what
torch's do for code that checks and dispatches by itself (``if has_torch_function(args): return
handle_torch_function(f, args, ...)``); a ``TorchFunctionMode`` is entered and stacked as in torch but
intercepts nothing.

>>> import torchlike
>>> from torchlike.overrides import has_torch_function, is_tensor_like
>>> has_torch_function((torchlike.ones(1),)), is_tensor_like(torchlike.ones(1)), is_tensor_like(3)
(False, True, False)
"""
from __future__ import annotations

import collections
import contextlib
import functools
import types
import warnings

import torchlike  # layer 7: written on the finished facade, which loads this module on first use
from .autograd.extras import handle_torch_function, has_torch_function, is_tensor_like
from .tensor import Tensor
from . import _torch_function as _tf
from ._torch_function import has_torch_function_unary, has_torch_function_variadic  # noqa: F401 (torch's names)

__all__ = ["enable_reentrant_dispatch", "get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
           "handle_torch_function", "has_torch_function", "is_tensor_like", "is_tensor_method_or_property",
           "resolve_name", "wrap_torch_function"]  # torch's list (the modes and the _unary/_variadic helpers are
# public names outside it, as in torch)


def is_tensor_method_or_property(func):
    """True for functions found on ``torch.Tensor`` (methods and properties), not for ``torch.*`` functions."""
    name = getattr(func, "__name__", None)
    return isinstance(func, types.FunctionType) and name is not None and getattr(Tensor, name, None) is func \
        or isinstance(func, property) and any(v is func for v in vars(Tensor).values()) \
        or getattr(func, "__qualname__", "").startswith("Tensor.")


def resolve_name(f):
    """torch's dotted name of ``f`` (``torch.add``, ``torch.Tensor.add``), or None."""
    if isinstance(f, property):
        for k, v in vars(Tensor).items():
            if v is f:
                return f"torch.Tensor.{k}"
        return None
    qual = getattr(f, "__qualname__", None)
    if qual and qual.startswith("Tensor."):
        return f"torch.{qual}"
    name = getattr(f, "__name__", None)
    if name is None:
        return None
    if getattr(Tensor, name, None) is f:
        return f"torch.Tensor.{name}"
    for prefix, ns in (("torch", torchlike), ("torch.nn.functional", torchlike.nn.functional),
                       ("torch.linalg", torchlike.linalg), ("torch.fft", torchlike.fft),
                       ("torch.special", torchlike.special)):
        if getattr(ns, name, None) is f:
            return f"{prefix}.{name}"
    return None


def get_ignored_functions():
    """Public functions that cannot be overridden by ``__torch_function__`` (creation and global state)."""
    return {getattr(torchlike, n) for n in sorted(_tf.IGNORED_TORCH_NAMES) if callable(getattr(torchlike, n, None))}


def get_default_nowrap_functions():
    """Tensor attributes whose results torch never wraps in the subclass (``Tensor.grad.__get__``, ...)."""
    return _tf.default_nowrap_functions()


def get_overridable_functions():
    """namespace -> the public functions of it that ``__torch_function__`` can override."""
    ignored = get_ignored_functions()
    out = collections.defaultdict(list)
    for ns in (torchlike, torchlike.nn.functional, torchlike.linalg, torchlike.fft, torchlike.special, Tensor):
        for k in dir(ns):
            if k.startswith("_"):
                continue
            v = getattr(ns, k, None)
            if callable(v) and not isinstance(v, type) and v not in ignored:
                out[ns].append(v)
    return out


def get_testing_overrides():
    """Every overridable function -> a dummy with the same signature that returns -1."""
    out = {}
    for funcs in get_overridable_functions().values():
        for f in funcs:
            out[f] = lambda *args, **kwargs: -1
    return out


def wrap_torch_function(dispatcher):
    """Decorator: ``func`` checks ``dispatcher(*args, **kwargs)``'s values for ``__torch_function__``."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


def _push_mode(mode):
    _tf.enable()  # (a mode sees every torch function and Tensor method: they dispatch from now on)
    _tf._MODES.append(mode)


def _pop_mode():
    return _tf._MODES.pop()


def _get_current_function_mode():
    """The innermost active mode, or None."""
    return _tf._MODES[-1] if _tf._MODES else None


def _get_current_function_mode_stack():
    """The active modes, outermost first."""
    return list(_tf._MODES)


def _is_torch_function_mode_enabled():
    """Whether a TorchFunctionMode is active (and the protocol not disabled)."""
    return bool(_tf._MODES) and not _tf._state.all_off


class TorchFunctionMode:
    """A ``__torch_function__`` mode: while it is entered, every torch function, Tensor method and property
    read calls its ``__torch_function__(func, types, args, kwargs)`` first (with the mode itself popped, so the
    ``func(*args, **kwargs)`` it calls runs normally), as in torch.

    >>> import torchlike
    >>> from torchlike.overrides import TorchFunctionMode
    >>> class Count(TorchFunctionMode):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.names = []
    ...     def __torch_function__(self, func, types, args=(), kwargs=None):
    ...         self.names.append(func.__name__)
    ...         return func(*args, **(kwargs or {}))
    >>> with Count() as m:
    ...     y = torchlike.exp(torchlike.ones(2)).sum()
    >>> m.names
    ['exp', 'sum']
    """
    inner = None

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode whose ``__torch_function__`` calls the function unchanged."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Nothing to enable in torchlike (no dispatcher modes)."""
    yield
