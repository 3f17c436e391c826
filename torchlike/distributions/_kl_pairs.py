"""Closed-form KL(p || q) for the pairs torch registers beyond the same-family basics in ``kl.py``.

``PAIRS`` maps ``(type_p, type_q)`` to ``fn(p, q)``; ``kl.py`` registers every entry at import time.
Conventions are torch's: a pair whose supports differ (q puts no mass where p does) gives ``inf`` of
p's parameter shape, and a support check that fails for some batch entries sets those entries to ``inf``.
"""
from __future__ import annotations

import math

import torchlike

from .bounded_support import ContinuousBernoulli
from .continuous import Beta, Cauchy, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Poisson
from .counting import Geometric
from .distribution import ExponentialFamily
from .multivariate import MultivariateNormal, _mahalanobis
from .multivariate_extra import LowRankMultivariateNormal, _batch_lowrank_logdet, _batch_lowrank_mahalanobis
from .transformed_univariate import Gumbel, Pareto
from .utils import _sum_rightmost, euler_constant

PAIRS: dict = {}

_LOG_2PI = math.log(2 * math.pi)


def _pair(*pairs):
    def decorator(fn):
        for pq in pairs:
            PAIRS[pq] = fn
        return fn
    return decorator


def _inf_where(t, cond):
    return torchlike.where(cond, torchlike.full_like(t, math.inf), t)


def _zero_where(t, cond):
    return torchlike.where(cond, torchlike.zeros_like(t), t)


def _x_log_x(t):
    return torchlike.special.xlogy(t, t)  # 0 at t == 0


def _trace_xxt(m):
    """trace(M @ M.T) over the last two dims."""
    return m.pow(2).sum((-2, -1))


# ---- same family -------------------------------------------------------------------------------

@_pair((Binomial, Binomial))
def _kl_binomial_binomial(p, q):
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + torchlike.log1p(-p.probs) - torchlike.log1p(-q.probs))
    return _inf_where(kl, p.total_count > q.total_count)


@_pair((ContinuousBernoulli, ContinuousBernoulli))
def _kl_cb_cb(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + torchlike.log1p(-p.probs)
            - q._cont_bern_log_norm() - torchlike.log1p(-q.probs))


@_pair((Geometric, Geometric))
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torchlike.log1p(-q.probs) / p.probs - q.logits


@_pair((Pareto, Pareto))
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    kl = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    # p puts mass below q's support
    return _inf_where(kl, p.support.lower_bound < q.support.lower_bound)


@_pair((Cauchy, Cauchy))
def _kl_cauchy_cauchy(p, q):
    # Chyzak & Nielsen, arXiv:1905.10965
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@_pair((ExponentialFamily, ExponentialFamily))
def _kl_expfamily_expfamily(p, q):
    """Bregman divergence of the log-normalizer A: A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot"
                                  + " " * 29 + "be computed using Bregman divergences")
    p_nat = [t.detach().requires_grad_() for t in p._natural_params]
    q_nat = q._natural_params
    log_norm_p = p._log_normalizer(*p_nat)
    grads = torchlike.autograd.grad(log_norm_p.sum(), p_nat, create_graph=True)
    result = q._log_normalizer(*q_nat) - log_norm_p
    for pn, qn, g in zip(p_nat, q_nat, grads):
        result = result - _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


# ---- (low-rank) multivariate normals -----------------------------------------------------------

def _check_event(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with                          different event "
                         "shapes cannot be computed")


def _lowrank_precision_root(q):
    """A with inv(cov_q) = inv(D_q) - A.T @ A (Woodbury through q's capacitance)."""
    wt_dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return torchlike.linalg.solve_triangular(q._capacitance_tril, wt_dinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_mahalanobis(q, diff):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, diff,
                                      q._capacitance_tril)


def _tril_logdet(d):
    return 2 * d._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


@_pair((LowRankMultivariateNormal, LowRankMultivariateNormal))
def _kl_lowrank_lowrank(p, q):
    _check_event(p, q, "Low Rank Multivariate Normals")
    qD, pD, pW = q._unbroadcasted_cov_diag, p._unbroadcasted_cov_diag, p._unbroadcasted_cov_factor
    A = _lowrank_precision_root(q)
    # trace(inv(cov_q) @ cov_p) with cov_p = pD + pW @ pW.T
    trace = ((pD / qD).sum(-1) + _trace_xxt(pW * qD.rsqrt().unsqueeze(-1))
             - _trace_xxt(A * pD.sqrt().unsqueeze(-2)) - _trace_xxt(A.matmul(pW)))
    logdet = _lowrank_logdet(q) - _lowrank_logdet(p)
    return 0.5 * (logdet + trace + _lowrank_mahalanobis(q, q.loc - p.loc) - p.event_shape[0])


@_pair((MultivariateNormal, LowRankMultivariateNormal))
def _kl_mvn_lowrank(p, q):
    _check_event(p, q, "(Low Rank) Multivariate Normals")
    pL = p._unbroadcasted_scale_tril
    A = _lowrank_precision_root(q)
    trace = _trace_xxt(pL * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - _trace_xxt(A.matmul(pL))
    logdet = _lowrank_logdet(q) - _tril_logdet(p)
    return 0.5 * (logdet + trace + _lowrank_mahalanobis(q, q.loc - p.loc) - p.event_shape[0])


@_pair((LowRankMultivariateNormal, MultivariateNormal))
def _kl_lowrank_mvn(p, q):
    _check_event(p, q, "(Low Rank) Multivariate Normals")
    qL, pW = q._unbroadcasted_scale_tril, p._unbroadcasted_cov_factor
    n = p.event_shape[0]
    batch = torchlike.broadcast_shapes(qL.shape[:-2], pW.shape[:-2])
    qL = qL.expand(batch + (n, n))
    pW = pW.expand(batch + (n, pW.shape[-1]))
    p_diag_root = torchlike.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    solve = torchlike.linalg.solve_triangular
    trace = _trace_xxt(solve(qL, pW, upper=False)) + _trace_xxt(solve(qL, p_diag_root, upper=False))
    logdet = _tril_logdet(q) - _lowrank_logdet(p)
    return 0.5 * (logdet + trace + _mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc) - n)


# ---- different families: infinite (p has mass where q has none) --------------------------------

def _infinite(param_name):
    def kl(p, q):
        return torchlike.full_like(getattr(p, param_name), math.inf)
    return kl


_BOUNDED = (Beta, ContinuousBernoulli, Pareto, Uniform)
for _p, _qs, _param in [
        (Beta, (Pareto,), "concentration1"),
        (ContinuousBernoulli, (Pareto,), "probs"),
        (Exponential, _BOUNDED, "rate"),
        (Gamma, _BOUNDED, "concentration"),
        (Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Pareto, (Beta, ContinuousBernoulli, Uniform), "scale"),
        (Poisson, (Bernoulli, Binomial), "rate")]:
    _pair(*[(_p, _q) for _q in _qs])(_infinite(_param))


# ---- different families: closed forms, grouped by p --------------------------------------------

@_pair((Bernoulli, Poisson))
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _neg_entropy_minus_cb_loglik(p, q):
    """-H(p) - E_p[log ContinuousBernoulli q], for p on [0, 1]."""
    return -p.entropy() - p.mean * q.logits - torchlike.log1p(-q.probs) - q._cont_bern_log_norm()


@_pair((Beta, ContinuousBernoulli))
def _kl_beta_cb(p, q):
    return _neg_entropy_minus_cb_loglik(p, q)


@_pair((Beta, Exponential))
def _kl_beta_exponential(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@_pair((Beta, Gamma))
def _kl_beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    e_log_x = p.concentration1.digamma() - total.digamma()
    return (-p.entropy() + q.concentration.lgamma() - q.concentration * q.rate.log()
            - (q.concentration - 1) * e_log_x + q.rate * p.concentration1 / total)


@_pair((Beta, Normal))
def _kl_beta_normal(p, q):
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    var_q = q.scale.pow(2)
    second_moment = mean * (1 - mean) / (total + 1) + mean.pow(2)
    return (-p.entropy() + 0.5 * (var_q * 2 * math.pi).log()
            + (0.5 * second_moment - q.loc * mean + 0.5 * q.loc.pow(2)) / var_q)


@_pair((Beta, Uniform))
def _kl_beta_uniform(p, q):
    kl = -p.entropy() + (q.high - q.low).log()
    return _inf_where(kl, (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound))


@_pair((ContinuousBernoulli, Exponential))
def _kl_cb_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@_pair((ContinuousBernoulli, Normal))
def _kl_cb_normal(p, q):
    cross = 0.5 * (_LOG_2PI + (q.loc / q.scale).square()) + q.scale.log()
    return -p.entropy() + cross + (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())


@_pair((ContinuousBernoulli, Uniform))
def _kl_cb_uniform(p, q):
    kl = -p.entropy() + (q.high - q.low).log()
    # torch's test is ge/le (a q exactly on [0, 1] counts as infinite too)
    return _inf_where(kl, (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound))


@_pair((Exponential, Gamma))
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + q.concentration.lgamma()
            + q.concentration * euler_constant - (1 + euler_constant))


@_pair((Exponential, Gumbel))
def _kl_exponential_gumbel(p, q):
    rs = p.rate * q.scale
    z = q.loc / q.scale
    return rs.log() - 1 - z + z.exp() * rs / (rs + 1) + rs.reciprocal()


@_pair((Exponential, Normal))
def _kl_exponential_normal(p, q):
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    return 0.5 * (rate2 * var_q * 2 * math.pi).log() - 1 + (rate2.reciprocal() - q.loc / p.rate
                                                             + 0.5 * q.loc.pow(2)) / var_q


@_pair((Gamma, Exponential))
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@_pair((Gamma, Gumbel))
def _kl_gamma_gumbel(p, q):
    a = p.concentration
    bs = p.rate * q.scale
    z = q.loc / q.scale
    return ((a - 1) * a.digamma() - a.lgamma() - a + bs.log() + a / bs
            + z.exp() * (1 + bs.reciprocal()).pow(-a) - z)


@_pair((Gamma, Normal))
def _kl_gamma_normal(p, q):
    a = p.concentration
    var_q = q.scale.pow(2)
    rate2 = p.rate.pow(2)
    head = 0.5 * (rate2 * var_q * 2 * math.pi).log() - a - a.lgamma()
    moments = 0.5 * (a.pow(2) + a) / rate2 - q.loc * a / p.rate + 0.5 * q.loc.pow(2)
    return head + (a - 1) * a.digamma() + moments / var_q


@_pair((Gumbel, Normal))
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    shift = (p.loc + p.scale * euler_constant - q.loc) / q.scale
    return (-(ratio / math.sqrt(2 * math.pi)).log() + (math.pi * ratio * 0.5).pow(2) / 3
            + 0.5 * shift.pow(2) - (euler_constant + 1))


@_pair((Laplace, Normal))
def _kl_laplace_normal(p, q):
    var_q = q.scale.pow(2)
    s2_ratio = p.scale.pow(2) / var_q
    return (-0.5 * (2 * s2_ratio / math.pi).log() + s2_ratio
            + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_q - 1)


@_pair((Normal, Gumbel))
def _kl_normal_gumbel(p, q):
    m = p.loc / q.scale
    v = (p.scale / q.scale).pow(2)
    z = q.loc / q.scale
    return -0.5 * v.log() + m - z + (-m + 0.5 * v + z).exp() - 0.5 * (1 + _LOG_2PI)


@_pair((Normal, Laplace))
def _kl_normal_laplace(p, q):
    diff = p.loc - q.loc
    u = diff / p.scale
    # E|X - q.loc| for X ~ p (folded normal mean)
    abs_mean = math.sqrt(2 / math.pi) * p.scale * (-0.5 * u.pow(2)).exp() + diff * torchlike.erf(math.sqrt(0.5) * u)
    return -(p.scale / q.scale).log() + abs_mean / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@_pair((Pareto, Exponential))
def _kl_pareto_exponential(p, q):
    sr = p.scale * q.rate
    kl = (p.alpha / sr).log() - p.alpha.reciprocal() + p.alpha * sr / (p.alpha - 1) - 1
    return _inf_where(kl, p.alpha <= 1)  # p has no mean


@_pair((Pareto, Gamma))
def _kl_pareto_gamma(p, q):
    e_log_x = p.scale.log() + p.alpha.reciprocal()
    kl = (p.alpha.log() - e_log_x + q.concentration.lgamma() - q.concentration * q.rate.log()
          + (1 - q.concentration) * e_log_x + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return _inf_where(kl, p.alpha <= 1)


@_pair((Pareto, Normal))
def _kl_pareto_normal(p, q):
    two_var = 2 * q.scale.pow(2)
    c = p.scale / (p.alpha - 1)
    kl = ((math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log() - p.alpha.reciprocal()
          + (p.alpha * c.pow(2) / (p.alpha - 2) + (p.alpha * c - q.loc).pow(2)) / two_var - 1)
    return _inf_where(kl, p.alpha <= 2)  # p has no variance


def _uniform_mean_log(p, width):
    """E[log X] for X ~ Uniform(low, high) with 0 <= low."""
    return (_x_log_x(p.high) - _x_log_x(p.low) - width) / width


@_pair((Uniform, Beta))
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    e_log_x = _uniform_mean_log(p, width)
    e_log_1mx = (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    log_beta = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    kl = (q.concentration0 - 1) * e_log_1mx + log_beta - width.log() - (q.concentration1 - 1) * e_log_x
    return _inf_where(kl, (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound))


@_pair((Uniform, ContinuousBernoulli))
def _kl_uniform_cb(p, q):
    kl = _neg_entropy_minus_cb_loglik(p, q)
    # torch's test is ge/le
    return _inf_where(kl, (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound))


@_pair((Uniform, Exponential))
def _kl_uniform_exponential(p, q):
    kl = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _inf_where(kl, p.low < q.support.lower_bound)


@_pair((Uniform, Gamma))
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    e_log_x = _uniform_mean_log(p, width)
    kl = (-width.log() + q.concentration.lgamma() - q.concentration * q.rate.log()
          + (1 - q.concentration) * e_log_x + q.rate * (p.high + p.low) / 2)
    return _inf_where(kl, p.low < q.support.lower_bound)


@_pair((Uniform, Gumbel))
def _kl_uniform_gumbel(p, q):
    c = q.scale / (p.high - p.low)
    zh = (p.high - q.loc) / q.scale
    zl = (p.low - q.loc) / q.scale
    return c.log() + 0.5 * (zh + zl) - c * ((-zh).exp() - (-zl).exp())


@_pair((Uniform, Normal))
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    second = width.pow(2) / 12 + ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return (math.sqrt(2 * math.pi) * q.scale / width).log() + 0.5 * second / q.scale.pow(2)


@_pair((Uniform, Pareto))
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    e_log_x = _uniform_mean_log(p, width)
    kl = e_log_x * (q.alpha + 1) - (q.alpha * q.scale.pow(q.alpha) * width).log()
    return _inf_where(kl, p.low < q.support.lower_bound)
