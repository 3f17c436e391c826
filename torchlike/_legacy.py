"""Legacy type names: torch.FloatTensor, tensor.type('torch.LongTensor'), ..."""
from __future__ import annotations

from ._layout import strided
from .tensor import Tensor
from ._tensor_casts import LEGACY, dtype_of_type_name  # their home: Tensor.type() reads them (layer 1)

__all__ = ["dtype_of_type_name", "LEGACY"]


def make_legacy_constructor(name, dt, layout=strided, new=None, module="torch"):
    """torch's legacy tensor type ``name`` (``torch.FloatTensor``, ``torch.sparse.FloatTensor``): a class whose
    instances are the tensors of its dtype and layout (``isinstance(t, torch.FloatTensor)`` is False for a
    sparse float tensor, as in torch); calling it makes one (``new``: the layout's constructor)."""

    class tensortype(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, Tensor) and obj.dtype is dt and obj.layout is layout

    tensortype.__module__, tensortype.__qualname__ = "torch", "tensortype"

    if new is None:
        def __new__(cls, *args, device=None):
            return Tensor.__new__(Tensor, *args, dtype=dt, device=device)
    else:
        def __new__(cls, *args, **kwargs):
            return new(*args, **kwargs)

    return tensortype(name, (), {"__new__": __new__, "dtype": dt, "layout": layout, "is_sparse": layout is not strided,
                                 "is_cuda": False, "__module__": module, "__doc__": new.__doc__ if new else None})
