"""Comparisons of whole tensors and membership: isclose, allclose, equal, isin.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .. import _memory_format as _mfmt
from .._shape_churn import exact_dtype, host_impl
from ._util import Tensor, cast, dispatch, register
from . import checks as C
from .checks import need_tensors as _need_tensors

__all__ = []


def _isclose_impl(a, b, dt, rtol, atol, equal_nan):
    a, b = cast(a, dt), cast(b, dt)
    return jnp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register(differentiable=False)
@_mfmt.pointwise_follows((0, "input"), (1, "other"))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (bool tensor)."""
    _need_tensors("isclose", input=input, other=other)
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not tol >= 0:  # NaN fails too, as in torch
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {float(tol):g}")
    if isinstance(other, Tensor) and input.dtype is not other.dtype:
        raise RuntimeError(f"{_dtype.TYPE_NAMES[input.dtype.name]} did not match {_dtype.TYPE_NAMES[other.dtype.name]}")
    d = _dtype.result_type(input, other)
    return dispatch(_isclose_impl, (input, other), (("dt", d.np), ("rtol", float(rtol)), ("atol", float(atol)),
                                                    ("equal_nan", bool(equal_nan))), diff=False)


@register(differentiable=False)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element is close (see isclose).

    >>> import torchlike
    >>> torchlike.allclose(torchlike.tensor([1.0]), torchlike.tensor([1.0 + 1e-9]))
    True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


@register(differentiable=False)
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    try:
        shape = other.shape
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("equal", (other, "Tensor", "other", 1))
        raise
    if tuple(input.shape) != tuple(shape):
        return False
    return bool((input == other).all().item())


def _isin_impl(elements, test, invert):
    r = jnp.isin(elements, test)
    return ~r if invert else r


def _isin_host(elements, test, invert):  # (_shape_churn: generation's stopping check on growing ids)
    e, t = np.asarray(elements), np.asarray(test)
    if not (exact_dtype(e.dtype) and exact_dtype(t.dtype)):
        return None  # floats: XLA compares denormals as zero, numpy does not
    return np.isin(e, t, invert=invert)


host_impl(_isin_impl, _isin_host)


@register(method=False, differentiable=False, out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements``."""
    if not isinstance(elements, Tensor):
        if type(elements) is int and not -2 ** 63 <= elements < 2 ** 64:  # (torch's Scalar conversion of it)
            raise OverflowError("can't convert negative int to unsigned" if elements < 0 else "int too big to convert")
        elements = Tensor._wrap(jnp.asarray(elements)) if not isinstance(test_elements, Tensor) else \
            test_elements.new_tensor(elements)
    return dispatch(_isin_impl, (elements, test_elements), (("invert", bool(invert)),), diff=False)
