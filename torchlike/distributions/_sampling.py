"""The sampling primitives behind Gamma, Dirichlet and Binomial (torch's ``_standard_gamma``,
``_sample_dirichlet`` and ``binomial``).

In eager CPU code the values are torch's for the same seed (``torchlike/_mt_rejection.py``);
compiled code draws from JAX keys.  Gamma samples are reparameterized like torch's: the gradient
with respect to the concentration is torch's ``_standard_gamma_grad`` formula, and Dirichlet (and Beta,
built on it) samples carry torch's ``_dirichlet_grad`` backward.

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

import torchlike
from torchlike._dispatch import dispatch
from torchlike._random import draw
from torchlike._mt_rejection import dirichlet_normalize

__all__ = ["standard_gamma", "sample_dirichlet", "binomial"]

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


def standard_gamma(conc):
    """Gamma(conc, 1) samples of ``conc``'s shape and dtype (torch's ``_standard_gamma``), differentiable
    w.r.t. ``conc``."""
    x = draw("gamma", tuple(conc.shape), conc.dtype.np, None, args=(conc._value,))
    return dispatch(_reparam, (conc, _as_tensor(x, conc)), name="StandardGammaBackward0")


def _normalize(g, dt):
    x = (g / g.sum(-1, keepdims=True)).astype(dt)
    return jnp.minimum(jnp.maximum(x, np.finfo(dt).tiny), np.nextafter(dt.type(1), dt.type(0)))


_C_DIR = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _beta_grad_alpha_small(x, alpha, beta):
    digamma = jax.scipy.special.digamma
    factor = digamma(alpha) - digamma(alpha + beta) - jnp.log(x)
    numer = jnp.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    r = x * jnp.power(1 - x, -beta) * series
    return jnp.where(jnp.isnan(r), 0.0, r)


def _beta_grad_beta_small(x, alpha, beta):
    digamma = jax.scipy.special.digamma
    factor = digamma(alpha + beta) - digamma(beta)
    numer, betas, dbetas, series = jnp.ones_like(x), jnp.ones_like(x), jnp.zeros_like(x), factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    r = -jnp.power(1 - x, 1 - beta) * series
    return jnp.where(jnp.isnan(r), 0.0, r)


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = jnp.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    near = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total) / (1 - x) * poly / (
        12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total))
    prefactor = -x / jnp.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = alpha * (x - 1) + beta * x
    term1 = (2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)) / (
        jnp.sqrt(2 * alpha / beta) * jnp.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * jnp.log(alpha / (total * x))
    term3 = jnp.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = jnp.power(beta * jnp.log(beta / (total * (1 - x))) + alpha * jnp.log(alpha / (total * x)), -1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + jnp.where(x < mean, term4, -term4)))
    return jnp.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def _dirichlet_grad(x, alpha, total):
    """torch's ``_dirichlet_grad`` (ATen's dirichlet_grad_one, in double): the scaled reparameterized gradient
    -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x) of a Beta-marginal sample ``x``."""
    beta = total - alpha
    boundary = total * x * (1 - x)
    u = jnp.log(x)
    a = jnp.log(alpha) - u
    b = jnp.log(total) - a
    pu, pa = (jnp.ones_like(u), u, u * u), (jnp.ones_like(a), a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pu[i] * pa[j]
            c0, c1 = _C_DIR[0, i, j], _C_DIR[1, i, j]
            p = p + ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
            q = q + ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
    digamma = jax.scipy.special.digamma
    rational = p / q * (x * (digamma(total) - digamma(alpha)) / beta)
    out = jnp.where((alpha > 6) & (beta > 6), _beta_grad_alpha_mid(x, alpha, beta), rational)
    out = jnp.where((x >= 0.5) & (boundary < 0.75), -_beta_grad_beta_small(1 - x, beta, alpha), out)
    return jnp.where((x <= 0.5) & (boundary < 2.5), _beta_grad_alpha_small(x, alpha, beta), out)


@jax.custom_jvp
def _dirichlet_reparam(alpha, x):
    return x


@_dirichlet_reparam.defjvp
def _dirichlet_reparam_jvp(primals, tangents):
    # torch's _Dirichlet.backward is grad * (g - sum(x * g)) with grad = _dirichlet_grad(x, alpha, total);
    # this is the forward form of that linear map (its transpose is torch's backward)
    alpha, x = primals
    a64, x64 = alpha.astype(jnp.float64), x.astype(jnp.float64)
    total = jnp.broadcast_to(a64.sum(-1, keepdims=True), a64.shape)
    d = _dirichlet_grad(x64, a64, total).astype(x.dtype)
    dt = d * tangents[0]
    return x, dt - x * dt.sum(-1, keepdims=True)


def _dirichlet_surrogate(alpha, g, x):
    # value: torch's sample x; gradient: torch's _dirichlet_grad (its Dirichlet/Beta rsample backward)
    return _dirichlet_reparam(alpha, x)


def sample_dirichlet(conc):
    """Dirichlet samples over the last dim of ``conc`` (torch's ``_sample_dirichlet``: normalised double
    gammas), differentiable w.r.t. ``conc`` through the gamma draws."""
    dt = np.dtype(conc.dtype.np)
    g = draw("dirichlet_gammas", tuple(conc.shape), np.dtype(np.float64), None, args=(conc._value,))
    if isinstance(g, jax.core.Tracer):
        x = _normalize(g, dt)
    else:
        x = jnp.asarray(dirichlet_normalize(np.asarray(g), dt))
    return dispatch(_dirichlet_surrogate, (conc, _as_tensor(g, conc), _as_tensor(x, conc)),
                    name="DirichletBackward")


def binomial(count, prob):
    """Binomial(count, prob) samples (torch's ``binomial``), in ``count``'s dtype; not differentiable."""
    shape = torchlike.broadcast_shapes(count.shape, prob.shape)
    x = draw("binomial", tuple(shape), count.dtype.np, None,
             args=(jnp.broadcast_to(count._value, shape), jnp.broadcast_to(prob._value, shape)))
    return _as_tensor(x, count)
