"""torchlike.special: the special functions (expit, erfcx, i0e, ndtr, zeta, bessel_j0, ...).

Names that torch also has at top level (erf, digamma, logit, round, ...) are the same functions as
``torchlike.X``; the rest are declared here in the "special" namespace.  ``torch.igamma``/``igammac``
are the top-level twins of ``special.gammainc``/``gammaincc``.

    >>> import torchlike
    >>> torchlike.special.expit(torchlike.tensor([0.]))
    tensor([0.5000])
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
from jax import lax
import numpy as np

from .. import _dtype
from ._util import Tensor, binary, dispatch, register, round_to, unary, wrap_dim
from . import checks as C
from .indexing import c_type_name
from .rounded_kernels import erf_half_kernel, half_via_f64, log_rounded_half
from .registry import TABLE
from .special_bessel_poly import _bessel_j
from .._mutation import write_out

# the special.* functions are table entries (namespace "special"); these are the module-level ones
__all__ = ["igamma", "igammac", "softmax", "log_softmax", "softmax_common"]

_SP = ("special",)


# --- unary functions only in torch.special ----------------------------------------------------------------
def _ndtr(x):
    # torch's calc_ndtr: (1 + erf(x * sqrt(1/2))) * 0.5, so it is 0 below about -5.4 (float32) as in torch
    return (1 + jss.erf(x * np.sqrt(0.5).astype(x.dtype))) * 0.5


def _ndtr_half(x, dt):
    # the same formula in the half type: x * sqrt(1/2) (a float32 constant), erf (torch's half-type erf kernel),
    # 1 + and * 0.5 each rounded; the derivative stays the float32 formula's (the result's final rounding to dt
    # absorbs the float32 sum)
    v = round_to(round_to(1 + round_to(erf_half_kernel(round_to(x * np.float32(np.sqrt(0.5)), dt)), dt), dt) * 0.5,
                 dt)
    f = _ndtr(x)
    return f + lax.stop_gradient(v - f)


@jax.custom_jvp
def _entr(x):
    return jnp.where(x > 0, -x * jnp.log(jnp.where(x > 0, x, 1)),
                     jnp.where(x == 0, 0, jnp.where(x < 0, -jnp.inf, x))).astype(x.dtype)


@_entr.defjvp
def _entr_jvp(primals, tangents):
    # torch's derivative everywhere: -(1 + log x) (inf at 0, nan below 0), not the where's zeros
    (x,), (t,) = primals, tangents
    return _entr(x), -(1 + jnp.log(x)) * t


@jax.custom_jvp
def _log_ndtr(x):
    return jss.log_ndtr(x)


@_log_ndtr.defjvp
def _log_ndtr_jvp(primals, tangents):
    # torch's derivative formula, exp(-(log_ndtr(x) + x^2/2)) / sqrt(2 pi) (it cancels for large negative x,
    # where JAX's own derivative is the more accurate one: the oracle is torch's)
    (x,), (t,) = primals, tangents
    r = jss.log_ndtr(x)
    return r, t * (jnp.exp(-(r + x * x / 2)) / np.sqrt(2 * np.pi)).astype(x.dtype)


def _erfcx(x):
    return jss.erfcx(x)


def _entr_half_grad(dt):
    # _entr whose derivative is torch's in the half type dt: grad * -(1 + log(x)), the log and the sum each
    # stored in dt (the product's rounding is the result's)
    @jax.custom_jvp
    def f(x):
        return _entr(x)

    @f.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), -round_to(1 + round_to(jnp.log(x), dt), dt) * t
    return f


def _entr_half(x, dt):
    # float16/bfloat16 entr: torch's scalar kernel, -x * std::log(x) with the log stored in the half type
    g = log_rounded_half(_entr_half_grad(dt), lambda x, lh: jnp.where(
        jnp.isnan(x), x, jnp.where(x > 0, -x * lh(jnp.log, x), jnp.where(x == 0, 0.0, -jnp.inf))))
    return g(x.astype(dt)).astype(np.float32)


_HALF_KERNELS = {"ndtr": _ndtr_half, "entr": _entr_half}

for _n, _f in [("expit", jax.nn.sigmoid), ("erfcx", _erfcx), ("i0e", jss.i0e), ("i1", jss.i1), ("i1e", jss.i1e),
               ("ndtr", _ndtr), ("ndtri", jss.ndtri), ("log_ndtr", _log_ndtr), ("entr", _entr),
               ("bessel_j0", lambda x: _bessel_j(x, 0)), ("bessel_j1", lambda x: _bessel_j(x, 1))]:
    # torch's bessel_j0/j1 results carry no autograd history
    unary(_n, _f, promote="float", inplace=False, method=False, namespaces=_SP,
          half=_HALF_KERNELS.get(_n, half_via_f64(_f) if _n == "i0e" else None),
          differentiable=not _n.startswith("bessel"), checks=() if _n == "expit" else (C.SPECIAL_UNARY,),
          aten="sigmoid" if _n == "expit" else None)


# --- binary functions ---------------------------------------------------------------------------------------
@jax.custom_jvp
def _xlog1py(x, y):
    return jnp.where(x == 0, jnp.where(jnp.isnan(y), y, 0), x * jnp.log1p(y)).astype(x.dtype)


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    # torch's: log1p(y) for x (also where x is 0), masked to 0 where x == 0 and y <= -1, and x / (y + 1) for y
    (x, y), (tx, ty) = primals, tangents
    dx = jnp.where((x == 0) & (y <= -1), jnp.zeros((), x.dtype), jnp.log1p(y))
    return _xlog1py(x, y), tx * dx + ty * (x / (y + 1))


def _zeta(x, q):
    # torch's (Cephes') edges: x == 1 -> inf, x < 1 -> nan, q a non-positive integer -> inf (JAX differs)
    r = jss.zeta(x, q)
    r = jnp.where((q <= 0) & (q == jnp.floor(q)), jnp.inf, r)
    r = jnp.where(x < 1, jnp.nan, r)
    return jnp.where(x == 1, jnp.inf, r).astype(r.dtype)


def _igam_asymptotic(a, x, upper):
    # Q(a, x) ~ erfc(eta sqrt(a/2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) * c0(eta), eta^2 / 2 = d - log1p(d)
    # with d = x/a - 1, and the next coefficient c1 / a (the rest is O(a^-5/2): below float64's precision
    # past a = 1000)
    dt = a.dtype  # (evaluated in float64 where JAX has it: float32's d and log1p lose ~5 digits here)
    wide = jnp.float64 if jax.config.jax_enable_x64 else dt
    a, x = a.astype(wide), x.astype(wide)
    a = jnp.where(jnp.isfinite(a) & (a > 1000), a, 2000.0)
    d = (x - a) / a
    h = jnp.where(jnp.abs(d) < 1e-3, d * d * (0.5 - d * (1 / 3 - d * (0.25 - d / 5))), d - jnp.log1p(d))
    eta = jnp.sign(d) * jnp.sqrt(2 * jnp.maximum(h, 0))
    c0 = jnp.where(jnp.abs(eta) < 1e-3, -1 / 3 + eta / 12 - 2 * eta * eta / 135,
                   1 / jnp.where(d == 0, 1, d) - 1 / jnp.where(eta == 0, 1, eta))
    c1 = -1 / 540 - jnp.clip(eta, -1, 1) / 288  # (its series: where eta is large, the exp has vanished)
    r = jnp.exp(-a * eta * eta / 2) / jnp.sqrt(2 * jnp.pi * a) * (c0 + c1 / a)
    if upper:
        return (0.5 * jss.erfc(eta * jnp.sqrt(a / 2)) + r).astype(dt)
    return (0.5 * jss.erfc(-eta * jnp.sqrt(a / 2)) - r).astype(dt)  # (P directly: 1 - Q loses P's tiny values)


def _gammainc(a, x, upper):
    """torch's calc_igamma / calc_igammac: its edge cascade, JAX's series for a <= 1000 and Temme's uniform
    asymptotic expansion above (JAX's series is off there in float32, P(1e6, 1e6) = 0.0006 for 1/2, and never
    ends in float64 from a ~ 1e16)."""
    dt = a.dtype
    big = a > 1000
    core = (jss.gammaincc if upper else jss.gammainc)(jnp.where(big, 1, a), jnp.where(big, 1, x))
    core = jnp.where(big, _igam_asymptotic(a, x, upper), core)
    nan, lo, hi = (jnp.asarray(v, dt) for v in (jnp.nan, 0.0, 1.0))
    p0, p1 = (hi, lo) if upper else (lo, hi)  # the values at x == 0 and at x == inf (P: 0 and 1)
    return jnp.where((x < 0) | (a < 0), nan,
           jnp.where(a == 0, jnp.where(x > 0, p1, nan),
           jnp.where(x == 0, p0,
           jnp.where(jnp.isinf(a), jnp.where(jnp.isinf(x), nan, p0),
           jnp.where(jnp.isinf(x), p1, core)))))


# float16/bfloat16 xlog1py: torch's scalar kernel, x * std::log1p(y) with the log1p stored in the half type
_xlog1py_half = log_rounded_half(_xlog1py, lambda x, y, lh: jnp.where(
    jnp.isnan(y), jnp.nan, jnp.where(x == 0, 0.0, x * lh(jnp.log1p, y))))

for _n, _f in [("xlog1py", _xlog1py_half), ("zeta", _zeta), ("gammainc", lambda a, x: _gammainc(a, x, False)),
               ("gammaincc", lambda a, x: _gammainc(a, x, True))]:
    binary(_n, _f, promote="float", inplace=False, method=False, namespaces=_SP, checks=(C.SPECIAL_BINARY,),
           opmath_half=_n != "xlog1py")


@register(inplace=True, out=True, promote="float", checks=(C.tensors_only, C.SPECIAL_BINARY))
def igamma(input, other):
    """The regularized lower incomplete gamma function (same as ``torchlike.special.gammainc``)."""
    return TABLE[("special", "gammainc")].fn(input, other)


@register(inplace=True, out=True, promote="float", checks=(C.tensors_only, C.SPECIAL_BINARY))
def igammac(input, other):
    """The regularized upper incomplete gamma function (same as ``torchlike.special.gammaincc``)."""
    return TABLE[("special", "gammaincc")].fn(input, other)


# --- special.X entries that are torch.X under another name (the same function; errors name torch's op) -------
def _alias(name, target):
    impl = TABLE[("torch", target)].fn

    def fn(*args, **kwargs):
        return impl(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"Same as ``torchlike.{target}``.\n\n    >>> import torchlike\n    >>> " \
                 f"torchlike.special.{name} is not None\n    True\n    "
    return fn


for _n, _target in {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "gammaln": "lgamma", "digamma": "digamma",
                    "psi": "digamma", "polygamma": "polygamma", "multigammaln": "mvlgamma", "i0": "i0",
                    "sinc": "sinc", "xlogy": "xlogy", "round": "round", "exp2": "exp2", "expm1": "expm1",
                    "log1p": "log1p", "logit": "logit"}.items():
    register(_n, namespaces=_SP, method=False, out=True, promote=TABLE[("torch", _target)].promote, aten=_target)(
        _alias(_n, _target))


# --- softmax family: the one implementation behind torch.softmax, Tensor.softmax, special.softmax, F.softmax,
# F.softmin and the log_ forms ----------------------------------------------------------------------------
_HALF = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def _softmax_impl(x, dim, dt, log, neg):
    if neg:  # softmin: torch negates the input in its own dtype (an unsigned integer wraps), then casts
        x = -x
    y = x.astype(dt) if dt is not None else x
    z = y.astype(jnp.float32) if y.dtype in _HALF else y  # half types compute in float32 (torch's opmath)
    if z.ndim == 0:  # a 0-d input is a single-element softmax (dim 0 / -1 allowed, like torch)
        r = jax.nn.log_softmax(z[None], axis=0)[0] if log else jax.nn.softmax(z[None], axis=0)[0]
        return r.astype(y.dtype)
    if log and y.dtype in _HALF and math.prod(z.shape[dim + 1:]) == 1 and z.size:
        # torch's last-dim kernel keeps the sum of exponentials and its log in the half type (each rounded)
        m = lax.stop_gradient(jnp.max(z, axis=dim, keepdims=True))
        s = round_to(jnp.sum(jnp.exp(z - m), axis=dim, keepdims=True), y.dtype)
        return (z - m - round_to(jnp.log(s), y.dtype)).astype(y.dtype)
    r = jax.nn.log_softmax(z, axis=dim) if log else jax.nn.softmax(z, axis=dim)
    return r.astype(y.dtype)


def softmax_common(input, dim, dtype, log, neg=False, name="softmax", dim_pos=None):
    """softmax / log_softmax / softmin of ``input`` along ``dim`` (computed in ``dtype`` when given)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None or isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        # (no position here: the op table's wrapper adds the one torch's parser gives where dim came positionally,
        # the method's counted without self; a keyword has none)
        raise TypeError(f"{name}(): argument 'dim'" + (f" (position {dim_pos})" if dim_pos else "") +
                        f" must be int, not {type(dim).__name__}")
    dim = wrap_dim(dim, input.ndim)
    if neg and input.dtype is _dtype.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    d = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if not d.is_floating_point:
        last = "lastdim_" if dim == max(input.ndim, 1) - 1 else ""
        raise NotImplementedError(f'"{"log_" if log else ""}softmax_{last}kernel_impl" not implemented for '
                                  f"'{_dtype._CAP[d.name]}'")
    return dispatch(_softmax_impl, (input,), (("dim", dim), ("dt", None if dtype is None else d.np), ("log", log),
                                              ("neg", neg)), name="LogSoftmaxBackward0" if log else "SoftmaxBackward0",
                    saves="out")  # (torch's formulas read the result, not the input)


def _softmax_out(out, input, dim, dtype=None, log=False):
    r = (log_softmax if log else softmax)(input, dim, dtype)
    if out.dtype is not r.dtype:  # (torch's softmax out= kernels cast nothing)
        raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(r.dtype)}, but got "
                           f"{c_type_name(out.dtype)} instead")
    return write_out(out, r, "log_softmax" if log else "softmax")


def _log_softmax_out(out, input, dim, dtype=None):
    return _softmax_out(out, input, dim, dtype, log=True)


@register(promote="float", out_form=_softmax_out)
def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given).

    >>> import torchlike
    >>> torchlike.softmax(torchlike.zeros(2), 0)
    tensor([0.5000, 0.5000])
    """
    return softmax_common(input, dim, dtype, False)


@register(promote="float", out_form=_log_softmax_out)
def log_softmax(input, dim, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably.

    >>> import torchlike
    >>> torchlike.log_softmax(torchlike.zeros(2), 0).exp()
    tensor([0.5000, 0.5000])
    """
    return softmax_common(input, dim, dtype, True, name="log_softmax")


@register("softmax", namespaces=_SP, method=False, promote="float")
def special_softmax(input, dim, dtype=None):
    """``torchlike.special.softmax``: :func:`torchlike.softmax` under torch's name for errors.

    >>> import torchlike
    >>> torchlike.special.softmax(torchlike.zeros(2), 0)
    tensor([0.5000, 0.5000])
    """
    return softmax_common(input, dim, dtype, False, name="special_softmax")


@register("log_softmax", namespaces=_SP, method=False, promote="float")
def special_log_softmax(input, dim, *, dtype=None):
    """``torchlike.special.log_softmax``: :func:`torchlike.log_softmax` with ``dtype`` keyword-only.

    >>> import torchlike
    >>> torchlike.special.log_softmax(torchlike.zeros(2), 0).exp()
    tensor([0.5000, 0.5000])
    """
    return softmax_common(input, dim, dtype, True, name="special_log_softmax")


special_softmax.__name__, special_log_softmax.__name__ = "softmax", "log_softmax"
