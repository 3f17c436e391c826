"""``index_put`` / ``index_put_`` (``Tensor.index_put_``): writing ``values`` at a tuple of index tensors, the
operation under ``t[idx] = v`` with tensor indices (index expressions themselves: indexing.py).

Every tensor in ``indices`` is an advanced index (0-d ones too, unlike ``t[idx]``); bool/uint8 masks expand to
their ``nonzero`` arrays. Without ``accumulate``, a one-element value under a lone mask is written as torch's
``masked_fill_`` would.

>>> import torchlike
>>> t = torchlike.zeros(3)
>>> t.index_put_((torchlike.tensor([0, 2]),), torchlike.tensor([1.0, 2.0]))
tensor([1., 0., 2.])
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._errors import GraphBreak, torch_warn, tp_name
from .._mutation import check_operands, warn_if_expanded
from ._util import Tensor, dispatch, register
from .indexing import _check_fill_value, _check_put_shape, _index_put_checked, concrete_index, prepare_adv
from .masked_put import masked_put, traced_mask

__all__ = ["index_put", "index_put_"]


def _put_overlap(self, indices, values, accumulate=False):
    """torch's index_put_ before it writes: its deprecation warning where ``self`` is expanded (which it writes
    anyway), then, unless it hands a one-element value under one bool mask to masked_fill_ (warning again), its
    check that ``values`` and ``indices`` share no memory with ``self``.  True: the write may repeat locations."""
    warn_if_expanded(self, "index_put_")
    if not accumulate and isinstance(values, Tensor) and values.numel() == 1 and _one_mask(indices):
        return warn_if_expanded(self, "masked_fill_")
    check_operands(self, (values, indices), "any")
    return True


def _one_mask(indices):
    """Whether ``indices`` (index_put's) is one bool/uint8 mask and nothing else (torch's canDispatchToMaskedFill)."""
    ts = [t for t in indices if t is not None] if isinstance(indices, (tuple, list)) else ()
    return len(ts) == 1 and isinstance(ts[0], Tensor) and ts[0].dtype in (_dtype.bool, _dtype.uint8)


def _masked_fill_values(input, indices, values, accumulate):
    """``values`` as index_put writes them. Without accumulate, a one-element value under one bool/uint8 mask
    is written by torch's masked_fill_ (its canDispatchToMaskedFill): the mask's shape is checked, a uint8
    mask refused with masked_fill_'s error (and no uint8 warning), and the value cast to ``input``'s dtype
    as a fill value (so no dtype-mismatch error). Any other call: ``values`` unchanged."""
    if accumulate or values.numel() != 1 or not _one_mask(indices):
        return values
    mask = indices[0]
    for j in range(min(mask.ndim, input.ndim)):
        if mask.shape[j] != input.shape[j]:
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape of "
                             f"the indexed tensor {list(input.shape)} at index {j}")
    if mask.dtype is _dtype.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    if values.dtype is not input.dtype:
        _check_fill_value(values, input.dtype)
        values = values.to(input.dtype)
    return values


def _index_put_overlap(self, args, kwargs):  # (OpEntry.inplace_overlap of index_put)
    indices = args[0] if args else kwargs.get("indices", ())
    values = args[1] if len(args) > 1 else kwargs.get("values")
    return _put_overlap(self, indices, values, args[2] if len(args) > 2 else kwargs.get("accumulate", False))


@register(inplace=True, promote="none", inplace_overlap=_index_put_overlap)
def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` put at ``indices`` (a tuple of index tensors), optionally accumulated.

    >>> import torchlike
    >>> torchlike.zeros(3).index_put((torchlike.tensor([0, 0]),), torchlike.tensor(1.), accumulate=True)
    tensor([2., 0., 0.])
    """
    if isinstance(indices, Tensor):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not Tensor")
    indices = tuple(indices)
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {tp_name(t)}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}")
    if accumulate is not False and accumulate is not True:  # (torch's parser: a Python bool only)
        raise TypeError(f"index_put(): argument 'accumulate' must be bool, not {tp_name(accumulate)}")
    if not indices:
        return dispatch(_copy_like_impl, (input, values), (), name="IndexPutBackward0", saves=False) \
            if not accumulate else input + values
    if len(indices) == 1 and traced_mask(indices[0]):  # under compile: one where, no host read of the mask
        r = masked_put(input, indices[0], 0, values, accumulate)
        if r is not None:
            return r
    values = _masked_fill_values(input, indices, values, accumulate)
    adv = _put_indices(tuple(input.shape), indices)
    pos, arrays, bshape = prepare_adv(adv, tuple(input.shape))
    if values.dtype is not input.dtype:
        _check_put_shape(input, pos, bshape, values)
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_dtype._CAP[input.dtype.name]} for the destination and "
                           f"{_dtype._CAP[values.dtype.name]} for the source.")
    return _index_put_checked(input, pos, arrays, bshape, values, accumulate)


@register(method=False, namespaces=("torch",), differentiable=True, promote="none")
def index_put_(input, indices, values, accumulate=False):
    """In-place :func:`index_put` (torch.index_put_)."""
    aliased = _put_overlap(input, indices, values, accumulate)
    return input._inplace_update(index_put(input, indices, values, accumulate), aliased)


def _put_indices(shape, indices):
    """index_put's indices: every tensor (0-dim ones too) is an advanced index; masks expand."""
    if len(indices) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {len(indices)})")
    adv, d = [], 0
    for t in indices:
        dt = t.dtype
        if dt is _dtype.bool or dt is _dtype.uint8:
            if dt is _dtype.uint8:
                torch_warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                           "instead.", "aten/src/ATen/native/IndexingUtils.h:37")
            m = concrete_index(t)
            if m is None:
                raise GraphBreak("boolean mask indexing needs concrete values (it has a data-dependent shape)")
            if m.ndim == 0:
                raise IndexError("index_put with a 0-dim boolean index is not supported")
            for j in range(m.ndim):
                if d + j >= len(shape) or m.shape[j] != shape[d + j]:
                    if d + j >= len(shape):
                        break
                    raise IndexError(f"The shape of the mask {list(m.shape)} at index {j} does not match the "
                                     f"shape of the indexed tensor {list(shape)} at index {d + j}")
            for j, nz in enumerate(np.nonzero(m)):
                adv.append((d + j, nz.astype(np.int64)))
            d += m.ndim
        elif dt is _dtype.int64 or dt is _dtype.int32:
            adv.append((d, t))
            d += 1
        else:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if d > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    return adv


def _copy_like_impl(x, v):
    return jnp.broadcast_to(v, x.shape).astype(x.dtype)
