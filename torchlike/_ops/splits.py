"""Splits with numpy semantics (hsplit, vsplit, dsplit: views) and torch's ``unsafe_split`` family.
"""
from __future__ import annotations

import numbers

from ._util import register
from . import views as _v
from .._tape import relabel
from .basic import clone

__all__ = ["hsplit", "vsplit", "dsplit", "unsafe_split", "unsafe_chunk"]


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


@register()
def hsplit(input, indices_or_sections):
    """Split horizontally: dim 1 (dim 0 for 1-D inputs), numpy semantics (views).

    >>> import torchlike
    >>> [tuple(p.shape) for p in torchlike.hsplit(torchlike.ones(2, 4), 2)]
    [(2, 2), (2, 2)]
    """
    return _dir_split("hsplit", input, indices_or_sections, 1, 1 if input.ndim > 1 else 0)


@register()
def vsplit(input, indices_or_sections):
    """Split vertically (dim 0) a tensor of at least 2 dims (views).

    >>> import torchlike
    >>> len(torchlike.vsplit(torchlike.ones(4, 2), [1, 3]))
    3
    """
    return _dir_split("vsplit", input, indices_or_sections, 2, 0)


@register()
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
