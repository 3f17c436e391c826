"""DLPack interop (zero-copy with JAX, numpy and other frameworks)."""
from __future__ import annotations

import jax.numpy as jnp

from .._device import of_array
from ..tensor import Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def from_dlpack(ext_tensor):
    """A tensor sharing memory with any object that implements ``__dlpack__``."""
    x = jnp.from_dlpack(ext_tensor)
    return Tensor._wrap(x, of_array(x))


def to_dlpack(tensor):
    return tensor.__dlpack__()
