"""How ``torch.tensor(data)`` reads Python data: the numpy array and torch dtype of nested lists/tuples of
numbers, bools, tensors, numpy arrays and scalars and other sequences (``_infer_np``), with torch's errors for
ragged or un-inferable data. Used by _creation (tensor, as_tensor, from_numpy).

>>> import torchlike
>>> torchlike.tensor([[1, 2.5], [True, 3]]).dtype
torch.float32
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _dtype
from ._errors import torch_warn
from .tensor import Tensor

__all__ = ["_infer_np"]

_PLAIN = frozenset((bool, int, float))
_NOT_SEQUENCES = (list, tuple, str, bytes, dict, Tensor, np.ndarray, np.generic, numbers.Number)


def _scalar(t):
    """A tensor element's number: a one-element tensor of one or more dimensions goes through float() as in
    torch (its warning for a floating tensor requiring grad); a 0-dim one through item()."""
    return t._python_scalar(t.dtype.is_floating_point or t.dtype.is_complex) if t.ndim else t.item()


def _infer_np(data, wide=False):
    """numpy array + torch dtype for Python/numpy data, with torch's inference rules.

    ``wide``: keep Python floats at double precision in the array (the caller casts to an explicit dtype,
    so ``tensor(0.1, dtype=float64)`` is not rounded through float32 first)."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.asarray(data)
        if arr.dtype.kind in "USOMm":
            raise TypeError(f"can't convert np.ndarray of type numpy.{arr.dtype.type.__name__}. The only supported "
                            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
                            "int8, uint64, uint32, uint16, uint8, and bool.")
        return arr, _dtype.from_np(arr.dtype)
    if isinstance(data, Tensor):
        h = data._host_array()
        return (np.asarray(data._value) if h is None else h), data.dtype
    if _other_sequence(data):
        data = list(data)
    if type(data) is list and data:  # a flat list of plain Python numbers (a text's token ids): no per-item walk
        kinds = set(map(type, data))
        if kinds <= _PLAIN:
            d = _dtype.get_default_dtype() if float in kinds else _dtype.int64 if int in kinds else \
                _dtype.bool
            try:
                return np.asarray(data, dtype=_wide_np(d) if wide else d.np), d
            except OverflowError:
                raise ValueError("Overflow when unpacking long long") from None
    if isinstance(data, (list, tuple)):
        depth = _sequence_depth(data)
        if depth > 1 and _tensor_above_leaves(data, depth):
            data = _open_tensors(data, depth)
        if data and type(data[0]) is np.ndarray:
            torch_warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                       "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
                       "tensor.", "torch/csrc/utils/tensor_new.cpp:252", once=True)
        flat = []
        _flatten(data, flat)
        many = any(isinstance(x, Tensor) and x.numel() != 1 for x in flat)  # (a one-element tensor is a number)
        kinds = set()
        tdt = None
        for x in flat:
            if isinstance(x, Tensor) or isinstance(x, np.generic):  # typed elements keep their dtype
                xd = x.dtype if isinstance(x, Tensor) else _dtype.from_np(x.dtype)
                tdt = xd if tdt is None else _dtype.promote_types(tdt, xd)
            elif isinstance(x, (bool, np.bool_)):
                kinds.add(0)
            elif isinstance(x, numbers.Integral):
                kinds.add(1)
            elif isinstance(x, numbers.Real):
                kinds.add(2)
            elif isinstance(x, numbers.Complex):
                kinds.add(3)
            else:
                first = data
                while isinstance(first, (list, tuple)) and first:
                    first = first[0]
                if isinstance(first, str):  # torch reads a string as one more (unsupported) dimension
                    raise ValueError(f"too many dimensions '{type(first).__name__}'")
                raise _no_dtype(x)
        k = max(kinds) if kinds else -1
        d = {0: _dtype.bool, 1: _dtype.int64, 2: _dtype.get_default_dtype(), 3: _dtype.default_complex(),
             -1: _dtype.get_default_dtype()}[k]
        if tdt is not None:
            d = tdt if k < 0 else _dtype.promote_types(tdt, d) if k >= tdt._kind else tdt
        if many:
            raise _many_elements(d)
        vals = [complex(_scalar(x)) if isinstance(x, Tensor) and x.dtype.is_complex else
                (_scalar(x) if isinstance(x, Tensor) else x) for x in flat]
        try:
            arr = np.asarray(_rebuild(data, iter(vals)), dtype=_wide_np(d) if wide else d.np)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
        except ValueError:
            err = _ragged_error(data, d)
            if isinstance(err, tuple):  # (torch stores nothing where a size is 0: an empty tensor, no error)
                return np.zeros(err, dtype=_dtype.promote_types(d, _dtype.get_default_dtype()).np), \
                    _dtype.promote_types(d, _dtype.get_default_dtype())
            raise err or ValueError(f"expected sequence of length {len(data[0]) if _is_seq(data[0]) else 0} at dim "
                                    f"1 (got {len(data[-1]) if _is_seq(data[-1]) else 0})") from None
        return arr, d
    if isinstance(data, bool):
        return np.asarray(data), _dtype.bool
    if isinstance(data, numbers.Integral):
        if not -2 ** 63 <= data < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        return np.asarray(data, dtype=np.int64), _dtype.int64
    if isinstance(data, numbers.Real):
        d = _dtype.get_default_dtype()
        return np.asarray(data, dtype=_wide_np(d) if wide else d.np), d
    if isinstance(data, numbers.Complex):
        d = _dtype.default_complex()
        return np.asarray(data, dtype=_wide_np(d) if wide else d.np), d
    if hasattr(data, "__array__") or hasattr(data, "__dlpack__"):
        return _infer_np(np.asarray(data))
    raise _no_dtype(data)


def _sequence_depth(data):
    """How many dimensions torch reads off nested data: down its first elements while they are sequences (a
    tensor is none: torch's ``PySequence_Check`` is false for it)."""
    n, x = 0, data
    while isinstance(x, (list, tuple)) or _other_sequence(x) or type(x) is np.ndarray and x.ndim:
        n += 1
        if not len(x):
            break
        x = x[0]
    return n


def _tensor_above_leaves(data, depth):
    return any(isinstance(x, Tensor) and x.ndim or depth > 2 and isinstance(x, (list, tuple)) and
               _tensor_above_leaves(x, depth - 1) for x in data)


def _open_tensors(data, depth):
    """``data`` with each tensor that stands where a sequence belongs read as the list of its rows (torch iterates
    it there: ``tensor([[1, 2], tensor([3, 4])])`` is 2x2); tensors in the leaves' place stay numbers."""
    out = []
    for x in data:
        if isinstance(x, Tensor) and x.ndim:
            x = list(x)
        if depth > 2 and isinstance(x, (list, tuple)):
            x = _open_tensors(x, depth - 1)
        out.append(x)
    return out


def _is_seq(x):
    return isinstance(x, (list, tuple)) or _other_sequence(x) or isinstance(x, (Tensor, np.ndarray)) and x.ndim > 0


def _ragged_error(data, d):
    """torch's error for ragged nested data (tensor_new.cpp): the sizes come from the first elements, then a
    depth-first walk finds the first element of another length ("expected sequence of length"), a number
    where a sequence belongs ("not a sequence") or a sequence where a number belongs (the number conversion's
    error). Where a size is 0 torch stores nothing and raises nothing: the sizes, as a tuple."""
    sizes, x = [], data
    for _ in range(_sequence_depth(data)):
        sizes.append(len(x))
        if not len(x):
            break
        x = x[0]
    if 0 in sizes:
        return tuple(sizes)

    def walk(obj, dim):
        if dim == len(sizes):
            if isinstance(obj, Tensor):  # (a number where it has one element)
                return None if obj.numel() == 1 else _many_elements(d)
            if not _is_seq(obj):
                return None
            tp = type(obj).__name__
            if d.is_floating_point or d.is_complex:
                return TypeError(f"must be real number, not {tp}")
            return TypeError(f"'{tp}' object cannot be interpreted as an integer")
        if not _is_seq(obj):
            return TypeError("not a sequence")
        if len(obj) != sizes[dim]:
            return ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(obj)})")
        for o in obj:
            e = walk(o, dim + 1)
            if e is not None:
                return e
        return None
    return walk(data, 0)


def _many_elements(d):
    """torch's error for a tensor of more than one element where a number belongs (its conversion to the dtype's
    C type: ``__index__`` for integers and bools, ``__float__`` otherwise)."""
    if d.is_floating_point or d.is_complex:
        return ValueError("only one element tensors can be converted to Python scalars")
    return TypeError("only integer tensors of a single element can be converted to an index")


def _no_dtype(x):
    """torch's error for data whose dtype it cannot infer: a str or bytes is an invalid type, anything else (None, a set,
    a dict, an object) has no dtype to infer."""
    if isinstance(x, (str, bytes)):
        return TypeError(f"new(): invalid data type '{type(x).__name__}'")
    err = RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    err.element = x  # (``tensor(..., dtype=)`` words it as the failed conversion of that element to the dtype)
    return err


def _wide_np(d):
    return np.complex128 if d.is_complex else np.float64 if d.is_floating_point else d.np


def _other_sequence(x):
    """A Python sequence other than list/tuple that torch reads as one (its ``PySequence_Check``): ``range``,
    ``deque``, ``array.array``, a class with ``__getitem__`` and ``__len__``. Strings, bytes and dicts are not."""
    if type(x) in _PLAIN or isinstance(x, _NOT_SEQUENCES) or hasattr(x, "__array__") or hasattr(x, "__dlpack__"):
        return False  # (an array-like is read whole, below)
    # the type's own slots, not its metaclass's (an IntEnum member's class has EnumType.__getitem__)
    mro = type(x).__mro__
    return any("__getitem__" in vars(c) for c in mro) and any("__len__" in vars(c) for c in mro)


def _flatten(data, out):
    for x in data:
        if isinstance(x, (list, tuple)):
            _flatten(x, out)
        elif _other_sequence(x):
            _flatten(list(x), out)
        elif isinstance(x, np.ndarray):  # (its elements as numpy scalars: they keep the array's dtype, as in torch)
            out.extend(x.reshape(-1)) if x.ndim else out.append(x.item())
        else:
            out.append(x)


def _rebuild(data, it):
    out = []
    for x in data:
        if isinstance(x, (list, tuple)):
            out.append(_rebuild(x, it))
        elif _other_sequence(x):
            out.append(_rebuild(list(x), it))
        elif isinstance(x, np.ndarray) and x.ndim:
            out.append(_rebuild(x.tolist(), it))
        else:
            out.append(next(it))
    return out
