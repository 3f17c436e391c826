"""The rest of torch.jit's public API as it behaves in eager mode (no TorchScript compiler here): type
refinement (``jit.isinstance``), ``Attribute``, decorators and context managers that only configure the
TorchScript fuser, and the warning/error classes.

>>> import torchlike
>>> from typing import Dict, List
>>> torchlike.jit.isinstance({"a": [1, 2]}, Dict[str, List[int]])
True
>>> torchlike.jit.Attribute(0, int)
Attribute(value=0, type=<class 'int'>)
"""
from __future__ import annotations

import collections
import contextlib
import inspect
import typing
import warnings

from .._C import ScriptFunction

__all__ = ["Attribute", "isinstance", "interface", "script_if_tracing", "script_method", "optimized_execution",
           "fuser", "strict_fusion", "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
           "TracerWarning", "ScriptWarning", "TracingCheckError", "ScriptFunction"]

Attribute = collections.namedtuple("Attribute", ["value", "type"])
Attribute.__module__ = "torchlike.jit"

_builtin_isinstance = isinstance


def _matches(obj, kind):
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is None:
        if kind is None or kind is type(None):
            return obj is None
        return _builtin_isinstance(obj, kind)
    if origin is typing.Union:
        return any(_matches(obj, a) for a in args)
    if origin in (list, collections.abc.Sequence) and not _builtin_isinstance(obj, str):
        return _builtin_isinstance(obj, list) and all(_matches(x, args[0]) for x in obj) if args else \
            _builtin_isinstance(obj, list)
    if origin is dict:
        return _builtin_isinstance(obj, dict) and (not args or all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items()))
    if origin is tuple:
        if not _builtin_isinstance(obj, tuple):
            return False
        if not args:
            return True
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(x, args[0]) for x in obj)
        return len(obj) == len(args) and all(_matches(x, a) for x, a in zip(obj, args))
    return _builtin_isinstance(obj, origin)


def isinstance(obj, target_type):  # noqa: A001 (torch.jit.isinstance)
    """Whether ``obj`` is of the (possibly generic: ``List[int]``, ``Dict[str, Tensor]``, ``Optional[T]``)
    type ``target_type``, element types included; an empty container cannot show its element type (warned)."""
    if typing.get_origin(target_type) is None and not _builtin_isinstance(target_type, (type, tuple)) \
            and target_type is not None and target_type is not typing.Any:  # (Any: typing's own TypeError)
        raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")
    if typing.get_origin(target_type) in (list, dict, tuple) and _builtin_isinstance(obj, (list, dict, tuple)) \
            and len(obj) == 0:
        warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance in eager mode. For "
                      "example, List[int] would become list and therefore falsely return True for List[float] or "
                      "List[str].", stacklevel=2)
    return _matches(obj, target_type)


def interface(obj):
    """A TorchScript interface declaration: the class itself in eager mode."""
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    return obj


def script_if_tracing(fn):
    """``fn`` itself: torchlike's ``trace`` runs Python, so there is nothing to script while tracing."""
    return fn


def script_method(fn):
    """A ScriptModule method marker: the method itself."""
    return fn


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """TorchScript's graph-executor optimization switch: no effect here."""
    yield


_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    """Select a TorchScript fuser for the block: checked as torch checks it, no effect here."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # (torch's type)
    yield


class strict_fusion:
    """TorchScript's "everything here must fuse" marker: no effect in eager mode."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]


def set_fusion_strategy(strategy):
    """Set TorchScript's fusion specialization strategy; returns the previous one (recorded, no effect)."""
    previous = _fusion_strategy[0]
    _fusion_strategy[0] = list(strategy)
    return previous


_onednn = [False]


def enable_onednn_fusion(enabled):
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn[0]


class TracerWarning(Warning):
    """Warned by ``torch.jit.trace`` about constructs a trace cannot capture."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


class ScriptWarning(Warning):
    """Warned by TorchScript compilation."""


class TracingCheckError(Exception):
    """A traced function's check against the eager function failed."""

    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        for head, part in (("ERROR: Graphs differed across invocations!", graph_diff_error),
                           ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This often "
                            "indicates that the tracer has encountered untraceable code.", tensor_compare_error)):
            if part is not None:
                self.message += head + "\n" + "".join(f"\t{line}\n" for line in part.split("\n"))
        super().__init__(self.message)

