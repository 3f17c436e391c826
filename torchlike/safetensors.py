"""``.safetensors`` state_dicts in and out (via the safetensors package), interoperable with files other
libraries write.

>>> import os, tempfile, torchlike
>>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
>>> torchlike.safetensors.save_file({"w": torchlike.ones(2)}, path)
>>> torchlike.safetensors.load_file(path)["w"]
tensor([1., 1.])
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

from .tensor import Tensor
from ._device import canonical, host_to_jax

__all__ = ["save_file", "load_file", "save", "load"]


def _to_numpy(tensors):
    out = {}
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
        out[k] = np.array(v.detach()._value, order="C")  # (ascontiguousarray would save a 0-d tensor as 1-d)
    return out


def _from_numpy(arrays, device):
    dev = canonical(device)
    return {k: Tensor._wrap(host_to_jax(np.asarray(a)), dev) for k, a in arrays.items()}


def save_file(tensors, filename, metadata=None):
    """Write a dict of tensors to ``filename`` atomically."""
    from safetensors.numpy import save_file as _save
    folder = os.path.dirname(os.path.abspath(filename))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    os.close(fd)
    try:
        _save(_to_numpy(tensors), tmp, metadata=metadata)
        os.replace(tmp, filename)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_file(filename, device="cpu"):
    """Read a dict of tensors from a ``.safetensors`` file."""
    from safetensors.numpy import load_file as _load
    return _from_numpy(_load(filename), device)


def save(tensors, metadata=None) -> bytes:
    from safetensors.numpy import save as _save
    return _save(_to_numpy(tensors), metadata=metadata)


def load(data: bytes, device="cpu"):
    from safetensors.numpy import load as _load
    return _from_numpy(_load(data), device)
