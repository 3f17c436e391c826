"""``torch.distributed.checkpoint.load``: fill a state dict in place from a checkpoint directory, re-sharding
as needed: each tensor (or this rank's piece of a DTensor) is assembled from whichever saved chunks overlap
it, so a checkpoint written by N ranks loads into M ranks' layout (or one process's plain tensors).

>>> import tempfile, torchlike
>>> import torchlike.distributed.checkpoint as dcp
>>> d = tempfile.mkdtemp()
>>> _ = dcp.save({"w": torchlike.arange(3.), "step": 5}, checkpoint_id=d, no_dist=True)
>>> sd = {"w": torchlike.zeros(3), "step": 0}
>>> dcp.load(sd, checkpoint_id=d, no_dist=True)
>>> sd
{'w': tensor([0., 1., 2.]), 'step': 5}
"""
from __future__ import annotations

import io
import warnings

from ... import _grad_mode
from .._process_group import get_rank, is_initialized
from ..tensor._dtensor import DTensor, _place
from ...tensor import Tensor
from .api import CheckpointException, _wrap_exception
from ._planning import d_is_whole, flatten_state_dict, region, set_element
from .filesystem import FileSystemReader, _storage
from .metadata import TensorStorageMetadata
from .stateful import Stateful
from ...serialization import load as _load

__all__ = ["load", "load_state_dict"]


def _deserialize(data, weights_only):
    return _load(io.BytesIO(data), weights_only=weights_only)


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None,
         no_dist=False):
    """Load a checkpoint into ``state_dict`` in place (tensors are written into, other values replaced,
    ``Stateful`` objects get ``load_state_dict``); every rank calls it with the same keys."""
    dist = not no_dist and is_initialized()
    if not dist:  # torch warns also when no_dist=True is passed
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to "
                      "load in a single process.", stacklevel=2)
    reader = _storage(storage_reader, checkpoint_id, FileSystemReader)
    rank = get_rank(process_group) if dist else 0
    keys = sorted(state_dict.keys())
    sd = {k: state_dict[k].state_dict() if isinstance(state_dict[k], Stateful) else state_dict[k] for k in keys}
    try:
        _load_flat(sd, reader, rank, planner)
    except (RuntimeError, ValueError) as e:  # torch reports planning failures per rank, wrapped
        raise CheckpointException("load", {rank: _wrap_exception(e)}) from None
    for k in keys:
        if isinstance(state_dict[k], Stateful):
            state_dict[k].load_state_dict(sd[k])
        else:
            state_dict[k] = sd[k]


def _load_flat(sd, reader, rank, planner):
    md = reader.read_metadata()
    strict = getattr(planner, "allow_partial_load", False) is False
    flat, mapping = flatten_state_dict(sd)
    for fqn, obj in flat.items():
        saved = md.state_dict_metadata.get(fqn)
        if saved is None:
            if strict:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
            continue
        if isinstance(saved, TensorStorageMetadata):
            if getattr(obj, "size", None) is not None and tuple(saved.size) != tuple(obj.size()):
                raise ValueError(f"Size mismatch between saved {saved.size} and current: {obj.size()} for {fqn}")
            if isinstance(obj, Tensor):
                _fill(obj, fqn, saved, reader, rank)
                continue
            value = _assemble(fqn, saved, reader, (0,) * len(saved.size), tuple(saved.size), saved.properties.dtype)
            set_element(sd, mapping[fqn], Tensor._wrap(value))
        else:
            set_element(sd, mapping[fqn], _deserialize(reader._read(fqn, None), weights_only=False))


def _fill(t, fqn, saved, reader, rank):
    """Write the saved values of ``t``'s region into ``t`` (in place; a DTensor's local piece)."""
    offs, sizes, _ = region(t, rank)
    whole = isinstance(t, DTensor) and not d_is_whole(t) and t.__dict__.get("_gshape") is None
    if whole:  # one array over processes: rebuild it from the full value
        offs, sizes = (0,) * t.ndim, tuple(t.shape)
    value = _assemble(fqn, saved, reader, offs, sizes, t.dtype)
    if isinstance(t, DTensor):
        if t.__dict__.get("_gshape") is None:
            value = _place(value, t._value.sharding)
        t._set_value(value)
        return
    with _grad_mode.no_grad():
        t.copy_(Tensor._wrap(value))


def _assemble(fqn, saved, reader, offs, sizes, dtype):
    """A jax array of the region (``offs``, ``sizes``) from the saved chunks that overlap it."""
    import jax.numpy as jnp  # lazy: array assembly only
    out = jnp.zeros(sizes, dtype.np)
    if 0 in sizes:
        return out
    for c in saved.chunks:
        lo = [max(o, co) for o, co in zip(offs, c.offsets)]
        hi = [min(o + s, co + cs) for o, s, co, cs in zip(offs, sizes, c.offsets, c.sizes)]
        if any(a >= b for a, b in zip(lo, hi)) and len(sizes):
            continue
        piece = _deserialize(reader._read(fqn, tuple(c.offsets)), weights_only=True)
        src = tuple(slice(a - co, b - co) for a, b, co in zip(lo, hi, c.offsets))
        dst = tuple(slice(a - o, b - o) for a, b, o in zip(lo, hi, offs))
        out = out.at[dst].set(piece._value[src].astype(out.dtype))
    return out


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    """Deprecated spelling of :func:`load` (torch warns the same way)."""
    warnings.warn("'load_state_dict' is deprecated and will be removed in future versions. Please use 'load' "
                  "instead.", FutureWarning, stacklevel=2)
    load(state_dict, storage_reader=storage_reader, process_group=process_group, no_dist=no_dist)
