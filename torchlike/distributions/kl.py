"""KL divergence between distributions: ``kl_divergence(p, q)`` and the ``register_kl`` registry."""
from __future__ import annotations

import warnings
from functools import total_ordering

import torchlike

from ._kl_pairs import PAIRS, _inf_where, _zero_where
from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical, Poisson
from .distribution import Distribution
from .multivariate import Dirichlet, Independent, MultivariateNormal, _mahalanobis
from .transformed_distribution import TransformedDistribution
from .transformed_univariate import Gumbel, HalfNormal
from .utils import _sum_rightmost, euler_constant

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}
_KL_MEMOIZE: dict = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for instances of ``type_p`` and ``type_q``.

    >>> from torchlike.distributions import Normal, register_kl
    >>> class MyNormal(Normal): pass
    >>> @register_kl(MyNormal, MyNormal)
    ... def kl_mine(p, q):
    ...     return (p.loc - q.loc).abs()
    >>> from torchlike.distributions import kl_divergence
    >>> kl_divergence(MyNormal(0.0, 1.0), MyNormal(2.0, 1.0))
    tensor(2.)
    """
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun
    return decorator


@total_ordering
class _Match:
    """Orders (type_p, type_q) pairs by specificity: a subclass sorts before its bases."""
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl("
                      f"{left_p.__name__}, {right_q.__name__})", RuntimeWarning)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q), batched over the distributions' batch shape.

    >>> import torchlike
    >>> from torchlike.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fun(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # same transforms: KL is invariant under a shared bijection
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    sp = torchlike.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1 = _zero_where(_inf_where(t1, q.probs == 0), p.probs == 0)
    t2 = (1 - p.probs) * (sp(q.logits) - sp(p.logits))
    t2 = _zero_where(_inf_where(t2, q.probs == 1), p.probs == 1)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _inf_where(t, (q.probs == 0).expand_as(t))
    t = _zero_where(t, (p.probs == 0).expand_as(t))
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes "
                         "cannot be computed")
    pL, qL = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    batch = torchlike.broadcast_shapes(qL.shape[:-2], pL.shape[:-2])
    X = torchlike.linalg.solve_triangular(qL.expand(batch + (n, n)), pL.expand(batch + (n, n)), upper=False)
    term2 = X.pow(2).sum((-2, -1))
    term3 = _mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where(result, (q.low > p.low) | (q.high < p.high))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp, sq = p.concentration1 + p.concentration0, q.concentration1 + q.concentration0
    lg, dg = torchlike.lgamma, torchlike.digamma
    t1 = lg(q.concentration1) + lg(q.concentration0) + lg(sp)
    t2 = lg(p.concentration1) + lg(p.concentration0) + lg(sq)
    t3 = (p.concentration1 - q.concentration1) * dg(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * dg(p.concentration0)
    t5 = (sq - sp) * dg(sp)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sp, sq = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sp.lgamma() - sq.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sp.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * torchlike.log(p.rate / q.rate)
    t2 = torchlike.lgamma(q.concentration) - torchlike.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * torchlike.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    ratio = p.scale / q.scale
    d = (p.loc - q.loc).abs()
    return -ratio.log() + d / q.scale + ratio * torchlike.exp(-d / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (torchlike.log(p.rate) - torchlike.log(q.rate)) - (p.rate - q.rate)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    c1, c2, c3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -c1.log() - c2 + c3
    t3 = torchlike.exp(c2 + (1 + c1).lgamma() - c3)
    return t1 + c1 * euler_constant + t3 - (1 + euler_constant)


# the cross-family, low-rank, exponential-family and remaining same-family pairs (torch registers 87 in all)
for (_type_p, _type_q), _fn in PAIRS.items():
    register_kl(_type_p, _type_q)(_fn)

# like torch, kl_divergence's docstring lists the implemented pairs
kl_divergence.__doc__ += "\n    KL divergence is implemented for these (p, q) pairs:\n\n" + "\n".join(
    f"    * {p.__name__} and {q.__name__}"
    for p, q in sorted(_KL_REGISTRY, key=lambda pq: (pq[0].__name__, pq[1].__name__)))
