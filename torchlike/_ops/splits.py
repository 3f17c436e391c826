"""Splits with numpy semantics (hsplit, vsplit, dsplit: views) and torch's ``unsafe_split`` family.
"""
from __future__ import annotations

import math
import numbers

import jax.numpy as jnp

from ._util import Tensor, dispatch, register, wrap_dim
from . import views as _v
from .._tape import relabel
from .basic import clone

__all__ = ["hsplit", "vsplit", "dsplit", "unsafe_split", "unsafe_chunk", "_chunk_cat"]


# --- hsplit / vsplit / dsplit: views, numpy semantics -------------------------------------------------
def _dir_split(name, input, indices_or_sections, min_dim, dim):
    if input.ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    ios = indices_or_sections
    if not (isinstance(ios, numbers.Integral) or isinstance(ios, (list, tuple)) and
            all(isinstance(i, numbers.Integral) for i in ios)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, {type(ios).__name__}), "
                        "but expected one of:\n * (Tensor input, int sections)\n"
                        " * (Tensor input, tuple of ints indices)\n")
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        n = input.shape[dim]
        if k == 0 or n % k:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {n} is not divisible by the split_size {k}!")
    return _v.tensor_split(input, indices_or_sections, dim)


@register(method_varargs=True)
def hsplit(input, indices_or_sections):
    """Split horizontally: dim 1 (dim 0 for 1-D inputs), numpy semantics (views).

    >>> import torchlike
    >>> [tuple(p.shape) for p in torchlike.hsplit(torchlike.ones(2, 4), 2)]
    [(2, 2), (2, 2)]
    """
    return _dir_split("hsplit", input, indices_or_sections, 1, 1 if input.ndim > 1 else 0)


@register(method_varargs=True)
def vsplit(input, indices_or_sections):
    """Split vertically (dim 0) a tensor of at least 2 dims (views).

    >>> import torchlike
    >>> len(torchlike.vsplit(torchlike.ones(4, 2), [1, 3]))
    3
    """
    return _dir_split("vsplit", input, indices_or_sections, 2, 0)


@register(method_varargs=True)
def dsplit(input, indices_or_sections):
    """Split depth-wise (dim 2) a tensor of at least 3 dims (views).

    >>> import torchlike
    >>> len(torchlike.dsplit(torchlike.ones(1, 1, 4), 2))
    2
    """
    return _dir_split("dsplit", input, indices_or_sections, 3, 2)


@register()
def unsafe_split(input, split_size, dim=0):
    """torch.split whose pieces are not tracked as views (here: copies).

    >>> import torchlike
    >>> [p.tolist() for p in torchlike.unsafe_split(torchlike.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    return relabel(tuple(clone(p) for p in _v.split(input, split_size, dim)), "UnsafeSplitBackward0")


@register()
def unsafe_chunk(input, chunks, dim=0):
    """torch.chunk whose pieces are not tracked as views (here: copies).

    >>> import torchlike
    >>> len(torchlike.unsafe_chunk(torchlike.arange(5), 2))
    2
    """
    return relabel(tuple(clone(p) for p in _v.chunk(input, chunks, dim)), "UnsafeSplitBackward0")


@register()
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """torch.split_with_sizes whose pieces are copies."""
    return relabel(tuple(clone(p) for p in _v.split_with_sizes(input, split_sizes, dim)),
                   "UnsafeSplitWithSizesBackward0")


# --- _chunk_cat: chunk each tensor along dim (zero-padded to equal chunks), concatenate chunk-wise ---------
def _chunk_cat_impl(*xs, dim, n):
    parts = []
    for x in xs:
        size = x.shape[dim]
        c = -(-size // n)
        pad = [(0, 0)] * x.ndim
        pad[dim] = (0, c * n - size)
        x = jnp.pad(x, pad)
        parts.append(x.reshape(x.shape[:dim] + (n, c * math.prod(x.shape[dim + 1:]))))
    return jnp.concatenate(parts, axis=dim + 1)


@register(out=True, method=False, differentiable=False)
def _chunk_cat(tensors, dim, num_chunks):
    """Each tensor split into ``num_chunks`` chunks along ``dim`` (the last chunk zero-padded to the others'
    size), each chunk flattened over the dims after ``dim``, and the tensors concatenated chunk by chunk:
    shape ``leading + (num_chunks, sum of flattened chunk sizes)``.

    >>> import torchlike
    >>> torchlike._chunk_cat([torchlike.arange(3.), torchlike.ones(2)], 0, 2)
    tensor([[0., 1., 1.],
            [2., 0., 1.]])
    """
    if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"_chunk_cat(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not isinstance(dim, numbers.Integral) or not isinstance(num_chunks, numbers.Integral):
        raise TypeError("_chunk_cat(): argument 'dim' and 'num_chunks' must be int")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    first = tensors[0]
    if any(t.ndim == 0 for t in tensors):
        raise RuntimeError("_chunk_cat expects non-scalar input tensors")
    if any(t.numel() == 0 for t in tensors):
        raise RuntimeError("_chunk_cat expects non-empty tensor")
    if any(t.dtype is not first.dtype for t in tensors):
        raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    if all(t.ndim == first.ndim for t in tensors):
        d = wrap_dim(dim, first.ndim)
    elif dim < 0:
        raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have different ndims")
    else:
        d = dim
    if any(t.ndim <= d for t in tensors):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if any(tuple(t.shape[:d]) != tuple(first.shape[:d]) for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    # torch has no derivative for _chunk_cat: the result does not take part in autograd here
    return dispatch(_chunk_cat_impl, tuple(tensors), (("dim", d), ("n", int(num_chunks))), diff=False)
