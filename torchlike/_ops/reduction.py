"""Reductions."""
from __future__ import annotations

import jax.numpy as jnp

from .. import _dtype
from ._util import Tensor, cast, dims_arg, dispatch, float_dtype_for, register

__all__ = ["sum", "mean"]


def _sum_impl(x, dims, keepdim, dt):
    return jnp.sum(cast(x, dt), axis=dims, keepdims=keepdim)


def _sum_dtype(d, dtype):
    if dtype is not None:
        return _dtype.to_dtype(dtype)
    return _dtype.int64 if d._kind <= 1 else d


@register(out=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all dims by default); ints and bools accumulate in int64."""
    dims = dims_arg(dim, input.ndim)
    if dims == ():
        dims = None
    dt = _sum_dtype(input.dtype, dtype)
    return dispatch(_sum_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", dt.np)),
                    name="SumBackward0" if dims is None else "SumBackward1", saves=False)


def _mean_impl(x, dims, keepdim, dt):
    return jnp.mean(cast(x, dt), axis=dims, keepdims=keepdim)


@register(out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim``; integer inputs need an explicit float ``dtype``, as in torch."""
    d = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_dtype._CAP[d.name]}")
    dims = dims_arg(dim, input.ndim)
    if dims == ():
        dims = None
    return dispatch(_mean_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", d.np)),
                    name="MeanBackward0" if dims is None else "MeanBackward1", saves=False)
