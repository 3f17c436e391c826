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

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn", "default_collate_err_msg_format"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _torch():
    import torchlike
    return torchlike


def default_convert(data):
    """Convert numpy arrays (also inside lists/tuples/dicts/namedtuples) to Tensors; the rest is kept.

    The default ``collate_fn`` when automatic batching is disabled (``batch_size=None``).

    >>> import numpy as np
    >>> from torchlike.utils.data import default_convert
    >>> default_convert([np.array([0, 1]), 3])
    [tensor([0, 1]), 3]
    """
    torch = _torch()
    elem_type = type(data)
    if isinstance(data, torch.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return torch.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # torch: tuples become lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate a batch, dispatching on the first element's type through ``collate_fn_map``.

    >>> from torchlike.utils.data._collate import collate, default_collate_fn_map
    >>> collate([(1, 2.0), (3, 4.0)], collate_fn_map=default_collate_fn_map)
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    torch = _torch()
    elem = batch[0]
    if getattr(elem, "is_sparse", False) is True:
        raise RuntimeError("Batches of sparse tensors are not currently supported by the default collate_fn; "
                           "please provide a custom collate_fn to handle them appropriately.")
    return torch.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    torch = _torch()
    if all(isinstance(b, np.ndarray) and b.shape == elem.shape and b.dtype == elem.dtype for b in batch):
        # one host-side stack and one transfer instead of a device op per element
        return torch.as_tensor(np.stack(batch))
    return collate([torch.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _torch().as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    torch = _torch()
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _torch().tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


def _build_map():
    torch = _torch()
    return {torch.Tensor: collate_tensor_fn, np.ndarray: collate_numpy_array_fn,
         (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
         float: collate_float_fn, int: collate_int_fn, str: collate_str_fn, bytes: collate_str_fn}


default_collate_fn_map = _build_map()


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
