"""Collectives on picklable objects (``all_gather_object`` ...): pickled bytes in uint8 tensors, gathered.

Sizes are all-gathered first, then the bytes padded to the largest, so every rank's program has one shape.
"""
from __future__ import annotations

import pickle

import numpy as np

from ._process_group import _group
from ._programs import _gathered, _member, _src_index

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _obj_bytes(obj):
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _gather_bytes(g, data, only=None):
    import jax.numpy as jnp
    sizes = np.asarray(_gathered(g, jnp.asarray([len(data)], jnp.int64)).result())[:, 0]
    m = int(sizes.max())
    buf = np.zeros(m, np.uint8)
    buf[:len(data)] = data
    allb = np.asarray(_gathered(g, jnp.asarray(buf)).result())
    return [pickle.loads(allb[i, :sizes[i]].tobytes()) if only is None or i == only else None
            for i in range(g.size())]


def _objects_of(g, s, objects):
    """Rank ``s``'s list ``objects`` (pickled there, sent to every rank of ``g``); other ranks pass anything."""
    data = _obj_bytes(list(objects)) if g.rank() == s else np.zeros(0, np.uint8)
    return _gather_bytes(g, data, s)[s]


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` = rank i's ``obj`` (pickled)."""
    g = _group(group)
    if not _member(g):
        return
    res = _gather_bytes(g, _obj_bytes(obj))
    for i, o in enumerate(res):
        object_list[i] = o


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank ``dst``'s ``object_gather_list[i]`` = rank i's ``obj``."""
    g = _group(group)
    if not _member(g):
        return
    d = _src_index(g, 0 if dst is None and group_dst is None else dst, group_dst, "dst")
    res = _gather_bytes(g, _obj_bytes(obj))
    if g.rank() == d:
        for i, o in enumerate(res):
            object_gather_list[i] = o


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Every rank's ``object_list`` becomes rank ``src``'s (pickled)."""
    g = _group(group)
    if not _member(g):
        return
    s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
    object_list[:] = _objects_of(g, s, object_list)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    """Rank i's ``scatter_object_output_list[0]`` = rank ``src``'s ``scatter_object_input_list[i]``."""
    g = _group(group)
    if not _member(g):
        return
    s = _src_index(g, 0 if src is None and group_src is None else src, group_src)
    scatter_object_output_list[0] = _objects_of(g, s, scatter_object_input_list)[g.rank()]
