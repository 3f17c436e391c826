"""What ``save``/``load`` share: flattening a nested state dict into dotted keys (torch's rule: mappings are
walked; a list is walked when it holds tensors or containers), and which region of a tensor this rank holds.

A DTensor's region follows torch's sharding: mesh dims in order, each ``Shard(k)`` taking its ``torch.chunk``
piece of what is left of dim ``k``; a replicated mesh dim is written only by coordinate 0 (each piece once).
"""
from __future__ import annotations

from ..tensor._dtensor import DTensor
from ..tensor.placement_types import Shard
from ...tensor import Tensor


def flatten_state_dict(state_dict):
    """``(flat, mapping)``: ``{"a.b": value}`` and ``{"a.b": ("a", "b")}`` (torch's flatten_state_dict)."""
    flat, mapping = {}, {}

    def terminal(v):
        if isinstance(v, dict):
            return False
        if not isinstance(v, list):
            return True
        return not any(isinstance(e, Tensor) or (isinstance(e, (dict, list)) and not terminal(e)) for e in v)

    def walk(path, v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(path + (str(k),), x)
        elif terminal(v):
            key = ".".join(map(str, path))
            if key in flat:
                raise ValueError(f"duplicated flatten key {key}")
            flat[key], mapping[key] = v, path
        else:
            for i, x in enumerate(v):
                walk(path + (i,), x)

    for k, v in state_dict.items():
        walk((str(k),), v)
    return flat, mapping


def set_element(root, path, value):
    """Put ``value`` at ``path`` in the nested ``root`` (keys were stringified; find the original key)."""
    cur = root
    for p in path[:-1]:
        cur = cur[_key(cur, p)]
    cur[_key(cur, path[-1])] = value


def _key(container, p):
    if isinstance(container, list):
        return int(p)
    if p in container:
        return p
    return next((k for k in container if str(k) == p), p)


def region(t, rank):
    """``(offsets, sizes, writes)`` of the piece of ``t`` this rank holds; ``writes`` is False where another
    rank holds the same piece (replicated) and writes it instead."""
    shape = tuple(int(s) for s in t.shape)
    if not isinstance(t, DTensor):
        return (0,) * len(shape), shape, rank == 0
    if d_is_whole(t):
        return (0,) * len(shape), shape, rank == 0
    mesh = t.device_mesh
    coord = mesh.get_coordinate()
    if coord is None:
        return (0,) * len(shape), (0,) * len(shape), False
    offs, sizes, writes = [0] * len(shape), list(shape), True
    for i, p in enumerate(t.placements):
        n, c = mesh.size(i), coord[i]
        if isinstance(p, Shard):
            k = p.dim
            step = -(-sizes[k] // n) if sizes[k] else 0
            start = min(c * step, sizes[k])
            offs[k] += start
            sizes[k] = max(0, min(sizes[k] - start, step))
        elif c != 0:
            writes = False
    return tuple(offs), tuple(sizes), writes


def d_is_whole(d):
    """True for a DTensor whose array this process holds entirely (one process driving its devices)."""
    if d.__dict__.get("_gshape") is not None:
        return False
    return bool(getattr(d._value, "is_fully_addressable", True))


def local_array(t, offs, sizes):
    """The (jax) values of ``t`` over the region (``offs``, ``sizes``)."""
    if isinstance(t, DTensor):
        if t.__dict__.get("_gshape") is not None:
            return t._value
        x = t._value if d_is_whole(t) else t.full_tensor()._value
    else:
        x = t.detach()._value
    if tuple(x.shape) == tuple(sizes):
        return x
    return x[tuple(slice(o, o + s) for o, s in zip(offs, sizes))]
