"""Division: ``div`` (true, 'trunc' and 'floor' rounding), ``floor_divide`` and their operator forms, with
torch's half-type rounding and its fmod-based floor division.

>>> import torchlike
>>> torchlike.div(torchlike.tensor([7, -7]), 2, rounding_mode="trunc")
tensor([ 3, -3])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype
from . import checks as C
from ._util import Tensor, cast, dispatch, exact_div, exact_divisor, float_dtype_for, is_symbolic, laid_out, register

__all__ = ["div", "floor_divide"]


def _div_impl(x, y, dt, mode):
    x, y = cast(x, dt), cast(y, dt)
    if mode is None:
        return exact_div(x, y)
    if jnp.issubdtype(dt, jnp.integer):
        if mode == "trunc":
            return lax.div(*jnp.broadcast_arrays(x, y))  # lax.div does not broadcast
        return jnp.floor_divide(x, y)
    if dt in (jnp.float16, jnp.bfloat16):  # torch rounds half-precision quotients from float32 arithmetic
        wide = _div_impl(x.astype(jnp.float32), y.astype(jnp.float32), jnp.float32, mode).astype(dt)
        if mode != "trunc" or (not is_symbolic(jnp.size(y)) and jnp.size(y) == 1):
            return wide
        # aten's div_trunc of a tensor divisor computes trunc(a / b) in the half type: the float32 quotient is
        # rounded to it before trunc (a one-element divisor takes its opmath scalar path: trunc in float32)
        rounded = jnp.trunc(exact_div(x.astype(jnp.float32), y.astype(jnp.float32)).astype(dt))
        if is_symbolic(jnp.size(y)):  # (a symbolic size: row buckets or export) decided by the value
            return jnp.where(jnp.asarray(jnp.size(y)) == 1, wide, rounded)
        return rounded
    y = exact_divisor(x, y)
    if mode == "trunc":
        return jnp.trunc(x / y)
    return _floor_div_float(*jnp.broadcast_arrays(x, y))


def _floor_div_float(a, b):
    """torch's floating floor division: from fmod (so 1 // 0.001 is 999, not floor(1000.0000000000001)),
    the nearest integer of (a - fmod(a, b)) / b, one less when the remainder's sign differs from b's."""
    mod = lax.rem(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = jnp.floor(div)
    fl = jnp.where(div - fl > 0.5, fl + 1, fl)
    fl = jnp.where(div == 0, jnp.copysign(jnp.zeros_like(div), a / b), fl)
    return lax.stop_gradient(jnp.where(b == 0, a / b, fl))  # torch: zero gradient


# torch's DivBackward0 reads the divisor for both gradients and the dividend only for the divisor's
_DIV_SAVES = ((1,), (0, 1))


@register(inplace=True, out=True, promote="float", dunders=("__truediv__",), aliases=("divide", "true_divide"))
def div(input, other, *, rounding_mode=None):
    """Division; true division (ints -> float) unless ``rounding_mode`` is 'trunc' or 'floor'."""
    return _div(input, other, rounding_mode, True)


def _div(input, other, rounding_mode, diff):
    d = _dtype.result_type(input, other)
    if rounding_mode is None:
        d = float_dtype_for(d)
    elif rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    elif d.is_complex:
        raise C.not_implemented(f"div_{rounding_mode}_cpu", d)
    elif d._kind == 1 and _has_zero_int(other):
        raise RuntimeError("ZeroDivisionError")
    return laid_out(dispatch(_div_impl, (input, other), (("dt", d.np), ("mode", rounding_mode)),
                             name="DivBackward0" if rounding_mode is None else "DivBackward2", diff=diff,
                             saves=_DIV_SAVES),
                    input, other)


def _has_zero_int(other):
    if isinstance(other, Tensor):
        if isinstance(other._value, jax.core.Tracer):
            return False
        return bool(np.any(np.asarray(other._value) == 0))
    return other == 0


register("__itruediv__", namespaces=(), promote="none")(lambda self, other: self.div_(other))
register("__imul__", namespaces=(), promote="none")(lambda self, other: self.mul_(other))


@register(inplace=True, out=True, dunders=("__floordiv__",), checks=(C.DIVISION,), differentiable="floor_divide")
def floor_divide(input, other):
    """Floor division (torch.floor_divide); unlike div(rounding_mode='floor') torch has no derivative for it.

    >>> import torchlike
    >>> torchlike.floor_divide(torchlike.tensor([5., -5.]), 2)
    tensor([ 2., -3.])
    """
    return _div(input, other, "floor", "floor_divide")


register("__rfloordiv__", namespaces=(), promote="none")(lambda self, other: floor_divide(other, self))
register("__ifloordiv__", namespaces=(), promote="none")(lambda self, other: self.floor_divide_(other))
