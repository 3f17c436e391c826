"""torchlike.special: the special functions (expit, erfcx, i0e, ndtr, zeta, bessel_j0, ...).

Names that torch also has at top level (erf, digamma, logit, round, ...) are the same functions as
``torchlike.X``; the rest are declared here in the "special" namespace.  ``torch.igamma``/``igammac``
are the top-level twins of ``special.gammainc``/``gammaincc``.

    >>> import torchlike
    >>> torchlike.special.expit(torchlike.tensor([0.]))
    tensor([0.5000])
"""
from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from .. import _dtype
from ._util import Tensor, binary, cast, dispatch, float_dtype_for, register, unary, wrap_dim
from .registry import TABLE, write_out

# the special.* functions are table entries (namespace "special"); these are the module-level ones
__all__ = ["igamma", "igammac", "softmax", "log_softmax", "logsumexp"]

_SP = ("special",)


# --- unary functions only in torch.special ----------------------------------------------------------------
def _ndtr(x):
    return 0.5 * jss.erfc(-x / np.sqrt(2).astype(x.dtype))


def _entr(x):
    return jnp.where(x > 0, -x * jnp.log(jnp.where(x > 0, x, 1)),
                     jnp.where(x == 0, 0, jnp.where(x < 0, -jnp.inf, x))).astype(x.dtype)


def _erfcx(x):
    return jss.erfcx(x)


# Bessel J0/J1: the trapezoid rule on J_n(x) = (1/2pi) int_0^2pi cos(n t - x sin t) dt is spectrally
# accurate for |x| well below the number of nodes; beyond that the Hankel asymptotic series is.
_NODES = 160
_SWITCH = 60.0


def _bessel_j(x, n):
    dt = x.dtype
    xd = x.astype(jnp.float64)
    ax = jnp.abs(xd)
    t = jnp.arange(_NODES, dtype=jnp.float64) * (2 * np.pi / _NODES)
    xs = jnp.where(ax < _SWITCH, xd, 0.0)
    quad = jnp.mean(jnp.cos(n * t - xs[..., None] * jnp.sin(t)), axis=-1)
    # Hankel expansion (valid for large |x|): J_n ~ sqrt(2/(pi x)) (P cos chi - Q sin chi)
    xa = jnp.where(ax < _SWITCH, _SWITCH, ax)
    mu = 4.0 * n * n
    P, Q = jnp.ones_like(xa), jnp.zeros_like(xa)
    term = jnp.ones_like(xa)
    for k in range(1, 16):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * xa)
        if k % 2:
            Q = Q + (term if (k // 2) % 2 == 0 else -term)
        else:
            P = P + (term if (k // 2) % 2 == 0 else -term)
    chi = xa - (n / 2 + 0.25) * np.pi
    asym = jnp.sqrt(2 / (np.pi * xa)) * (P * jnp.cos(chi) - Q * jnp.sin(chi))
    if n % 2:
        asym = jnp.sign(xd) * asym
    return jnp.where(ax < _SWITCH, quad, asym).astype(dt)


for _n, _f in [("expit", jax.nn.sigmoid), ("erfcx", _erfcx), ("i0e", jss.i0e), ("i1", jss.i1), ("i1e", jss.i1e),
               ("ndtr", _ndtr), ("ndtri", jss.ndtri), ("log_ndtr", jss.log_ndtr), ("entr", _entr),
               ("bessel_j0", lambda x: _bessel_j(x, 0)), ("bessel_j1", lambda x: _bessel_j(x, 1))]:
    # torch's bessel_j0/j1 results carry no autograd history
    unary(_n, _f, promote="float", inplace=False, method=False, namespaces=_SP,
          differentiable=not _n.startswith("bessel"))


# --- binary functions ---------------------------------------------------------------------------------------
def _xlog1py(x, y):
    return jnp.where(x == 0, jnp.where(jnp.isnan(y), y, 0), x * jnp.log1p(y)).astype(x.dtype)


def _zeta(x, q):
    return jss.zeta(x, q)


for _n, _f in [("xlog1py", _xlog1py), ("zeta", _zeta), ("gammainc", jss.gammainc), ("gammaincc", jss.gammaincc)]:
    binary(_n, _f, promote="float", inplace=False, method=False, namespaces=_SP)
@register(inplace=True, out=True, promote="float")
def igamma(input, other):
    """The regularized lower incomplete gamma function (same as ``torchlike.special.gammainc``)."""
    return TABLE["gammainc"].fn(input, other)


@register(inplace=True, out=True, promote="float")
def igammac(input, other):
    """The regularized upper incomplete gamma function (same as ``torchlike.special.gammaincc``)."""
    return TABLE["gammaincc"].fn(input, other)


# --- aliases of top-level ops ------------------------------------------------------------------------------
def _alias(name, target):
    def fn(*args, out=None, **kwargs):
        r = TABLE[target].fn(*args, **kwargs)
        return r if out is None else write_out(out, r)
    fn.__name__ = name
    fn.__doc__ = f"Same as ``torchlike.{target}``."
    return fn


_ALIASES = {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "gammaln": "lgamma", "digamma": "digamma",
            "psi": "digamma", "polygamma": "polygamma", "multigammaln": "mvlgamma", "i0": "i0", "sinc": "sinc",
            "xlogy": "xlogy", "round": "round", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p",
            "logit": "logit"}


# --- softmax family -------------------------------------------------------------------------------------------
def _softmax_impl(x, dim, dt, log):
    x = cast(x, dt)
    return jax.nn.log_softmax(x, axis=dim) if log else jax.nn.softmax(x, axis=dim)


def _softmax_common(input, dim, dtype, log):
    d = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    if not (d.is_floating_point or d.is_complex):
        kernel = "log_softmax_lastdim_kernel_impl" if log else "softmax_lastdim_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[d.name]}\'')
    nd = max(input.ndim, 1)
    dm = wrap_dim(dim, nd)
    if input.ndim == 0:
        return dispatch(_softmax_impl, (input.reshape(1),), (("dim", 0), ("dt", d.np), ("log", log)),
                        name="LogSoftmaxBackward0" if log else "SoftmaxBackward0").reshape(())
    return dispatch(_softmax_impl, (input,), (("dim", dm), ("dt", d.np), ("log", log)),
                    name="LogSoftmaxBackward0" if log else "SoftmaxBackward0")


def softmax(input, dim, *, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given).

    >>> import torchlike
    >>> torchlike.special.softmax(torchlike.zeros(2), 0)
    tensor([0.5000, 0.5000])
    """
    return _softmax_common(input, dim, dtype, False)


def log_softmax(input, dim, *, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably.

    >>> import torchlike
    >>> torchlike.special.log_softmax(torchlike.zeros(2), 0).exp()
    tensor([0.5000, 0.5000])
    """
    return _softmax_common(input, dim, dtype, True)


def _lse_impl(x, dims, keepdim, dt):
    x = cast(x, dt)
    if x.ndim == 0:
        return x
    m = jax.lax.stop_gradient(jnp.max(x, axis=dims, keepdims=True))
    m = jnp.where(jnp.isfinite(m), m, 0)
    r = jnp.log(jnp.sum(jnp.exp(x - m), axis=dims, keepdims=True)) + m
    return r if keepdim else jnp.squeeze(r, axis=dims)


def logsumexp(input, dim=(), keepdim=False, *, out=None):
    """``log(sum(exp(x)))`` over ``dim``, computed stably (ints promote to the default float).

    >>> import torchlike
    >>> round(torchlike.special.logsumexp(torchlike.zeros(2), 0).item(), 4)
    0.6931
    """
    d = float_dtype_for(input.dtype)
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(sorted({wrap_dim(x, max(input.ndim, 1)) for x in dim})) if len(dim) else tuple(range(input.ndim))
    if input.ndim == 0:
        dims = ()
    r = dispatch(_lse_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", d.np)),
                 name="LogsumexpBackward0")
    return r if out is None else write_out(out, r)


def _install():
    mod = sys.modules["torchlike.special"] if "torchlike.special" in sys.modules else None
    if mod is None:
        import importlib
        mod = importlib.import_module("torchlike.special")
    for n, target in _ALIASES.items():
        setattr(mod, n, _alias(n, target))
    mod.softmax, mod.log_softmax, mod.logsumexp = softmax, log_softmax, logsumexp


_install()


def _install_guards():
    # torch's special kernels reject complex inputs (and igamma rejects integer ones) by kernel name
    from .pointwise2 import _guard, _ni

    def unary_check(n, input, *a, **k):
        if isinstance(input, Tensor) and input.dtype.is_complex:
            raise _ni({"ndtr": "erf_vml_cpu"}.get(n, f"{n}_cpu"), input.dtype)

    def binary_check(n, input, other, *a, **k):
        d = _dtype.result_type(input, other)
        kernel = {"gammainc": "igamma_cpu", "gammaincc": "igammac_cpu", "igamma": "igamma_cpu",
                  "igammac": "igammac_cpu"}.get(n, f"{n}_cpu")
        if d.is_complex or (n in ("gammainc", "gammaincc", "igamma", "igammac") and d._kind <= 1):
            raise _ni(kernel, d)

    _guard(["erfcx", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "entr", "bessel_j0", "bessel_j1"], unary_check)
    _guard(["xlog1py", "zeta", "gammainc", "gammaincc", "igamma", "igammac"], binary_check)


_install_guards()
