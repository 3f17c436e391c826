"""c10's checked conversion of a Python number into a tensor's dtype, and torch's x86 float-to-integer cast.

A number written into a tensor (``full``, ``fill_``, ``masked_fill``, ``index_fill``, ``clamp``'s bounds,
``where``'s scalar, ``t[k] = v``) must fit the dtype, else torch raises; a tensor cast from floating point
to an integer type follows the x86 conversion instructions torch's kernels compile to (an out-of-range or
NaN value becomes the integer "indefinite" value, and the narrow types wrap), not XLA's saturation.

    >>> from torchlike import _dtype
    >>> check_scalar_fits(-1, _dtype.uint8)   # an integer wraps (down to -255)
    >>> check_scalar_fits(-0.5, _dtype.uint8)
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type uint8_t without overflow
"""
from __future__ import annotations

import math
import numbers

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _dtype

__all__ = ["check_scalar_fits", "check_numbers_fit", "SCALAR_NAMES", "float_to_int", "float_to_int_np"]

SCALAR_NAMES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
                "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def check_scalar_fits(value, dt):
    """Raise torch's overflow error where Python number ``value`` does not fit dtype ``dt``.

    Integers fit a signed type's range, and an unsigned one's from -max (those wrap); floats must be finite
    and within [min, max] compared in double (so -0.5 does not fit uint8, and 2.0**63 fits int64); a complex
    number with an imaginary part fits no real dtype."""
    if type(value) is int and not -2 ** 63 <= value < 2 ** 64:  # (torch's Scalar of it fails first: int64 or uint64)
        raise OverflowError("can't convert negative int to unsigned" if value < 0 else "int too big to convert")
    if dt.is_complex or dt is _dtype.bool or isinstance(value, bool):
        return
    v = complex(value)
    bad = v.imag != 0
    if not bad and dt.is_floating_point:
        bad = math.isfinite(v.real) and abs(v.real) > float(jnp.finfo(dt.np).max)
    elif not bad:
        info = np.iinfo(dt.np)
        if isinstance(value, numbers.Integral):
            bad = value > info.max or value < (-info.max if info.min == 0 else info.min)
        else:
            bad = not (float(info.min) <= v.real <= float(info.max))  # (NaN too)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {SCALAR_NAMES.get(dt.name, dt.name)} without "
                           "overflow")


def check_numbers_fit(dt, *values):
    """``check_scalar_fits`` for each Python number among ``values`` (tensors and None pass)."""
    for v in values:
        if isinstance(v, numbers.Number):
            check_scalar_fits(v, dt)


# the integer an x86 truncating conversion goes through for each target: the narrow types take the low bits of
# a 32-bit conversion (uint8 of a 64-bit one); a value outside the intermediate's range, or NaN, converts to
# its minimum (the "integer indefinite" value)
_VIA = {np.dtype(np.int8): np.int32, np.dtype(np.int16): np.int32, np.dtype(np.uint16): np.int32,
        np.dtype(np.int32): np.int32, np.dtype(np.uint8): np.int64, np.dtype(np.int64): np.int64}


def _via(dt):
    via = _VIA.get(np.dtype(dt))
    return via, None if via is None else float(2 ** (np.iinfo(via).bits - 1))


def float_to_int_np(a, dt):
    """``float_to_int`` of a numpy array on the host (torch.tensor's and the host tensors' casts)."""
    via, bound = _via(dt)
    if via is None:
        return a.astype(dt)
    t = np.trunc(a.astype(np.float32) if a.dtype.itemsize < 4 else a)
    ok = (t >= -bound) & (t < bound)
    r = np.where(ok, np.where(ok, t, 0).astype(via), np.iinfo(via).min)
    return r.astype(dt)  # (numpy's integer casts wrap)


def float_to_int(x, dt):
    """Real floating array ``x`` cast to integer dtype ``dt`` as torch's CPU kernels do (see the module doc);
    None for the targets XLA's convert already matches or no rule is known for (uint32, uint64)."""
    via, bound = _via(dt)
    if via is None:
        return None
    if x.dtype.itemsize < 4:
        x = x.astype(jnp.float32)  # (halves convert through float, exactly)
    t = jnp.trunc(x)
    ok = (t >= -bound) & (t < bound)
    r = jnp.where(ok, lax.convert_element_type(jnp.where(ok, t, 0), via), np.iinfo(via).min)
    return r if np.dtype(via) == np.dtype(dt) else lax.convert_element_type(r, dt)  # (integer converts wrap)
