"""``torch.distributed.checkpoint.save``: every rank writes the pieces of the state dict it holds (its
shards of sharded DTensors; rank 0 the plain tensors and other values), then rank 0 writes the metadata.

>>> import tempfile, torchlike
>>> import torchlike.distributed.checkpoint as dcp
>>> d = tempfile.mkdtemp()
>>> md = dcp.save({"w": torchlike.arange(3.), "step": 5}, checkpoint_id=d, no_dist=True)
>>> sorted(md.state_dict_metadata), sorted(p for p in __import__("os").listdir(d))
(['step', 'w'], ['.metadata', '__0_0.distcp'])
"""
from __future__ import annotations

import io
import uuid
import warnings
from concurrent.futures import Future

from .. import _object_collectives
from .._process_group import barrier, get_rank, get_world_size, is_initialized
from ...tensor import Size, Tensor
from ..tensor._dtensor import DTensor
from ._planning import d_is_whole, flatten_state_dict, local_array, region
from .filesystem import FileSystemWriter, _storage
from .metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata, MetadataIndex, StorageMeta,
                       TensorProperties, TensorStorageMetadata)
from .stateful import Stateful
from ...serialization import save as _save

__all__ = ["async_save", "save", "save_state_dict"]


def _serialize(obj):
    buf = io.BytesIO()
    _save(obj, buf)
    return buf.getvalue()


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
         no_dist=False, use_collectives=True):
    """Save ``state_dict`` (tensors, DTensors, other values, ``Stateful`` objects) as a checkpoint directory;
    every rank calls it. Returns the checkpoint's :class:`Metadata`."""
    dist = not no_dist and is_initialized()
    if not dist:  # torch warns also when no_dist=True is passed
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to "
                      "save in a single process.", stacklevel=2)
    writer = _storage(storage_writer, checkpoint_id, FileSystemWriter)
    rank = get_rank(process_group) if dist else 0
    sd = {k: v.state_dict() if isinstance(v, Stateful) else v for k, v in state_dict.items()}
    flat, mapping = flatten_state_dict(sd)
    items, entries = [], []  # this rank's payloads; (fqn, kind, props, size, chunk) it contributes
    for fqn, v in flat.items():
        if isinstance(v, Tensor):
            offs, sizes, writes = region(v, rank)
            arr = local_array(v, offs, sizes) if writes or _needs_collective(v) else None
            props = TensorProperties(dtype=v.dtype)
            entries.append((fqn, "t", props, tuple(int(s) for s in v.shape), (offs, sizes) if writes else None))
            if writes:
                items.append((MetadataIndex(fqn, offs), _serialize(Tensor._wrap(arr))))
        else:
            entries.append((fqn, "b", None, None, rank == 0))
            if rank == 0:
                items.append((MetadataIndex(fqn), _serialize(v)))
    if rank == 0 or dist:
        writer._prepare()
    if dist:
        barrier(group=process_group)
    infos = writer._write_items(rank, items) if items or rank == 0 else []
    if dist:
        every = [None] * get_world_size(process_group)
        _object_collectives.all_gather_object(every, (entries, infos), group=process_group)
    else:
        every = [(entries, infos)]
    md = _metadata(every, mapping, writer)
    if rank == 0:
        writer._write_metadata(md)
    if dist:
        barrier(group=process_group)
    return md


def _needs_collective(v):
    return isinstance(v, DTensor) and v.__dict__.get("_gshape") is None and not d_is_whole(v)


def _metadata(every, mapping, writer):
    sdm, storage = {}, {}
    for entries, infos in every:
        for fqn, kind, props, size, chunk in entries:
            if kind == "b":
                sdm[fqn] = BytesStorageMetadata()
                continue
            md = sdm.get(fqn)
            if md is None:
                md = sdm[fqn] = TensorStorageMetadata(props, Size(size), [])
            if chunk is not None:
                md.chunks.append(ChunkStorageMetadata(Size(chunk[0]), Size(chunk[1])))
        for index, info in infos:
            storage[index] = info
    # the index hint is each chunk's position in its tensor's chunk list, as torch records it
    fixed = {}
    for index, info in storage.items():
        md = sdm[index.fqn]
        pos = None
        if isinstance(md, TensorStorageMetadata):
            pos = next(i for i, c in enumerate(md.chunks) if tuple(c.offsets) == tuple(index.offset))
        fixed[MetadataIndex(index.fqn, index.offset, pos)] = info
    meta = StorageMeta(checkpoint_id=writer.path, save_id=str(uuid.uuid4()))
    return Metadata(state_dict_metadata=sdm, planner_data=dict(mapping), storage_data=fixed, storage_meta=meta,
                    version="1.0.0")


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    """Deprecated spelling of :func:`save` (torch warns the same way)."""
    warnings.warn("'save_state_dict' is deprecated and will be removed in future versions.Please use 'save' "
                  "instead.", FutureWarning, stacklevel=2)
    return save(state_dict, storage_writer=storage_writer, process_group=process_group, no_dist=no_dist)


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
               async_checkpointer_type=None, async_stager=None, no_dist=False, use_collectives=True):
    """:func:`save`, done before returning; the returned future is already resolved with its Metadata."""
    fut = Future()
    fut.set_result(save(state_dict, checkpoint_id=checkpoint_id, storage_writer=storage_writer,
                        process_group=process_group, no_dist=no_dist))
    return fut
