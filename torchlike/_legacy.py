"""Legacy type names: torch.FloatTensor, tensor.type('torch.LongTensor'), ..."""
from __future__ import annotations

from .tensor import Tensor
from ._tensor_casts import LEGACY, dtype_of_type_name  # their home: Tensor.type() reads them (layer 1)

__all__ = ["dtype_of_type_name", "LEGACY"]


def make_legacy_constructor(name, dt):

    class _Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dt

    def __new__(cls, *args, device=None):
        return Tensor.__new__(Tensor, *args, dtype=dt, device=device)

    return _Meta(name, (), {"__new__": __new__, "dtype": dt})
