"""torch._utils: the device-module helpers libraries call (``_get_available_device_type``, ``_get_device_module``)
and the dense-buffer helpers of torch's DDP/fp16 utilities (``_flatten_dense_tensors``, ``_unflatten_dense_tensors``,
``_take_tensors``, ``_reorder_tensors_as``).

torchlike runs on the device JAX gives it; the accelerator family a library should synchronise or stream on is the
one whose ``torch.<type>`` module reports ``is_available()``, as in torch.

>>> _get_device_module("cpu").__name__
'torchlike.cpu'
"""
from __future__ import annotations

import functools
import sys
from collections import defaultdict

from ._ops.shape import cat

__all__ = ["_get_available_device_type", "_get_device_module", "_flatten_dense_tensors", "_unflatten_dense_tensors",
           "_take_tensors", "_reorder_tensors_as"]


def _get_available_device_type():
    """The available accelerator type (``"cuda"``, ``"mps"``, ``"xpu"``, ``"mtia"``), or None on a CPU-only host."""
    torch = sys.modules[__package__]
    mps = getattr(getattr(torch, "backends", None), "mps", None)
    for name, mod in (("cuda", getattr(torch, "cuda", None)), ("mps", mps), ("xpu", getattr(torch, "xpu", None)),
                      ("mtia", getattr(torch, "mtia", None))):
        if mod is not None and hasattr(mod, "is_available") and mod.is_available():
            return name
    return None


@functools.lru_cache(2)
def _get_device_module(device_type: str):
    """``torch.<device_type>`` (``torch.cuda`` for ``"cuda"``); RuntimeError when there is no such module."""
    mod = getattr(sys.modules[__package__], device_type, None)
    if mod is None:
        raise RuntimeError(f"Device '{device_type}' does not have a corresponding module registered as "
                           f"'torch.{device_type}'.")
    return mod


def _flatten_dense_tensors(tensors):
    """One 1-D buffer holding ``tensors`` one after another (torch's ``flatten_dense_tensors``: a single tensor
    comes back as its flattened view, several are concatenated).

    >>> import torchlike as torch
    >>> _flatten_dense_tensors([torch.ones(2, 2), torch.zeros(1)]).tolist()
    [1.0, 1.0, 1.0, 1.0, 0.0]
    """
    flat = [t.contiguous().view(-1) for t in tensors]
    return flat[0] if len(flat) == 1 else cat(flat)


def _unflatten_dense_tensors(flat, tensors):
    """Views of ``flat`` shaped as each of ``tensors`` (the inverse of ``_flatten_dense_tensors``); an empty tensor
    gets a fresh empty tensor of ``flat``'s dtype, as torch's, so that it shares no storage with the others.

    >>> import torchlike as torch
    >>> [t.shape for t in _unflatten_dense_tensors(torch.arange(5.0), [torch.ones(2, 2), torch.zeros(1)])]
    [torch.Size([2, 2]), torch.Size([1])]
    """
    outputs, offset = [], 0
    for t in tensors:
        numel = t.numel()
        if numel == 0:
            outputs.append(flat.new_empty(0))
        else:
            outputs.append(flat.narrow(0, offset, numel).view_as(t))
            offset += numel
    return outputs


def _reorder_tensors_as(tensors, ordered_tensors):
    """``tensors`` (in ``ordered_tensors``' order within each tensor type, as ``_take_tensors`` yields them) put
    back into the order of ``ordered_tensors``."""
    by_type = defaultdict(list)
    for t in tensors:
        by_type[t.type()].append(t)
    iters = {k: iter(v) for k, v in by_type.items()}
    return tuple(next(iters[t.type()]) for t in ordered_tensors)


def _take_tensors(tensors, size_limit):
    """Yield chunks of ``tensors`` of one tensor type whose sizes in bytes stay within ``size_limit`` (a chunk
    holds at least one tensor); order is kept within each type."""
    buffers = defaultdict(lambda: [[], 0])
    for t in tensors:
        kind = t.type()
        if t.is_sparse:
            indices, values = t._indices(), t._values()
            size = indices.numel() * indices.element_size() + values.numel() * values.element_size()
        else:
            size = t.numel() * t.element_size()
        buf = buffers[kind]
        if buf[1] + size > size_limit and buf[1] > 0:
            yield buf[0]
            buf = buffers[kind] = [[], 0]
        buf[0].append(t)
        buf[1] += size
    for buf, _ in buffers.values():
        if buf:
            yield buf
