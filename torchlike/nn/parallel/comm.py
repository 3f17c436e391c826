"""``torch.nn.parallel.comm``: broadcast/scatter/gather/reduce among devices — on torchlike's one device these
are copies, chunks and concatenations (torch's own versions need CUDA devices).

>>> import torchlike as torch
>>> from torchlike.nn.parallel import comm
>>> comm.reduce_add([torch.ones(2), torch.ones(2)]).tolist()
[2.0, 2.0]
"""
from __future__ import annotations

from ..._ops.shape import cat as _cat
from .scatter_gather import scatter as _scatter

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter", "gather"]


def broadcast(tensor, devices=None, *, out=None):
    """A copy of ``tensor`` per device (or copied into each tensor of ``out``)."""
    if (devices is None) == (out is None):
        raise RuntimeError(f"Exactly one of 'devices' and 'out' must be specified, but got devices={devices} "
                           f"and out={out}")
    if out is not None:
        for o in out:
            o.copy_(tensor)
        return tuple(out)
    return tuple(tensor.clone() for _ in devices)


def broadcast_coalesced(tensors, devices, buffer_size=10485760):
    """``broadcast`` for a sequence of tensors: one tuple of copies per device."""
    return [tuple(t.clone() for t in tensors) for _ in devices]


def reduce_add(inputs, destination=None):
    """The elementwise sum of ``inputs``."""
    out = inputs[0].clone()
    for t in inputs[1:]:
        if t.shape != out.shape:
            raise ValueError(f"input {list(t.shape)} has invalid size: got {list(t.shape)}, but expected "
                             f"{list(out.shape)}")
        out = out + t
    return out


def reduce_add_coalesced(inputs, destination=None, buffer_size=10485760):
    """``reduce_add`` position by position over per-device sequences of tensors."""
    return tuple(reduce_add(list(ts), destination) for ts in zip(*inputs))


def scatter(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    """Chunks of ``tensor`` along ``dim``, one per device (``chunk_sizes`` gives their lengths)."""
    if chunk_sizes is not None:
        return tuple(tensor.split(list(chunk_sizes), dim))
    if out is not None:
        parts = tensor.split([o.shape[dim] for o in out], dim)
        for o, p in zip(out, parts):
            o.copy_(p)
        return tuple(out)
    return tuple(_scatter(tensor, list(devices), dim))


def gather(tensors, dim=0, destination=None, *, out=None):
    """``tensors`` concatenated along ``dim`` (into ``out`` when given)."""
    res = _cat(list(tensors), dim)
    if out is not None:
        out.copy_(res)
        return out
    return res
