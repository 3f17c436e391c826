"""The sampling primitives behind Gamma, Dirichlet and Binomial (torch's ``_standard_gamma``,
``_sample_dirichlet`` and ``binomial``).

In eager CPU code the values are torch's for the same seed (``torchlike/_mt_rejection.py``);
compiled code draws from JAX keys.  Gamma samples are reparameterized like torch's: the gradient
with respect to the concentration is torch's ``_standard_gamma_grad`` formula.

>>> import torchlike
>>> from torchlike.distributions._sampling import standard_gamma
>>> _ = torchlike.manual_seed(0)
>>> standard_gamma(torchlike.tensor([0.5, 2.0]))
tensor([0.0008, 0.6315])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import ml_dtypes

import torchlike
from torchlike._dispatch import dispatch
from torchlike._random import draw
from torchlike._mt_rejection import dirichlet_normalize

__all__ = ["standard_gamma", "sample_dirichlet", "binomial", "TOPLEVEL"]

_UV = np.array([[0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
                [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
                 -0.00058392623],
                [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
                 0.00085092367, -1.5247877e-07]])


def _gamma_grad(alpha_in, x_in):
    """torch's reparameterized gradient d x / d alpha of a Gamma(alpha, 1) sample x (computed in double):
    a series for x < 0.8, Rice's saddle point for alpha > 8, a rational fit otherwise."""
    dt = alpha_in.dtype
    x, alpha = x_in.astype(jnp.float64), alpha_in.astype(jnp.float64)
    # small x: Taylor series of the incomplete gamma function
    numer, denom = jnp.ones_like(x), alpha
    s1, s2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        s1 = s1 + numer / denom
        s2 = s2 + numer / (denom * denom)
    pow_xa = jnp.power(x, alpha)
    pdf = jnp.power(x, alpha - 1) * jnp.exp(-x)
    cdf = pow_xa * s1
    cdf_a = (jnp.log(x) - jax.scipy.special.digamma(alpha)) * cdf - pow_xa * s2
    small = -cdf_a / pdf
    small = jnp.where(jnp.isnan(small), 0.0, small)
    # large alpha: saddle point
    near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
    n1 = 1 + 24 * alpha * (1 + 12 * alpha)
    n2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
    near_v = n1 * n2 / (1244160 * (alpha * alpha) * (alpha * alpha))
    den = jnp.sqrt(8 * alpha)
    t2 = den / (alpha - x)
    t3 = jnp.power(x - alpha - alpha * jnp.log(x / alpha), -1.5)
    t23 = jnp.where(x < alpha, t2 - t3, t2 + t3)
    t1 = jnp.log(x / alpha) * t23 - jnp.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far_v = -stirling * (x * t1) / den
    large = jnp.where(near, near_v, far_v)
    # otherwise: a bivariate rational approximation
    u, v = jnp.log(x / alpha), jnp.log(alpha)
    cv = [_UV[0, i] + u * (_UV[1, i] + u * _UV[2, i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    mid = jnp.exp(p / q)
    out = jnp.where(x < 0.8, small, jnp.where(alpha > 8.0, large, mid))
    return out.astype(dt)


@jax.custom_jvp
def _reparam(alpha, x):
    return x


@_reparam.defjvp
def _reparam_jvp(primals, tangents):
    alpha, x = primals
    return x, _gamma_grad(alpha, x) * tangents[0]


def _as_tensor(x, like):
    return torchlike.Tensor._wrap(x, like._dev)


def standard_gamma(conc, generator=None):
    """Gamma(conc, 1) samples of ``conc``'s shape and dtype (torch's ``_standard_gamma``), differentiable
    w.r.t. ``conc``."""
    x = draw("gamma", tuple(conc.shape), conc.dtype.np, generator, args=(conc._value,))
    return dispatch(_reparam, (conc, _as_tensor(x, conc)), name="StandardGammaBackward0")


def _normalize(g, dt):
    x = (g / g.sum(-1, keepdims=True)).astype(dt)
    return jnp.minimum(jnp.maximum(x, ml_dtypes.finfo(dt).tiny), np.nextafter(dt.type(1), dt.type(0)))


def _beta_marginal_grad(x, alpha, total):
    """d x / d alpha for x ~ Beta(alpha, beta = total - alpha) with beta held fixed, divided by (1 - x): the
    implicit reparameterization gradient -(d/d alpha cdf(x; alpha, beta)) / pdf(x; alpha, beta) / (1 - x) in
    terms of which torch writes the Dirichlet gradient (``_dirichlet_grad``).  The CDF's alpha-derivative is a
    central difference of the regularized incomplete beta in double precision, taken in whichever tail is the
    smaller so nothing cancels.  torch evaluates a fitted approximation of the same quantity; the two agree
    to about 1e-3 relative (docs/differences.md)."""
    x, alpha, total = (v.astype(jnp.float64) for v in (x, alpha, total))
    beta = total - alpha
    h = 1e-4 * alpha
    lower = x <= alpha / total  # the sample sits below the mean: its lower tail is the small one

    def cdf(a):
        return jnp.where(lower, jax.scipy.special.betainc(a, beta, x),
                         -jax.scipy.special.betainc(beta, a, 1 - x))  # 1 - cdf, up to the constant

    d_cdf = (cdf(alpha + h) - cdf(alpha - h)) / (2 * h)
    log_pdf = (alpha - 1) * jnp.log(x) + (beta - 1) * jnp.log1p(-x) - jax.scipy.special.betaln(alpha, beta)
    out = -d_cdf / jnp.exp(log_pdf) / (1 - x)
    return jnp.where(jnp.isfinite(out), out, 0.0)


@jax.custom_jvp
def _dirichlet_reparam(alpha, x):
    return x


@_dirichlet_reparam.defjvp
def _dirichlet_reparam_jvp(primals, tangents):
    # torch: grad_alpha = D * (grad_x - sum(x * grad_x)), D = _beta_marginal_grad(x, alpha, sum(alpha));
    # its transpose, dx = D * d_alpha - x * sum(D * d_alpha), is the tangent map
    alpha, x = primals
    d = _beta_marginal_grad(x, alpha, jnp.broadcast_to(alpha.sum(-1, keepdims=True), alpha.shape)).astype(x.dtype)
    da = d * tangents[0]
    return x, da - x * da.sum(-1, keepdims=True)


def sample_dirichlet(conc, generator=None):
    """Dirichlet samples over the last dim of ``conc`` (torch's ``_sample_dirichlet``: normalised double
    gammas), differentiable w.r.t. ``conc`` with torch's gradient (each component's Beta marginal's implicit
    reparameterization gradient, ``_Dirichlet_backward``)."""
    dt = np.dtype(conc.dtype.np)
    g = draw("dirichlet_gammas", tuple(conc.shape), np.dtype(np.float64), generator, args=(conc._value,))
    if isinstance(g, jax.core.Tracer):
        x = _normalize(g, dt)
    else:
        x = jnp.asarray(dirichlet_normalize(np.asarray(g), dt))
    return dispatch(_dirichlet_reparam, (conc, _as_tensor(x, conc)), name="DirichletBackward")


def binomial(count, prob):
    """Binomial(count, prob) samples (torch's ``binomial``), in ``count``'s dtype; not differentiable."""
    shape = torchlike.broadcast_shapes(count.shape, prob.shape)
    x = draw("binomial", tuple(shape), count.dtype.np, None,
             args=(jnp.broadcast_to(count._value, shape), jnp.broadcast_to(prob._value, shape)))
    return _as_tensor(x, count)


# ---- torch's top-level private ops of the same kernels (``torch._standard_gamma`` & co.; pyro and other
# distribution libraries call them) --------------------------------------------------------------------------
def _standard_gamma_grad(self, output):
    """torch._standard_gamma_grad: d output / d self for Gamma(self, 1) samples ``output``."""
    return _as_tensor(_gamma_grad(self._value, output._value), self)


def _dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad: the Beta-marginal reparameterized gradient behind the Dirichlet's."""
    return _as_tensor(_beta_marginal_grad(x._value, alpha._value, total._value).astype(x._value.dtype), x)


def _samples(alpha, x):
    return x


def _sample_dirichlet(input, generator=None):
    """torch._sample_dirichlet: Dirichlet samples over the last dim; as in torch, the result of an input that
    requires grad requires grad too, and backward through it raises (torch's Dirichlet differentiates with
    its own rule instead)."""
    x = sample_dirichlet(input, generator).detach()
    return dispatch(_samples, (input, x), diff="_sample_dirichlet") if input.requires_grad else x


TOPLEVEL = {"_standard_gamma": standard_gamma, "_standard_gamma_grad": _standard_gamma_grad,
            "_dirichlet_grad": _dirichlet_grad, "_sample_dirichlet": _sample_dirichlet}
