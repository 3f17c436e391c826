"""Univariate distributions defined as a transform of a simpler one: HalfNormal, HalfCauchy, Pareto,
Weibull, Kumaraswamy, InverseGamma, Gumbel (torch.distributions builds them the same way, so ``base_dist`` and
``transforms`` have torch's meaning).

>>> import torchlike
>>> from torchlike.distributions import HalfNormal, Pareto
>>> HalfNormal(torchlike.tensor([1.0])).log_prob(torchlike.tensor([0.5]))
tensor([-0.3508])
>>> Pareto(1.0, 3.0).mean
tensor(1.5000)
"""
from __future__ import annotations

import math
from numbers import Number

import torchlike

from . import constraints
from .continuous import Cauchy, Exponential, Gamma, Normal, Uniform
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["HalfNormal", "HalfCauchy", "Pareto", "Weibull", "Kumaraswamy", "InverseGamma", "Gumbel"]



def _expand_as(self, cls, batch_shape, _instance):
    return TransformedDistribution.expand(self, batch_shape, _instance=self._get_checked_instance(cls, _instance))


class HalfNormal(TransformedDistribution):
    """|X| for X ~ Normal(0, scale).

    >>> from torchlike.distributions import HalfNormal
    >>> HalfNormal(2.0).mean
    tensor(1.5958)
    """
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_as(self, HalfNormal, batch_shape, _instance)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return torchlike.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return torchlike.where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfCauchy(TransformedDistribution):
    """|X| for X ~ Cauchy(0, scale).

    >>> from torchlike.distributions import HalfCauchy
    >>> HalfCauchy(1.0).log_prob(torchlike.tensor(1.0))
    tensor(-1.1447)
    """
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_as(self, HalfCauchy, batch_shape, _instance)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return torchlike.full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self):
        return torchlike.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torchlike.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return torchlike.where(value >= 0, lp, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class Pareto(TransformedDistribution):
    """Pareto Type 1: ``scale * exp(X)`` for X ~ Exponential(alpha).

    >>> from torchlike.distributions import Pareto
    >>> Pareto(1.0, 3.0).variance
    tensor(0.7500)
    """
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """Weibull(scale, concentration): ``scale * X ** (1 / concentration)`` for X ~ Exponential(1).

    >>> from torchlike.distributions import Weibull
    >>> Weibull(1.0, 1.0).mean
    tensor(1.)
    """
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(torchlike.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * torchlike.exp(torchlike.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (torchlike.exp(torchlike.lgamma(1 + 2 * self.concentration_reciprocal))
                                    - torchlike.exp(2 * torchlike.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        return (euler_constant * (1 - self.concentration_reciprocal) + torchlike.log(self.scale * self.concentration_reciprocal)
                + 1)


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a, b) on (0, 1): ``(1 - U ** (1 / b)) ** (1 / a)`` for U ~ Uniform(0, 1).

    >>> from torchlike.distributions import Kumaraswamy
    >>> Kumaraswamy(torchlike.tensor(1.0), torchlike.tensor(1.0)).mean
    tensor(0.5000)
    """
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(torchlike.full_like(self.concentration0, 0), torchlike.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        log_mode = (self.concentration0.reciprocal() * (-self.concentration0).log1p()
                    - (-self.concentration0 * self.concentration1).log1p())
        log_mode = log_mode.clone()
        log_mode[(self.concentration0 < 1) | (self.concentration1 < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = torchlike.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - torchlike.log(self.concentration1) - torchlike.log(self.concentration0)


def _moments(a, b, n):
    """E[X ** n] of Kumaraswamy(a, b): b * B(1 + n / a, b)."""
    arg1 = 1 + n / a
    log_value = torchlike.lgamma(arg1) + torchlike.lgamma(b) - torchlike.lgamma(arg1 + b)
    return b * torchlike.exp(log_value)


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate).

    >>> from torchlike.distributions import InverseGamma
    >>> InverseGamma(torchlike.tensor(3.0), torchlike.tensor(2.0)).mean
    tensor(1.)
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_as(self, InverseGamma, batch_shape, _instance)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        r = self.rate / (self.concentration - 1)
        return torchlike.where(self.concentration > 1, r, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        r = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return torchlike.where(self.concentration > 2, r, math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()


class Gumbel(TransformedDistribution):
    """Gumbel (type-I extreme value) distribution: ``loc - scale * log(-log(U))`` for U ~ Uniform(tiny, 1 - eps).

    >>> import torchlike
    >>> from torchlike.distributions import Gumbel
    >>> Gumbel(0.0, 1.0).log_prob(torchlike.tensor(0.0))
    tensor(-1.)
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = torchlike.finfo(self.loc.dtype)
        if isinstance(loc, Number) and isinstance(scale, Number):
            base = Uniform(fi.tiny, 1 - fi.eps, validate_args=validate_args)
        else:
            base = Uniform(torchlike.full_like(self.loc, fi.tiny), torchlike.full_like(self.loc, 1 - fi.eps),
                           validate_args=validate_args)
        # U -> log U -> -log U -> log(-log U) -> loc - scale * log(-log U), as torch composes it
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-torchlike.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return _expand_as(self, Gumbel, batch_shape, new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
