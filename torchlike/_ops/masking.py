"""Masked ops: masked_fill, masked_select, masked_scatter (a bool mask that broadcasts against the input).

    >>> import torchlike
    >>> torchlike.tensor([1, 2, 3]).masked_fill(torchlike.tensor([True, False, True]), 0)
    tensor([0, 2, 0])
"""
from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._errors import GraphBreak, broadcast_shape, torch_warn
from ._util import Tensor, cast, dispatch, register
from .indexing import _check_fill_value, c_type_name, concrete_index
from .masked_put import compiled_mask
from .registry import check_no_overlap, write_out
from .._mutation import check_inplace, expanded_warning

__all__ = ["masked_fill", "masked_select", "masked_scatter"]


# --- masked ops -------------------------------------------------------------------------------
def _masked_fill_impl(x, m, v):
    return jnp.where(m, cast(v, x.dtype), x)


@register(inplace=True, promote="none", inplace_overlap=expanded_warning("masked_fill_"))
def masked_fill(input, mask, value):
    """``input`` with ``value`` where ``mask`` is True (mask broadcasts).

    >>> import torchlike
    >>> torchlike.zeros(3).masked_fill(torchlike.tensor([True, False, True]), 5.)
    tensor([5., 0., 5.])
    """
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{c_type_name(mask.dtype)}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
    elif not isinstance(value, (bool, numbers.Number, np.generic)):
        raise TypeError(f"masked_fill() received an invalid combination of arguments - got (Tensor, "
                        f"{type(value).__name__})")
    _check_fill_value(value, input.dtype)
    name = "MaskedFillBackward1" if isinstance(value, Tensor) else "MaskedFillBackward0"  # (torch's Tensor overload)
    return dispatch(_masked_fill_impl, (input, mask, value), (), name=name, saves=False)


def _masked_select_impl(x, flat, shape):
    return jnp.broadcast_to(x, shape).reshape(-1)[flat]


def _bool_mask(mask, what):
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(what)
    m = concrete_index(mask)
    if m is None:
        raise GraphBreak(f"{what.split(':')[0]} has a data-dependent output shape and needs concrete values")
    return m


def _masked_select_out(out, input, mask):
    r = masked_select(input, mask)
    check_no_overlap(out, (input, mask), r.shape)
    return write_out(out, r, "masked_select")


@register(promote="none", out_form=_masked_select_out)
def masked_select(input, mask):
    """The 1-D tensor of ``input`` entries where ``mask`` (broadcast) is True.

    >>> import torchlike
    >>> torchlike.tensor([1, 2, 3]).masked_select(torchlike.tensor([True, False, True]))
    tensor([1, 3])
    """
    m = _bool_mask(mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shape(m.shape, tuple(input.shape))  # (torch broadcasts the mask first)
    flat = np.flatnonzero(np.broadcast_to(m, shape))
    return dispatch(_masked_select_impl, (input, flat), (("shape", shape),), name="MaskedSelectBackward0",
                    saves=False)


def _masked_scatter_impl(x, m, src, srcidx, shape, empty):
    x = jnp.broadcast_to(x, shape)
    if empty:
        return x
    return jnp.where(m, src.reshape(-1)[srcidx].astype(x.dtype), x)


def _masked_scatter_traced(x, m, src, shape, empty):
    """masked_scatter with a traced mask: the i-th True position takes ``src``'s i-th element (its running
    count).  Unlike eager, a ``source`` with fewer elements than the mask's ones is not an error here (the
    count is not known when the program is built; docs/differences.md)."""
    x = jnp.broadcast_to(x, shape)
    if empty:
        return x
    m = jnp.broadcast_to(m, shape)
    idx = jnp.clip(jnp.cumsum(m.reshape(-1)) - 1, 0, src.size - 1).reshape(shape)
    return jnp.where(m, src.reshape(-1)[idx].astype(x.dtype), x)


def _mask_expands_to_self(self, args, kwargs):
    """masked_scatter_'s in-place rule (OpEntry.inplace_overlap): torch expands the mask to self's shape
    (expand_inplace), so a mask of more dims than self is expand's error, not a broadcast one."""
    check_inplace(self, args, kwargs, "internal")  # (the rule an op of no elementwise kind gets by default)
    mask = args[0] if args else kwargs.get("mask")
    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool:
        return False
    if mask.ndim > self.ndim:
        raise RuntimeError(f"expand(CPUBoolType{{{list(mask.shape)}}}, size={list(self.shape)}): the number of "
                           f"sizes provided ({self.ndim}) must be greater or equal to the number of dimensions in "
                           f"the tensor ({mask.ndim})")
    lead = self.ndim - mask.ndim
    for i, (m, n) in enumerate(zip(mask.shape, self.shape[lead:])):
        if m != n and m != 1:
            raise RuntimeError(f"The expanded size of the tensor ({n}) must match the existing size ({m}) at "
                               f"non-singleton dimension {i + lead}.  Target sizes: {list(self.shape)}.  Tensor "
                               f"sizes: {list(mask.shape)}")
    return False


@register(inplace=True, promote="none", inplace_overlap=_mask_expands_to_self)
def masked_scatter(input, mask, source):
    """``input`` with consecutive ``source`` elements written where ``mask`` is True.

    >>> import torchlike
    >>> torchlike.zeros(3).masked_scatter(torchlike.tensor([True, False, True]), torchlike.tensor([1., 2.]))
    tensor([1., 0., 2.])
    """
    if mask.dtype is not _dtype.bool:
        if mask.dtype is _dtype.uint8:  # torch warns (every call), then refuses the mask all the same
            torch_warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                       "please use a mask with dtype torch.bool instead.",
                       "aten/src/ATen/native/TensorAdvancedIndexing.cpp:3130")
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_dtype._CAP[mask.dtype.name]}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_dtype._CAP[input.dtype.name]} and {_dtype._CAP[source.dtype.name]}")
    if compiled_mask(mask._value):  # under compile: the positions are computed in the program (no host read)
        shape = broadcast_shape(tuple(mask.shape), tuple(input.shape))
        return dispatch(_masked_scatter_traced, (input, mask, source),
                        (("shape", shape), ("empty", source.numel() == 0)), name="MaskedScatterBackward0",
                        saves=False)
    m = _bool_mask(mask, "masked_scatter: expected BoolTensor for mask")
    shape = broadcast_shape(m.shape, tuple(input.shape))  # (torch broadcasts the mask first)
    mb = np.broadcast_to(m, shape)
    count = int(mb.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    srcidx = np.maximum(np.cumsum(mb.reshape(-1)) - 1, 0).reshape(shape)
    return dispatch(_masked_scatter_impl, (input, mb, source, srcidx),
                    (("shape", shape), ("empty", count == 0)), name="MaskedScatterBackward0", saves=False)
