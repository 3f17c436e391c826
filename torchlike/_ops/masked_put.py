"""Writing through one traced boolean mask (``t[mask] = v``, ``index_put(t, (mask,), v)``) as one ``where``.

Eagerly, a bool mask index becomes its ``nonzero`` arrays (read on the host).  Under ``torchlike.compile``
the mask's values are not known, and the written positions need not be: when the value does not depend on
how many elements the mask selects (it broadcasts to one selected element: a Python number, a one-element
tensor, a row for every selected row), the write is ``where(mask, value, t)`` (``t + value`` where
``accumulate``), a graph torch's compiler captures the same way.  Any other case (a value with one entry per
selected element, a mask that does not fit) returns None, and the caller breaks the graph as before, so the
eager run gives torch's result or error.

    >>> import torchlike
    >>> def g(x):
    ...     x = x.clone()
    ...     x[x < 0] = 0.0
    ...     return x
    >>> torchlike.compile(g, fullgraph=True)(torchlike.tensor([-1.0, 2.0]))
    tensor([0., 2.])
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax._src.interpreters.batching import BatchTracer

from .. import _dtype
from .._errors import is_tracer
from ._util import Tensor, dispatch

__all__ = []


def compiled_mask(x):
    """Whether the array ``x`` is traced by ``torchlike.compile`` (or jit), not batched by ``vmap`` (where torch
    raises its data-dependent error for these writes: tests/test_func_vmap_data_dependent.py)."""
    return is_tracer(x) and not isinstance(x, BatchTracer)


def traced_mask(mask):
    """Whether ``mask`` is a bool Tensor index whose values are being traced (see ``compiled_mask``)."""
    return isinstance(mask, Tensor) and mask.dtype is _dtype.bool and mask.ndim > 0 and compiled_mask(mask._value)


def _mask_put_impl(x, m, v, accumulate):
    if accumulate:
        return jnp.where(m, x + v, x)
    return jnp.where(m, v.astype(x.dtype), x)


def masked_put(x, mask, base, v, accumulate=False):
    """``x`` with ``v`` written (added) where the bool ``mask`` selects, its dims being ``x``'s dims
    ``base .. base + mask.ndim``; None where the result would depend on the mask's values (the caller
    breaks the graph).  ``v`` broadcasts to one selected element ``x.shape[base + mask.ndim:]``."""
    shape = tuple(x.shape)
    end = base + mask.ndim
    if end > len(shape) or tuple(mask.shape) != shape[base:end]:
        return None
    trailing = shape[end:]
    vs = tuple(v.shape)
    while len(vs) > len(trailing) and vs[0] == 1:  # (torch strips a value's leading ones)
        vs = vs[1:]
    try:
        if len(vs) > len(trailing) or np.broadcast_shapes(vs, trailing) != trailing:
            return None
    except ValueError:
        return None
    if v.dtype is not x.dtype:
        if accumulate or v.numel() != 1:  # (index_put's dtype error: the eager run raises it)
            return None
        v = v.to(x.dtype)  # a one-element value is a fill value (torch's masked_fill_ path)
    if accumulate and x.dtype is _dtype.bool:
        return None
    m = mask.reshape(tuple(mask.shape) + (1,) * len(trailing))
    return dispatch(_mask_put_impl, (x, m, v.reshape(vs)), (("accumulate", bool(accumulate)),),
                    name="IndexPutBackward0", saves=False)
