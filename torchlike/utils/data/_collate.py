"""default_collate / default_convert with torch's type rules (torch/utils/data/_utils/collate.py).

Batch element type -> result: Tensor -> stacked Tensor, numpy array -> stacked Tensor, numpy scalar ->
Tensor, float -> float64 Tensor, int -> int64 Tensor, bool -> bool Tensor, str/bytes -> list unchanged,
Mapping/namedtuple/Sequence -> same container with each field collated (tuples become lists).
"""
from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from ... import _creation, _dtype, _torch_function
from ..._ops.shape import stack as _stack
from ...tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn", "default_collate_err_msg_format"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _holds_text_or_objects(dtype):
    # numpy kinds that have no Tensor equivalent: bytes (S/a), unicode (U), Python objects (O)
    return np_str_obj_array_pattern.search(dtype.str) is not None


def _like_mapping(template, values):
    """A mapping of ``template``'s type (a shallow copy when mutable, so extra state such as a
    defaultdict's factory survives) holding ``values``; a plain dict when the type won't rebuild."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            out = copy.copy(template)
            out.update(values)
            return out
        return type(template)(values)
    except TypeError:
        return dict(values)


def _like_sequence(template, values):
    """A sequence of ``template``'s type holding ``values``, as ``_like_mapping`` does for mappings."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            out = copy.copy(template)
            for pos, value in enumerate(values):
                out[pos] = value
            return out
        return type(template)(values)
    except TypeError:
        return list(values)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data):
    """Convert numpy arrays (also inside lists/tuples/dicts/namedtuples) to Tensors; the rest is kept.

    The default ``collate_fn`` when automatic batching is disabled (``batch_size=None``).

    >>> import numpy as np
    >>> from torchlike.utils.data import default_convert
    >>> default_convert([np.array([0, 1]), 3])
    [tensor([0, 1]), 3]
    """
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        # numpy arrays and scalars become Tensors, except arrays of strings / objects
        if kind.__name__ == "ndarray" and _holds_text_or_objects(data.dtype):
            return data
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _like_mapping(data, {k: default_convert(data[k]) for k in data})
    if _is_namedtuple(data):
        return kind(*map(default_convert, data))
    if isinstance(data, tuple):
        return list(map(default_convert, data))  # torch turns plain tuples into lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _like_sequence(data, list(map(default_convert, data)))
    return data


def _registered_fn(fn_map, elem):
    """The collate function for ``elem``: its exact type's entry, else the first entry it is an instance of."""
    if fn_map is None:
        return None
    kind = type(elem)
    if kind in fn_map:
        return fn_map[kind]
    return next((fn for key, fn in fn_map.items() if isinstance(elem, key)), None)


def collate(batch, *, collate_fn_map=None):
    """Collate a batch, dispatching on the first element's type through ``collate_fn_map``.

    Containers are collated field by field: a batch of dicts gives a dict of batches, a batch of
    sequences a sequence (a list, for tuples) of batches.

    >>> from torchlike.utils.data._collate import collate, default_collate_fn_map
    >>> collate([(1, 2.0), (3, 4.0)], collate_fn_map=default_collate_fn_map)
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    first = batch[0]
    fn = _registered_fn(collate_fn_map, first)
    if fn is not None:
        return fn(batch, collate_fn_map=collate_fn_map)

    def field(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(first, collections.abc.Mapping):
        return _like_mapping(first, {k: field([sample[k] for sample in batch]) for k in first})
    if _is_namedtuple(first):
        return type(first)(*map(field, zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        width = len(first)
        if any(len(sample) != width for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [field(column) for column in zip(*batch)]
        return columns if isinstance(first, tuple) else _like_sequence(first, columns)
    raise TypeError(default_collate_err_msg_format.format(type(first)))


def _host_batch(arr):
    """A host-resident tensor of the stacked numpy batch ``arr`` (which it owns): one transfer when the batch
    is first used on the device, none before (a worker never starts a JAX backend for it)."""
    c = _creation
    return c._host_or_put(arr, c.canonical(None), False, cap=float("inf"))


def _stack_host(batch):
    """``torch.stack(batch)`` of host-resident tensors (``Tensor._from_host``) of one shape, dtype and device,
    stacked by numpy into one host tensor; None for anything else (stack then raises torch's errors)."""
    c = _creation
    tensor = c.Tensor
    first = batch[0]
    if type(first) is not tensor:
        return None
    h = first._host_array(True)
    if h is None:
        return None
    shape, dtype, dev = h.shape, h.dtype, first._dev
    arrays = []
    for t in batch:
        a = t._host_array(True) if type(t) is tensor else None
        if a is None or a.shape != shape or a.dtype != dtype or (t._dev is not dev and t._dev != dev):
            return None
        arrays.append(a)
    if not c._hostable(dev):
        return None
    # (one concatenate of C-contiguous arrays: several times cheaper than np.stack's per-array checks)
    out = np.concatenate(arrays).reshape((len(arrays),) + shape) if shape else np.array(arrays, dtype)
    return tensor._from_host(out, dev)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    if getattr(batch[0], "is_sparse", False) is True:
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    out = _stack_host(batch)
    if out is not None:
        return out
    batch = list(batch)
    if _torch_function.has_torch_function(batch):  # torch's torch.stack: a subclass's __torch_function__ sees it
        return _torch_function.redispatch("stack", _stack, (batch, 0), {})
    return _stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    dtype, shape = batch[0].dtype, batch[0].shape
    if _holds_text_or_objects(dtype):
        raise TypeError(default_collate_err_msg_format.format(dtype))
    if all(isinstance(a, np.ndarray) for a in batch) and \
            all(a.shape == shape and a.dtype == dtype for a in batch):
        # one host-side stack, transferred once when the batch is used
        return _host_batch(np.stack(batch))
    return collate([_creation.as_tensor(a) for a in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _creation.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    if all(type(x) is float for x in batch):
        return _host_batch(np.array(batch, np.float64))  # Python floats are doubles
    return _creation.tensor(batch, dtype=_dtype.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    if all(type(x) is int for x in batch):
        try:
            return _host_batch(np.array(batch, np.int64))
        except OverflowError:
            pass  # torch.tensor raises torch's error
    return _creation.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch  # strings and bytes stay a list


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch with torch's rules.

    >>> from torchlike.utils.data import default_collate
    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    >>> default_collate([{"a": 1.0}, {"a": 2.0}])
    {'a': tensor([1., 2.], dtype=torch.float64)}
    >>> default_collate(["x", "y"])
    ['x', 'y']
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
