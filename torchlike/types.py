"""torchlike.types: the type aliases torch's annotations use (``torch.types``), for library code that imports them.

>>> import torchlike
>>> from torchlike.types import _device, _dtype, Number
>>> _device is torchlike.device, _dtype is torchlike.dtype, Number
(True, True, typing.Union[int, float, bool])
"""
from __future__ import annotations

import os
from typing import IO, Any, Sequence, Union

from ._device import device as _device
from ._dtype import dtype as _dtype  # noqa: F401 - torch.types names it
from ._layout import layout as _layout  # noqa: F401 - torch.types names it

__all__ = ["Device", "FileLike", "Number", "Storage"]

_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_size = Union[Sequence[int], tuple]
_symsize = _size
Number = Union[int, float, bool]
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
SymInt, SymFloat, SymBool = int, float, bool
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType = Union[SymInt, SymFloat, SymBool]
_TensorOrTensors = Any
_TensorOrOptionalTensors = Any
Storage = Any
_dispatchkey = Union[str, Any]
_qscheme = Any
del Any, IO, Sequence, Union
