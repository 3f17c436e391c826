"""The one parser of ``to()``'s arguments, shared by ``Tensor.to`` and ``nn.Module.to``.

torch accepts three call forms and picks the first whose arguments all fit, in this order::

    to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)
    to(dtype, non_blocking=False, copy=False, *, memory_format=None)
    to(tensor, non_blocking=False, copy=False, *, memory_format=None)

A device is a string, a ``torch.device`` or an accelerator index (an int); a dtype is a ``torch.dtype``
or one of the Python types ``float``/``int``/``bool``/``complex``; the flags are real bools.  Like torch,
the ``tensor`` form also takes a Python number, which stands for its scalar tensor (``to(1.5)`` means
float64 on the CPU, ``to(True)`` means bool).  Arguments that fit no form raise torch's TypeError.

This module sits low in the layering (see docs/DEVELOPING.md): it imports only the dtype, device and
memory-format value types, and the caller passes its tensor class.

>>> import torchlike as torch
>>> parse_to(torch.Tensor, ("cpu", torch.float64), {})
(device(type='cpu'), torch.float64, False, None, None)
>>> parse_to(torch.Tensor, (torch.float16,), {"non_blocking": True})
(None, torch.float16, True, None, None)
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._device import _gpus, canonical, device as _device_type
from ._memory_format import memory_format as _memory_format

__all__ = ["parse_to"]

_MAX_POSITIONAL = 4
_EXPECTED = ("but expected one of:\n"
             " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
             "bool copy = False, *, torch.memory_format memory_format = None)\n"
             " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
             "torch.memory_format memory_format = None)\n"
             " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
             "torch.memory_format memory_format = None)\n")
_PYTHON_DTYPES = (float, int, bool, complex)
# classes that are C types in torch, whose errors name them "torch.<name>"
_TORCH_C_TYPES = frozenset({"dtype", "device", "memory_format", "layout", "Size", "Generator", "Stream", "Event"})
_CPU = canonical("cpu")
_INDEX = (int, np.integer)                        # bool is an int: callers exclude it
_NUMBER = (int, float, complex, np.number, np.bool_)   # torch reads these as scalar tensors


# what each parameter takes (None only where the parameter defaults to None)
def _device_or_none(a, tensor_type):
    return (a is None or isinstance(a, (str, _device_type))
            or (isinstance(a, _INDEX) and not isinstance(a, bool)))   # an accelerator index


def _dtype_arg(a, tensor_type):
    return isinstance(a, _dtype.dtype) or (isinstance(a, type) and a in _PYTHON_DTYPES)


def _dtype_or_none(a, tensor_type):
    return a is None or _dtype_arg(a, tensor_type)


def _tensor_arg(a, tensor_type):
    return isinstance(a, tensor_type) or isinstance(a, _NUMBER)


def _flag(a, tensor_type):
    return isinstance(a, bool)


def _memory_format_or_none(a, tensor_type):
    return a is None or isinstance(a, _memory_format)


# torch's three forms in the order it tries them: (positional parameters, every parameter's check)
_FORMS = tuple(
    (tuple(params), {**params, "memory_format": _memory_format_or_none})
    for params in ({"device": _device_or_none, "dtype": _dtype_or_none, "non_blocking": _flag, "copy": _flag},
                   {"dtype": _dtype_arg, "non_blocking": _flag, "copy": _flag},
                   {"tensor": _tensor_arg, "non_blocking": _flag, "copy": _flag}))


def _bind(form, args, kwargs, tensor_type):
    """The {parameter: value} of this call under ``form``, or None if it does not fit."""
    positional, checks = form
    if len(args) > len(positional):
        return None
    bound = {}
    for name, value in zip(positional, args):
        if not checks[name](value, tensor_type):
            return None
        bound[name] = value
    for name, value in kwargs.items():
        check = checks.get(name)
        if check is None or name in bound or not check(value, tensor_type):
            return None
        bound[name] = value
    first = positional[0]
    if first != "device" and first not in bound:   # to(dtype, ...) and to(tensor, ...) need their first
        return None
    return bound


def _type_name(value, tensor_type):
    """How torch's argument errors name a value's type."""
    cls = type(value)
    if cls.__name__ in _TORCH_C_TYPES and cls.__module__.partition(".")[0] in ("torchlike", "torch"):
        return "torch." + cls.__name__
    if isinstance(value, tensor_type) or cls.__module__ == "builtins":
        return cls.__name__
    if cls.__module__.partition(".")[0] == "numpy":   # C types print their dotted name
        return f"{cls.__module__}.{cls.__qualname__}"
    return cls.__name__


def _invalid(args, kwargs, tensor_type):
    got = [_type_name(a, tensor_type) for a in args]
    # torch lists keyword arguments last-given first
    got += [f"{k}={_type_name(v, tensor_type)}" for k, v in reversed(kwargs.items())]
    text = ", ".join(got) + ("" if args else ", ")
    return TypeError(f"to() received an invalid combination of arguments - got ({text}), {_EXPECTED}")


def _parsed(d):
    """``canonical(d)`` of a device or string, but a CPU index stays, as torch's parser keeps it: ``to('cpu:0')``
    copies (the tensor's device, 'cpu', is not 'cpu:0'), and the copy is on 'cpu' again (``to_device_op``)."""
    c = canonical(d)
    if c.type == "cpu" and c is not d:
        return d if isinstance(d, _device_type) else _device_type(d)
    return c


def _device_of(d):
    if isinstance(d, (str, _device_type)):
        return _parsed(d)
    if isinstance(d, _INDEX):   # an accelerator index
        if d < 0:
            raise RuntimeError("Device index must not be negative")
        if not _gpus():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        d = int(d)
    return canonical(d)


def _scalar_dtype(number):
    """The dtype of the scalar tensor torch makes of a Python number."""
    if isinstance(number, bool):
        return _dtype.bool
    if isinstance(number, _INDEX):
        return _dtype.int64
    if isinstance(number, (complex, np.complexfloating)):
        return _dtype.complex128
    return _dtype.float64   # floats, and numpy bools as torch reads them


def parse_to(tensor_type, args, kwargs):
    """``(device, dtype, non_blocking, copy, memory_format)`` from the arguments of a ``to()`` call.

    ``device`` and ``dtype`` are None when not asked for (a canonical device, a ``torch.dtype``
    otherwise); ``copy`` is None when not given (``nn.Module.to`` refuses it).  ``tensor_type`` is the
    tensor class, whose instances the ``to(tensor)`` form takes.
    """
    if not kwargs and len(args) == 1:   # the common calls: to(dtype), to(device), to(tensor)
        a = args[0]
        if type(a) is _dtype.dtype:
            return None, a, False, None, None
        if type(a) is str or type(a) is _device_type:
            return _parsed(a), None, False, None, None
        if isinstance(a, tensor_type):
            return a.device, a.dtype, False, None, None
    if len(args) > _MAX_POSITIONAL:
        raise TypeError(f"to() takes from 0 to {_MAX_POSITIONAL} positional arguments but {len(args)} were given")
    # a dtype or a tensor first fits no earlier form: start at its own (same result, less work)
    first = args[0] if args else None
    start = 1 if isinstance(first, _dtype.dtype) else 2 if isinstance(first, tensor_type) else 0
    for form in _FORMS[start:]:
        bound = _bind(form, args, kwargs, tensor_type)
        if bound is not None:
            break
    else:
        raise _invalid(args, kwargs, tensor_type)
    like = bound.get("tensor")
    if like is None:
        d, dt = bound.get("device"), bound.get("dtype")
        device = None if d is None else _device_of(d)
        dtype = None if dt is None else _dtype.to_dtype(dt)
    elif isinstance(like, tensor_type):
        device, dtype = like.device, like.dtype
    else:
        device, dtype = _CPU, _scalar_dtype(like)
    return device, dtype, bound.get("non_blocking", False), bound.get("copy"), bound.get("memory_format")
