"""More of torch.special: Airy Ai, Bessel Y0/Y1, modified Bessel I0/I1/K0/K1 (and scaled K), spherical
j0, and the orthogonal polynomials (Chebyshev T/U/V/W and their shifted forms, Hermite H/He, Laguerre,
Legendre).

Like torch, none of these is differentiable.  The Bessel functions (and J0/J1, which special.py declares)
are evaluated in float64 from their power series near 0 and, further out, from the Hankel expansion
(J0, J1, Y0, Y1, Ai for x < 0) or the integral
``K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt`` (K0, K1, Ai for x > 0), whose trapezoid rule converges
geometrically.  The polynomials follow torch's evaluation exactly: ``n`` is truncated to an integer,
``n < 0`` gives 0, the values at the interval ends are exact, large ``n`` inside (-1, 1) uses the
trigonometric closed form, and otherwise the three-term recurrence runs in the result dtype.

    >>> import torchlike
    >>> torchlike.special.chebyshev_polynomial_t(torchlike.tensor([0.5, 2.0]), 3)
    tensor([-1., 26.])
"""
from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from jax import lax

from .. import _dtype
from .. import _memory_format as _mfmt
from ._util import Tensor, cast, dispatch, float_dtype_for, register, unary
from .._mutation import write_out

# every function here is a table entry in namespace "special"; the module exports none by name
__all__ = []

_SP = ("special",)
_EULER = 0.57721566490153286061
_F64 = jnp.float64


# --- power series near 0 -------------------------------------------------------------------------------
def _series_j_y(x, terms=42):
    """(J0, J1, Y0, Y1) from their ascending series (x > 0, moderate)."""
    q = -(x * x) / 4  # alternating: (-x^2/4)^k
    t0 = jnp.ones_like(x)          # (-x^2/4)^k / (k!)^2
    t1 = x / 2                     # (x/2) (-x^2/4)^k / (k! (k+1)!)
    j0, j1 = t0, t1
    h = 0.0                        # H_k
    s0 = jnp.zeros_like(x)         # sum_{k>=1} H_k t0_k  (sign included in t0)
    s1 = t1 * (2 * -_EULER + 1.0)  # sum_k (psi(k+1) + psi(k+2)) t1_k
    for k in range(1, terms):
        t0 = t0 * q / (k * k)
        t1 = t1 * q / (k * (k + 1))
        h += 1.0 / k
        j0 = j0 + t0
        j1 = j1 + t1
        s0 = s0 + h * t0
        s1 = s1 + (2 * (h - _EULER) + 1.0 / (k + 1)) * t1
    lg = jnp.log(x / 2)
    y0 = (2 / np.pi) * ((lg + _EULER) * j0 - s0)
    y1 = -2 / (np.pi * x) + (2 / np.pi) * lg * j1 - s1 / np.pi
    return j0, j1, y0, y1


def _hankel(x, nu, terms=18):
    """(P, Q, chi) of the large-x expansion: J = A (P cos chi - Q sin chi), Y = A (P sin chi + Q cos chi)."""
    mu = 4.0 * nu * nu
    P, Q, term = jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x)
    for k in range(1, terms):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            Q = Q + sign * term
        else:
            P = P + sign * term
    return P, Q, x - (nu / 2 + 0.25) * np.pi


_Y_SWITCH = 12.0


def _bessel_j(x, n):
    """J0/J1 from the ascending series for |x| <= 12 and the Hankel expansion beyond (both within 3e-12 of
    scipy's j0/j1 in float64); J1 is odd, J0 even, and J(+-inf) is NaN as in torch."""
    dt = x.dtype
    xd = x.astype(_F64)
    ax = jnp.abs(xd)
    ser = _series_j_y(jnp.where(ax <= _Y_SWITCH, ax, 1.0))[n]
    big = jnp.where(ax > _Y_SWITCH, ax, 2 * _Y_SWITCH)
    P, Q, chi = _hankel(big, n)
    out = jnp.where(ax <= _Y_SWITCH, ser, jnp.sqrt(2 / (np.pi * big)) * (P * jnp.cos(chi) - Q * jnp.sin(chi)))
    if n:
        out = jnp.where(xd < 0, -out, out)
    return jnp.where(jnp.isnan(xd) | jnp.isinf(xd), jnp.nan, out).astype(dt)


def _bessel_y(x, n):
    dt = x.dtype
    xd = x.astype(_F64)
    small = jnp.where((xd > 0) & (xd <= _Y_SWITCH), xd, 1.0)
    ser = _series_j_y(small)[2 + n]
    big = jnp.where(xd > _Y_SWITCH, xd, 2 * _Y_SWITCH)
    P, Q, chi = _hankel(big, n)
    asym = jnp.sqrt(2 / (np.pi * big)) * (P * jnp.sin(chi) + Q * jnp.cos(chi))
    out = jnp.where(xd <= _Y_SWITCH, ser, asym)
    out = jnp.where(xd == 0, -jnp.inf, out)
    out = jnp.where(xd < 0, jnp.nan, out)
    out = jnp.where(jnp.isnan(xd) | (xd == jnp.inf), jnp.nan, out)  # torch: Y(inf) is NaN
    return out.astype(dt)


# --- modified Bessel K: series below 1, the cosh integral above ---------------------------------------
# The integrand exp(-x (cosh t - 1)) cosh(nu t) is analytic in the strip |Im t| < pi/2, so the trapezoid
# rule's error falls like exp(-pi^2 / h): 16 nodes over [0, arccosh(1 + 40/x)] (the tail below e^-40) are
# within 1e-13 of scipy's k0/k1 for every x >= 1 (96 nodes cost 6x the time for no gain in float64).
_K_NODES = 16


def _k_series(x):
    """(K0, K1) for 0 < x <= ~2 from the ascending series."""
    q = x * x / 4
    t0 = jnp.ones_like(x)
    t1 = x / 2
    i0, i1 = t0, t1
    h = 0.0
    s0 = jnp.zeros_like(x)
    s1 = t1 * (2 * -_EULER + 1.0)
    for k in range(1, 30):
        t0 = t0 * q / (k * k)
        t1 = t1 * q / (k * (k + 1))
        h += 1.0 / k
        i0, i1 = i0 + t0, i1 + t1
        s0 = s0 + h * t0
        s1 = s1 + (2 * (h - _EULER) + 1.0 / (k + 1)) * t1
    lg = jnp.log(x / 2)
    k0 = -(lg + _EULER) * i0 + s0
    k1 = 1 / x + lg * i1 - s1 / 2
    return k0, k1


def _k_scaled_integral(x, nu):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt by the trapezoid rule (x >= ~0.5)."""
    top = jnp.arccosh(1 + 40 / x)
    j = jnp.arange(_K_NODES, dtype=_F64)
    t = top[..., None] * (j / (_K_NODES - 1))
    cm1 = 2 * jnp.sinh(t / 2) ** 2  # cosh t - 1 without cancellation
    f = jnp.exp(-x[..., None] * cm1)
    if nu:  # cosh(t) = 1 + (cosh t - 1): no second transcendental per node for K1
        f = f * (1 + cm1 if nu == 1 else jnp.cosh(nu * t))
    w = jnp.where(j == 0, 0.5, 1.0)
    return jnp.sum(f * w, axis=-1) * top / (_K_NODES - 1)


def _bessel_k(x, n, scaled):
    dt = x.dtype
    xd = x.astype(_F64)
    small = jnp.where((xd > 0) & (xd <= 1.0), xd, 1.0)
    ser = _k_series(small)[n]
    if scaled:
        ser = ser * jnp.exp(small)
    big = jnp.where(xd > 1.0, xd, 2.0)
    integ = _k_scaled_integral(big, float(n))
    if not scaled:
        integ = integ * jnp.exp(-big)
    out = jnp.where(xd <= 1.0, ser, integ)
    out = jnp.where(xd == 0, jnp.inf, out)
    out = jnp.where(xd < 0, jnp.nan, out)
    out = jnp.where(xd == jnp.inf, 0.0, out)
    return jnp.where(jnp.isnan(xd), jnp.nan, out).astype(dt)


# --- Airy Ai -----------------------------------------------------------------------------------------
_AI0 = 0.355028053887817239260  # Ai(0)
_AIP0 = 0.258819403792806798405  # -Ai'(0)
_AI_NEG = -10.0


def _airy_series(x, terms=48):
    x3 = x * x * x
    f = jnp.ones_like(x)
    g = x
    sf, sg = f, g
    for k in range(1, terms):
        f = f * x3 / ((3 * k - 1) * (3 * k))
        g = g * x3 / ((3 * k) * (3 * k + 1))
        sf, sg = sf + f, sg + g
    return _AI0 * sf - _AIP0 * sg


def _airy_neg_asym(z, terms=14):
    """Ai(-z) for large z > 0."""
    zeta = 2.0 / 3.0 * z * jnp.sqrt(z)
    u = 1.0
    P, Q = jnp.ones_like(z), jnp.zeros_like(z)
    zp = jnp.ones_like(z)
    for k in range(1, terms):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k)
        zp = zp / zeta
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            Q = Q + sign * u * zp
        else:
            P = P + sign * u * zp
    th = zeta - np.pi / 4
    return (jnp.cos(th) * P + jnp.sin(th) * Q) / (np.sqrt(np.pi) * jnp.sqrt(jnp.sqrt(z)))


def _airy_ai(x):
    dt = x.dtype
    xd = x.astype(_F64)
    mid = jnp.where((xd >= _AI_NEG) & (xd <= 1.0), xd, 0.0)
    ser = _airy_series(mid)
    neg = jnp.where(xd < _AI_NEG, -xd, -_AI_NEG)
    asym = _airy_neg_asym(neg)
    pos = jnp.where(xd > 1.0, xd, 2.0)
    zeta = 2.0 / 3.0 * pos * jnp.sqrt(pos)
    kpos = jnp.sqrt(pos / 3) / np.pi * _k_scaled_integral(zeta, 1.0 / 3.0) * jnp.exp(-zeta)
    out = jnp.where(xd < _AI_NEG, asym, jnp.where(xd <= 1.0, ser, kpos))
    # torch's Ai(+-inf) is NaN (its vectorised float64 path sometimes gives 0 for +inf)
    out = jnp.where(jnp.isinf(xd), jnp.nan, out)
    return jnp.where(jnp.isnan(xd), jnp.nan, out).astype(dt)


def _spherical_j0(x):
    ax = jnp.abs(x)
    x2 = x * x
    ser = 1 + x2 * (-1 / 6 + x2 * (1 / 120 + x2 * (-1 / 5040 + x2 * (1 / 362880 + x2 * (
        -1 / 39916800 + x2 * (1 / 6227020800))))))
    safe = jnp.where(ax < 0.5, 1.0, x)
    out = jnp.where(ax < 0.5, ser, jnp.sin(safe) / safe)
    return jnp.where(jnp.isinf(x), 0.0, out).astype(x.dtype)


for _n, _f in [("airy_ai", _airy_ai), ("bessel_y0", lambda x: _bessel_y(x, 0)),
               ("bessel_y1", lambda x: _bessel_y(x, 1)),
               ("modified_bessel_i0", lambda x: jss.i0(x.astype(_F64)).astype(x.dtype)),
               ("modified_bessel_i1", lambda x: jss.i1(x.astype(_F64)).astype(x.dtype)),
               ("modified_bessel_k0", lambda x: _bessel_k(x, 0, False)),
               ("modified_bessel_k1", lambda x: _bessel_k(x, 1, False)),
               ("scaled_modified_bessel_k0", lambda x: _bessel_k(x, 0, True)),
               ("scaled_modified_bessel_k1", lambda x: _bessel_k(x, 1, True)),
               ("spherical_bessel_j0", _spherical_j0)]:
    unary(_n, _f, promote="float", inplace=False, method=False, namespaces=_SP, differentiable=False)


# --- orthogonal polynomials --------------------------------------------------------------------------
def _recur(kind, x, n):
    """Value of degree ``n`` (int64 array, n >= 1 where used) by the three-term recurrence."""
    one = jnp.ones_like(x)
    two_x = x + x
    if kind in ("t", "u", "v", "w"):
        q1 = {"t": x, "u": two_x, "v": two_x - 1, "w": two_x + 1}[kind]
    elif kind == "h":
        q1 = two_x
    elif kind == "he" or kind == "p":
        q1 = x
    else:  # laguerre
        q1 = 1 - x
    nmax = jnp.max(jnp.where(n >= 1, n, 1)) if n.size else jnp.asarray(1, n.dtype)

    def body(j, pq):
        p, q = pq
        jf = j.astype(x.dtype)
        if kind in ("t", "u", "v", "w"):
            r = two_x * q - p
        elif kind == "h":
            r = two_x * q - (jf + jf) * p
        elif kind == "he":
            r = x * q - jf * p
        elif kind == "p":
            r = ((jf + jf + 1) * x * q - jf * p) / (jf + 1)
        else:
            r = ((jf + jf + (1 - x)) * q - jf * p) / (jf + 1)
        live = j < n  # iteration j produces degree j + 1
        return jnp.where(live, q, p), jnp.where(live, r, q)

    _, q = lax.fori_loop(1, nmax, body, (jnp.broadcast_to(one, q1.shape), q1))
    return q, q1


def _poly_impl(x, n, kind, shifted, dt):
    x = cast(x, dt)
    nf = cast(n, dt)
    x, nf = jnp.broadcast_arrays(x, nf)
    # C's float->int64 conversion gives INT64_MIN for NaN/inf/out-of-range: a negative degree
    n = jnp.where(jnp.isfinite(nf) & (jnp.abs(nf) < 9.2e18), nf, -1).astype(jnp.int64)
    if shifted:
        x = x + x - 1
    even = n % 2 == 0
    nn = n.astype(dt)
    q, q1 = _recur(kind, x, n)
    out = jnp.where(n == 0, 1.0, jnp.where(n == 1, q1, q)).astype(dt)
    ax = jnp.abs(x)
    inside = ax < 1
    th = jnp.arccos(jnp.where(inside, x, 0.0))
    lim = 4 if (shifted and kind == "w") else (6 if (kind == "t" or shifted) else 8)
    big = (n > lim) & inside
    if kind == "t":
        out = jnp.where(big, jnp.cos(nn * th), out)
        edge = jnp.where((x > 0) | even, 1.0, -1.0)
        out = jnp.where(ax == 1, edge, out)
    elif kind == "u":
        s = jnp.sin(th)
        closed = jnp.where(s != 0, jnp.sin((nn + 1) * th) / jnp.where(s != 0, s, 1.0),
                           (nn + 1) * jnp.cos((nn + 1) * th) / x)
        out = jnp.where(big, closed, out)
        out = jnp.where(ax == 1, jnp.where((x > 0) | even, nn + 1, -(nn + 1)), out)
    elif kind == "v":
        c = jnp.cos(th / 2)
        closed = jnp.where(jnp.sin(th / 2) != 1, jnp.cos((nn + 0.5) * th) / c,
                           jnp.where(even, nn + nn + 1, -(nn + nn + 1)))
        out = jnp.where(big, closed, out)
        out = jnp.where(ax == 1, jnp.where(x > 0, 1.0, jnp.where(even, nn + nn + 1, -(nn + nn + 1))), out)
    elif kind == "w":
        s = jnp.sin(th / 2)
        closed = jnp.where(jnp.cos(th / 2) != 1, jnp.sin((nn + 0.5) * th) / s,
                           jnp.where(x > 0, nn + nn + 1, jnp.where(even, 1.0, -1.0)))
        out = jnp.where(big, closed, out)
        out = jnp.where(ax == 1, jnp.where(x > 0, nn + nn + 1, jnp.where(even, 1.0, -1.0)), out)
    elif kind == "p":
        out = jnp.where(ax == 1, jnp.where((x > 0) | even, 1.0, -1.0), out)
    elif kind == "l":
        out = jnp.where(x == 0, 1.0, out)
    return jnp.where(n < 0, 0.0, out).astype(dt)


def _poly(name, kind, shifted=False):
    @_mfmt.pointwise_follows((0, "x"), (1, "n"))
    def fn(x, n, *, out=None):  # (torch's parameter names: x, n)
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
        d = float_dtype_for(_dtype.result_type(x, n))
        r = dispatch(_poly_impl, (x, n), (("kind", kind), ("shifted", shifted), ("dt", d.np)),
                     name=name, diff=False)
        if out is not None:
            return write_out(out, r)
        return r
    fn.__name__ = name
    fn.__doc__ = (f"torch.special.{name}(x, n): the polynomial of degree ``n`` (truncated to an integer) at "
                  f"``x``.\n\n    >>> import torchlike\n    >>> torchlike.special.{name}("
                  f"torchlike.tensor([0.5]), 0)\n    tensor([1.])\n    ")
    register(name, namespaces=_SP, method=False, promote="float", differentiable=False)(fn)


for _name, _kind, _shift in [("chebyshev_polynomial_t", "t", False), ("chebyshev_polynomial_u", "u", False),
                             ("chebyshev_polynomial_v", "v", False), ("chebyshev_polynomial_w", "w", False),
                             ("shifted_chebyshev_polynomial_t", "t", True),
                             ("shifted_chebyshev_polynomial_u", "u", True),
                             ("shifted_chebyshev_polynomial_v", "v", True),
                             ("shifted_chebyshev_polynomial_w", "w", True),
                             ("hermite_polynomial_h", "h", False), ("hermite_polynomial_he", "he", False),
                             ("laguerre_polynomial_l", "l", False), ("legendre_polynomial_p", "p", False)]:
    _poly(_name, _kind, _shift)

