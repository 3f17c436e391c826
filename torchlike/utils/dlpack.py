"""DLPack interop (zero-copy with JAX, numpy and other frameworks)."""
from __future__ import annotations

import ctypes

import jax.numpy as jnp

from .._device import of_array
from .._errors import tp_name
from ..tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _Capsule:
    """A legacy DLPack capsule (``torch.utils.dlpack.to_dlpack``'s result) as an object with the
    ``__dlpack__`` protocol, which is what JAX's ``from_dlpack`` reads."""

    def __init__(self, capsule):
        self.capsule = capsule
        # DLManagedTensor starts with DLTensor: ``void* data`` then ``DLDevice device``
        ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        dev = _DLDevice.from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
        self.device = (dev.device_type, dev.device_id)

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def from_dlpack(ext_tensor):
    """A tensor sharing memory with an object that implements ``__dlpack__``, or made from a DLPack capsule.

    >>> import numpy as np, torchlike
    >>> torchlike.from_dlpack(np.arange(3.0))
    tensor([0., 1., 2.], dtype=torch.float64)
    """
    if type(ext_tensor).__name__ == "PyCapsule":
        if not _api.PyCapsule_IsValid(ext_tensor, b"dltensor"):
            raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                               "only once, so you might have already constructed a tensor from it once.")
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack(): argument 'ext_tensor' must be an object with __dlpack__ or a DLPack "
                        f"capsule, not {type(ext_tensor).__name__}")
    x = jnp.from_dlpack(ext_tensor)
    return Tensor._wrap(x, of_array(x))


def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s buffer (consumed once by ``from_dlpack`` of any framework).

    >>> import torchlike
    >>> torchlike.from_dlpack(torchlike.utils.dlpack.to_dlpack(torchlike.ones(2)))
    tensor([1., 1.])
    """
    if not isinstance(tensor, Tensor):  # (torch's C function's parser error)
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {tp_name(tensor)}")
    return tensor.__dlpack__()
