"""Top-level names that library code built on torch uses for shape checks and symbolic sizes.

torch's ``SymInt``/``SymFloat``/``SymBool`` stand for sizes traced symbolically; torchlike's sizes are
always concrete Python numbers, so ``sym_*`` helpers compute on plain values and the ``_check*`` family
raises torch's errors when a condition fails.  Also: math constants (``torch.inf``, ``torch.pi``, ...),
``get_device_module``.

>>> import torchlike
>>> torchlike.sym_max(2, 3), torchlike.sym_float(2), torchlike.inf
(3, 2.0, inf)
>>> torchlike._check(1 + 1 == 2)
"""
from __future__ import annotations

import builtins
import math

from . import _device
from ._layout import _mkldnn, jagged, layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from .tensor import Tensor
from ._memory_format import contiguous_format
from ._creation import tensor

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_not", "sym_max", "sym_min", "sym_ite",
           "sym_sum", "sym_sqrt", "_assert", "_check", "_check_with", "_check_is_size", "_check_index", "_check_value",
           "_check_type", "_check_not_implemented", "_check_tensor_all", "_check_tensor_all_with", "_assert_async",
           "_shape_as_tensor",
           "inf", "nan", "pi", "e", "newaxis", "layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc",
           "sparse_bsr", "sparse_bsc", "jagged", "_mkldnn", "legacy_contiguous_format",
           "get_device_module"]

inf, nan, pi, e = math.inf, math.nan, math.pi, math.e
newaxis = None


class SymInt:
    """A symbolic integer (torchlike's sizes are plain ints: ``isinstance(n, SymInt)`` is False)."""

    def __init__(self, node):
        self.node = node


class SymFloat:
    """A symbolic float (never produced by torchlike)."""

    def __init__(self, node):
        self.node = node


class SymBool:
    """A symbolic bool (never produced by torchlike)."""

    def __init__(self, node):
        self.node = node


def sym_int(a):
    """``int(a)`` rounding toward zero, as torch.sym_int."""
    return a if isinstance(a, builtins.int) else math.trunc(a)


def sym_float(a):
    return builtins.float(a)


def sym_not(a):
    return not a


def sym_max(a, b):
    """``max(a, b)``; a float if either argument is one (as torch.sym_max)."""
    r = builtins.max(a, b)
    return builtins.float(r) if isinstance(a, builtins.float) or isinstance(b, builtins.float) else r


def sym_min(a, b):
    r = builtins.min(a, b)
    return builtins.float(r) if isinstance(a, builtins.float) or isinstance(b, builtins.float) else r


def sym_ite(b, t, f):
    return t if b else f


def sym_sum(args):
    return builtins.sum(args)


def sym_sqrt(a):
    return math.sqrt(a)


_DEFAULT_MSG = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
                "report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message=None):
    """Raise ``error_type(message())`` unless ``cond`` holds."""
    if not isinstance(cond, (builtins.bool, SymBool)) and not hasattr(cond, "__bool__"):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    raise error_type(_DEFAULT_MSG if message is None else message())


def _check(cond, message=None):
    """Raise RuntimeError unless ``cond`` holds (``message`` is a callable returning the text)."""
    _check_with(RuntimeError, cond, message)


def _assert(condition, message):
    """``assert condition, message`` (torch's scriptable assert, used by model code such as torchvision's ViT)."""
    assert condition, message


def _check_is_size(i, message=None, *, max=None):  # noqa: A002 - torch's name
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(error_type, cond, message=None):
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if not cond.dtype.name == "bool":
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _assert_async(tensor, assert_msg=None):
    """Raise RuntimeError unless one-element ``tensor`` is nonzero (torch checks on the device, later; here now).

    >>> import torchlike
    >>> torchlike._assert_async(torchlike.tensor(True))
    """
    n = tensor.numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} is "
                           "ambiguous")
    if not tensor.item():
        raise RuntimeError(assert_msg if assert_msg is not None
                           else "Expected Tensor with single nonzero value, but got zero")


def _shape_as_tensor(input):
    """``input``'s shape as an int64 tensor.

    >>> import torchlike
    >>> torchlike._shape_as_tensor(torchlike.ones(2, 3))
    tensor([2, 3])
    """
    return tensor(list(input.shape))


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)


def _legacy_contiguous_format():
    return contiguous_format


legacy_contiguous_format = _legacy_contiguous_format()


def get_device_module(device=None):
    """The module of a device type: ``torchlike.cuda`` for ``"cuda"``, ``torchlike.cpu`` for ``"cpu"``."""
    import importlib
    if device is None:
        name = _device.get_default_device().type
    elif isinstance(device, str):
        name = _device.device(device).type
    else:
        name = device.type
    try:
        return importlib.import_module(f"torchlike.{name}")
    except ModuleNotFoundError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.") \
            from None
