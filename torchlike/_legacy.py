"""Legacy type names: torch.FloatTensor, tensor.type('torch.LongTensor'), ..."""
from __future__ import annotations

from . import _dtype
from .tensor import Tensor

__all__ = ["dtype_of_type_name", "LEGACY"]

LEGACY = {"FloatTensor": _dtype.float32, "DoubleTensor": _dtype.float64, "HalfTensor": _dtype.float16,
          "BFloat16Tensor": _dtype.bfloat16, "LongTensor": _dtype.int64, "IntTensor": _dtype.int32,
          "ShortTensor": _dtype.int16, "CharTensor": _dtype.int8, "ByteTensor": _dtype.uint8,
          "BoolTensor": _dtype.bool}


def dtype_of_type_name(name):
    base = name.split(".")[-1]
    if base not in LEGACY:
        raise ValueError(f"invalid type: '{name}'")
    return LEGACY[base]


def make_legacy_constructor(name, dt):

    class _Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dt

    def __new__(cls, *args, device=None):
        return Tensor.__new__(Tensor, *args, dtype=dt, device=device)

    return _Meta(name, (), {"__new__": __new__, "dtype": dt})
