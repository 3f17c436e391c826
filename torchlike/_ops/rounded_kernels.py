"""Float kernels rounded as torch's CPU kernels round them, where XLA's differ by an ulp or more: float32 results
computed in float64 and rounded once (expm1, sinh, log2, log10, log1p, with torch's float32 backward), torch's
half-type erf (the vectorized float32 Abramowitz-Stegun kernel its float16/bfloat16 erf runs), half-type
results computed via float64, and the half-type kernels that round a logarithm to the type before the product
(xlogy, xlog1py, entr). Used by pointwise.py and special.py.

>>> import jax.numpy as jnp
>>> float(erf_half_kernel(jnp.float32(1e-8)))
0.0
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from jax import lax

from ._util import round_to

__all__ = ["rounded_from_f64", "true_div", "erf_half_kernel", "half_via_f64", "F64_HALF", "erf_half",
           "log_rounded_half"]

_HALF = (np.dtype(jnp.float16), np.dtype(jnp.bfloat16))


def rounded_from_f64(f, tangent=None):
    """``f`` on float32 computed in float64 and rounded once: XLA's float32 expm1 and sinh are up to ~5 ulp off
    near 0 (torch's: 0.5-0.9 ulp), so mambapy's softplus-inverse init and any expm1 user drifted from torch;
    its log2/log10 (log times a constant, rounded twice) are up to 2.5 ulp off and equal to torch's on only ~65%
    of inputs, log1p up to 2.3 ulp.  ``tangent(x, y, t)``: torch's float32 backward formula (``y``: the rounded
    output); autodiff through the float64 forward rounds the derivative once, 1 ulp off on 12-29% of inputs.

    >>> import jax, jax.numpy as jnp
    >>> log10 = rounded_from_f64(jnp.log10, lambda x, y, t: t / (x * jnp.float32(2.3025850929940456)))
    >>> float(log10(jnp.float32(1000.0))), round(float(jax.grad(log10)(jnp.float32(2.0))), 6)
    (3.0, 0.217147)
    """
    def g32(x):
        return f(x.astype(np.float64)).astype(np.float32)
    if tangent is not None:
        g32 = jax.custom_jvp(g32)

        @g32.defjvp
        def _jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            y = g32(x)
            return y, tangent(x, y, t)

    def g(x):
        return g32(x) if x.dtype == jnp.float32 else f(x)
    return g


def true_div(t, d):
    """``t / d`` kept a division (XLA may rewrite ``a / b`` into ``a * (1 / b)`` for a ``b`` it sees through)."""
    return t / lax.optimization_barrier(d)


def _fma32(a, b, c):
    # float32 a * b + c with one rounding (an FMA): the float32 product is exact in float64
    return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)


def erf_half_kernel(x):
    """torch's vectorized float32 erf, the one its float16/bfloat16 erf runs (converted, then rounded): the
    Abramowitz-Stegun form ``1 - t * r(t) * exp(-x^2)`` with ``t = 1 / (1 + p |x|)``, its FMAs and divisions
    rounded as the AVX2/AVX-512 kernel's (so tiny inputs give 0 and the values sit on a 2**-24 grid; torch's
    float32 erf is another, nearly correctly rounded kernel).  ``x``: float32; float32 result.

    >>> import jax.numpy as jnp
    >>> float(erf_half_kernel(jnp.float32(1e-8)))
    0.0
    """
    a = jnp.abs(x)
    t = (1.0 / _fma32(np.float32(0.3275911), a, 1.0).astype(np.float64)).astype(np.float32)
    r = np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        r = _fma32(r, t, np.float32(c))
    x2 = (x.astype(np.float64) * x).astype(np.float32)
    e = jnp.exp(-x2.astype(np.float64)).astype(np.float32)
    v = _fma32((-e.astype(np.float64) * t).astype(np.float32), r, 1.0)
    return jnp.copysign(v, x)


def half_via_f64(f):
    """``half=`` for ``unary``: ``f`` computed in float64 and rounded to float32 (then to the half type), for
    ops whose float32 XLA kernel is a few ulp off torch's, which a half-type result then rounds the other
    way at ties (float16 lgamma 58 values, i0e 6, erfinv 6, cosh 2, acos 1 of 40,000: 0 or 1 this way)."""
    return lambda x, dt: f(x.astype(np.float64)).astype(np.float32)


F64_HALF = {"lgamma", "cosh", "acos", "erfinv"}


def erf_half(x, dt):
    # the value is torch's half-type kernel's; the derivative stays erf's (the rounding to dt absorbs the rest)
    f = jss.erf(x)
    return f + lax.stop_gradient(erf_half_kernel(x) - f)


def _log_half(log, y, dt):
    # torch's std::log / std::log1p of a c10::Half or BFloat16 (c10/util/BFloat16-math.h): the float32 function,
    # its result stored in the half type; computed in float64 and rounded to float32 first, as glibc's float
    # log is correctly rounded where XLA's float32 log1p is up to 2 ulp off
    return round_to(log(y.astype(np.float64)).astype(np.float32), dt)


def log_rounded_half(f, value):
    """``f`` (a jax function of same-dtype arrays) whose float16/bfloat16 value is torch's scalar half kernel's:
    ``value(*args_f32, log_half)``, where ``log_half(log, y)`` is ``log(y)`` rounded to the half type as
    torch's ``std::log(c10::Half)`` returns it (so ``x * log(y)`` rounds twice: torch's xlogy, xlog1py and entr
    differ from a float32-then-rounded result on ~13% of float16 inputs).  The derivative stays ``f``'s in
    float32; other dtypes run ``f`` as is.  Use with ``opmath_half=False`` (the arguments arrive in the half type).

    >>> import jax.numpy as jnp
    >>> g = log_rounded_half(lambda x, y: x * jnp.log(y), lambda x, y, lh: x * lh(jnp.log, y))
    >>> float(g(jnp.float16(0.045013427734375), jnp.float16(0.045013427734375)))
    -0.1396484375
    """
    def g(*args):
        dt = args[0].dtype
        if dt not in _HALF:
            return f(*args)
        a32 = [a.astype(np.float32) for a in args]
        r = f(*a32)
        v = value(*a32, lambda log, y: _log_half(log, y, dt))
        # (where equal, r itself: an infinite r would turn r + (v - r) into NaN)
        return jnp.where(v == r, r, r + lax.stop_gradient(v - r)).astype(dt)
    return g
