"""Python's operators on a Tensor (``a + b``, ``a == b``, ``1 - a``, ``~a``) as the op table installs them:
torch's NotImplemented rule for an operand its parser does not take, its descriptor errors for a non-Tensor
``self``, and which operators a TorchFunctionMode sees as functions of their own.

>>> import torchlike
>>> from torchlike._ops.tensor_operators import OWN_OPERATORS
>>> "__rsub__" in OWN_OPERATORS, "__add__" in OWN_OPERATORS
(True, False)
"""
from __future__ import annotations

import functools
import numbers
import types

import numpy as np

from .. import _torch_function
from ..tensor import Tensor

__all__ = ["BINARY_OPERATORS", "OWN_OPERATORS"]


# Python's binary operators on a Tensor: torch's bindings turn a TypeError from parsing the other operand into
# NotImplemented, so Python falls back to the other operand's reflected method and then to its own rule
# (``t == None`` is False, ``t + "a"`` raises "unsupported operand type(s) for +: 'Tensor' and 'str'").
BINARY_OPERATORS = frozenset(
    f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "div", "floordiv", "mod", "pow", "matmul", "and",
                              "or", "xor", "lshift", "rshift") for p in ("", "r", "i")) | frozenset(
    ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"))


def _operand(other):
    """Whether torch's parser takes ``other`` as an operator's second operand (a Tensor or a number)."""
    return isinstance(other, (Tensor, numbers.Number, np.bool_)) or hasattr(type(other), "__torch_function__")


# ``Tensor.<operator>(non_tensor, ...)`` called through the class: torch's C operators raise the descriptor error
# (``__itruediv__`` is C's ``__idiv__``); its Python ones in torch/_tensor.py return NotImplemented (rsub, pow,
# ipow, rmatmul); the rest compute or fail as their op does
_DESCRIPTOR_MISUSE = {n: n for n in (
    f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "div", "mod", "matmul", "and", "or", "xor", "lshift",
                              "rshift", "floordiv") for p in ("", "r", "i"))
    if n not in ("__rsub__", "__rtruediv__", "__rdiv__", "__floordiv__", "__rfloordiv__", "__rmod__", "__rmatmul__",
                 "__rlshift__", "__rrshift__", "__imatmul__")}
_DESCRIPTOR_MISUSE.update({n: n for n in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")},
                          __itruediv__="__idiv__", __rsub__=None, __pow__=None, __ipow__=None, __rmatmul__=None)


_NO_CHECK = object()

# the operators whose extra positional argument torch's add/sub parse as the legacy ``alpha``
# (``t.__iadd__(2, 5)`` is ``t.add_(2, 5)``); the others' is a TypeError, so NotImplemented
_LEGACY_ALPHA = {"__radd__": "add", "__iadd__": "add_", "__isub__": "sub_"}


def _misused(torch_name, self):
    if torch_name is None:
        return NotImplemented
    raise TypeError(f"descriptor '{torch_name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                    f"'{type(self).__name__}' object")


# The operators torch binds as functions of their own: a TorchFunctionMode or ``__torch_function__`` sees
# ``Tensor.__eq__``, ``Tensor.__rsub__``, ``Tensor.__and__`` ... as ``func``; the others pass on their op's
# method (``a + b`` is seen as ``Tensor.add``)
OWN_OPERATORS = frozenset(("__eq__", "__rsub__", "__rdiv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
                           "__rmod__", "__rpow__", "__rmatmul__", "__invert__") + tuple(
    f"__{p}{op}__" for op in ("and", "or", "xor") for p in ("", "i")) + tuple(
    f"__{p}{op}__" for op in ("lshift", "rshift") for p in ("", "r", "i")))


def _operator(fn, name):
    """``fn`` as the Tensor operator ``name``: NotImplemented where the other operand is not one torch takes
    (its error, raised on the failure path only, is then Python's); nothing runs on the success path but the
    call."""
    eq_takes_arrays = name == "__eq__"
    misuse = _DESCRIPTOR_MISUSE.get(name, _NO_CHECK)

    def operator(self, other, *more):
        if misuse is not _NO_CHECK and not isinstance(self, Tensor):  # ``Tensor.__sub__(2, t)``: see _DESCRIPTOR_MISUSE
            return _misused(misuse, self)
        if more:  # ``pow(t, 2, 5)``, ``t.__add__(2, 5)``: torch's op with the extra arguments (add/sub take
            try:  # a legacy alpha), its TypeError NotImplemented, so Python raises its own "unsupported operand"
                legacy = _LEGACY_ALPHA.get(name)
                return getattr(self, legacy)(other, *more) if legacy else fn(self, other, *more)
            except TypeError:
                return NotImplemented
        try:
            return fn(self, other)
        except (TypeError, ValueError, NotImplementedError, RuntimeError):
            if _torch_function.retry_with_overrides((self, other), None):
                return operator(self, other)  # ``fn`` now dispatches, as when the protocol was on before
            if _operand(other):
                raise
            if eq_takes_arrays and type(other) is np.ndarray and other.dtype.kind in "biuf":
                # (torch's ``==`` takes a numpy array; its other operators don't)
                return fn(self, Tensor._from_host(np.array(other), self._dev))
        return NotImplemented
    functools.update_wrapper(operator, fn)
    operator.__name__, operator.__qualname__ = name, f"Tensor.{name}"
    if name not in OWN_OPERATORS:
        operator.__torch_function_transparent__ = True  # ``fn`` dispatches __torch_function__ (as func=``fn``)
    return operator


def _own_function(fn):
    """A function object of its own with ``fn``'s code, for a unary operator torch binds separately
    (``Tensor.__invert__`` is not ``Tensor.bitwise_not``): the protocol passes it, under its own name, as
    ``func``."""
    own = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    own.__kwdefaults__, own.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    own.__dict__.update(fn.__dict__)
    return own
