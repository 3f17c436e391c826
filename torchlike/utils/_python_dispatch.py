"""torch.utils._python_dispatch: ``TorchDispatchMode`` and the dispatch-mode stack.

Inside ``with Mode():`` every torchlike op that reaches the dispatcher calls
``Mode().__torch_dispatch__(func, types, args, kwargs)`` with ``func`` the ``torch.ops.aten`` overload torch
runs for that call (``aten.addmm.default`` for a 2-D ``nn.Linear``, after ``aten.t.default`` of its weight) and
``args``/``kwargs`` as aten takes them (``torchlike/utils/_aten_calls.py`` says how each op is shown).
``func(*args, **kwargs)`` runs the op with the mode popped, so ops inside ``__torch_dispatch__`` go to the next
mode down, as in torch. With no mode active the dispatcher pays nothing extra (the flag it already reads for
the profiler). Tensor subclasses with their own ``__torch_dispatch__`` (``Tensor._make_wrapper_subclass``) see the
ops on their instances after the modes (``_subclass_dispatch``).

>>> import torchlike
>>> from torchlike.utils._python_dispatch import TorchDispatchMode
>>> class Log(TorchDispatchMode):
...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
...         print(func)
...         return func(*args, **(kwargs or {}))
>>> with Log():
...     y = torchlike.nn.functional.relu(torchlike.ones(2) * 2)
aten.mul.Tensor
aten.relu.default
"""
from __future__ import annotations

import contextlib

from .. import _profiler_state as _prof
from ..tensor import Tensor
from . import _aten_backward, _aten_backward_kernels, _aten_calls, _aten_optim, _subclass_dispatch

__all__ = ["TorchDispatchMode", "BaseTorchDispatchMode", "is_traceable_wrapper_subclass",
           "is_traceable_wrapper_subclass_type", "is_in_torch_dispatch_mode", "any_torch_dispatch_mode_on_stack",
           "_get_current_dispatch_mode", "_get_current_dispatch_mode_stack", "_push_mode", "_pop_mode",
           "_pop_mode_temporarily", "_disable_current_modes", "_len_torch_dispatch_stack"]

_STACK = _prof.MODES


class TorchDispatchMode:
    """Base class of dispatch modes: override ``__torch_dispatch__(self, func, types, args=(), kwargs=None)``;
    ``with mode:`` pushes it on the mode stack (modes nest; the innermost sees each op first)."""

    supports_higher_order_operators = False

    def __init__(self, _dispatch_key=None):
        if _dispatch_key is not None:
            self.__dict__["_dispatch_key"] = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return cls.is_infra_mode()


class BaseTorchDispatchMode(TorchDispatchMode):
    """A mode that runs every op unchanged."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _get_current_dispatch_mode():
    """The innermost active mode, or None."""
    return _STACK[-1] if _STACK else None


def _get_current_dispatch_mode_stack():
    """The active modes, outermost first."""
    return list(_STACK)


def _len_torch_dispatch_stack():
    return len(_STACK)


def is_in_torch_dispatch_mode(include_infra_modes=True) -> bool:
    return bool(_STACK)


def any_torch_dispatch_mode_on_stack(*, include_infra_modes=True, include_ignore_compile_internals=False) -> bool:
    return bool(_STACK)


def _push_mode(mode):
    _STACK.append(mode)
    _prof.modes_changed()


def _pop_mode(k=None):
    if not _STACK:
        raise AssertionError("Trying to pop from an empty mode stack")
    mode = _STACK.pop()
    _prof.modes_changed()
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    old = _pop_mode(k)
    try:
        yield old
    finally:
        _push_mode(old)


@contextlib.contextmanager
def _disable_current_modes():
    old = [_pop_mode() for _ in range(len(_STACK))]
    try:
        yield old
    finally:
        for mode in reversed(old):
            _push_mode(mode)


def is_traceable_wrapper_subclass(t) -> bool:
    """Whether ``t`` is an instance of a Tensor subclass that defines ``__tensor_flatten__`` and
    ``__tensor_unflatten__`` (torch's test)."""
    return is_traceable_wrapper_subclass_type(type(t))


def is_traceable_wrapper_subclass_type(t) -> bool:
    return (isinstance(t, type) and issubclass(t, Tensor) and t is not Tensor and hasattr(t, "__tensor_flatten__")
            and hasattr(t, "__tensor_unflatten__"))


def _call_mode(func, args, kwargs, run=None):
    """``func(*args, **kwargs)`` as the innermost mode handles it, that mode popped meanwhile; ``run`` (when
    given) is what calling ``func`` inside ``__torch_dispatch__`` runs: torchlike's own op for this call."""
    from_mode = _STACK[-1]
    # torch lists the argument types that define __torch_dispatch__: none of torchlike's own
    types = tuple(dict.fromkeys(type(a) for a in _aten_calls.tensors_in(args, kwargs)
                                if getattr(type(a), "__torch_dispatch__", None) is not None))
    with _pop_mode_temporarily():
        if run is not None:
            _aten_calls.PENDING.append((func, run))
        try:
            out = from_mode.__torch_dispatch__(func, types, tuple(args), dict(kwargs))
        finally:
            if run is not None:
                _aten_calls.PENDING.pop()
    if out is NotImplemented:
        raise RuntimeError(f"Multiple dispatch failed for '{func.name()}'; all __torch_dispatch__ handlers "
                           f"returned NotImplemented:\n\n  - mode object {from_mode!r}")
    return out


_aten_calls.install(_call_mode)
_aten_backward.install()
_aten_backward_kernels.install()
_aten_optim.install()
_subclass_dispatch.install()
