"""``torch.nn.parallel.scatter_gather``: split inputs into per-device chunks and gather outputs back.

torchlike runs on one device, so the "devices" are slots: ``scatter`` splits every tensor (inside tuples,
lists and dicts) into ``len(target_gpus)`` chunks along ``dim``, as torch does, and ``gather`` concatenates
per-device outputs along ``dim``.

>>> import torchlike as torch
>>> from torchlike.nn.parallel.scatter_gather import gather, scatter
>>> parts = scatter(torch.arange(6), [0, 1])
>>> [p.tolist() for p in parts]
[[0, 1, 2], [3, 4, 5]]
>>> gather(parts, 0).tolist()
[0, 1, 2, 3, 4, 5]
"""
from __future__ import annotations

from ..._ops.shape import cat as _cat_op
from ...tensor import Tensor

__all__ = ["scatter", "scatter_kwargs", "gather", "is_namedtuple"]


def is_namedtuple(obj):
    """True for an instance of a ``collections.namedtuple`` / ``typing.NamedTuple`` class."""
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs, target_gpus, dim=0):
    """One entry per target device: tensors chunked along ``dim``, containers recursed, other objects repeated."""
    n = len(target_gpus)

    def rec(obj):
        if isinstance(obj, Tensor):
            return list(obj.chunk(n, dim))
        if is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(rec, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(rec, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(rec, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(rec, obj.items()))]
        return [obj for _ in target_gpus]

    try:
        return rec(inputs)
    finally:
        rec = None  # break the closure's reference cycle (as torch does)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` for positional and keyword inputs; both lists padded to the same length."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Concatenate the per-device ``outputs`` along ``dim`` (recursing into tuples, lists, dicts)."""
    def rec(outs):
        out = outs[0]
        if isinstance(out, Tensor):
            return _cat(outs, dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, rec([d[k] for d in outs])) for k in out)
        if is_namedtuple(out):
            return type(out)._make(map(rec, zip(*outs)))
        return type(out)(map(rec, zip(*outs)))

    try:
        return rec(outputs)
    finally:
        rec = None


def _cat(tensors, dim):
    if dim == 0 and all(t.dim() == 0 for t in tensors):
        tensors = [t.view(1) for t in tensors]   # torch gathers scalars into a vector (with a warning)
    return _cat_op(tensors, dim)
