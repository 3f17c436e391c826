"""Heavy-tailed continuous distributions: StudentT, FisherSnedecor, GeneralizedPareto.

>>> import torchlike
>>> from torchlike.distributions import StudentT
>>> StudentT(torchlike.tensor(3.0)).log_prob(torchlike.tensor(0.0))
tensor(-1.0009)
"""
from __future__ import annotations

import math
from numbers import Number

import torchlike
from torchlike.tensor import Size

from . import constraints
from .continuous import Chi2, Gamma
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT", "FisherSnedecor", "GeneralizedPareto"]


def _finfo(t):
    return torchlike.finfo(t.dtype)


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    >>> from torchlike.distributions import StudentT
    >>> StudentT(torchlike.tensor([4.0])).variance
    tensor([2.])
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        m = self.loc.clone(memory_format=torchlike.contiguous_format)
        return torchlike.where(self.df <= 1, math.nan, m)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        v = self.scale.pow(2) * df / (df - 2)
        v = torchlike.where(df <= 2, math.inf, v)
        return torchlike.where(df <= 1, math.nan, v)

    def rsample(self, sample_shape=Size()):
        # X ~ Normal(0, 1), Z ~ Chi2(df): Y = X * rsqrt(Z / df) ~ StudentT(df)
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * torchlike.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + torchlike.lgamma(0.5 * self.df) - torchlike.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torchlike.log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        lbeta = (torchlike.lgamma(0.5 * self.df) + math.lgamma(0.5) - torchlike.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log() + 0.5 * (self.df + 1)
                * (torchlike.digamma(0.5 * (self.df + 1)) - torchlike.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)


class FisherSnedecor(Distribution):
    """Fisher-Snedecor F(df1, df2): the ratio of two scaled chi-squared variables.

    >>> from torchlike.distributions import FisherSnedecor
    >>> FisherSnedecor(torchlike.tensor(2.0), torchlike.tensor(4.0)).mean
    tensor(2.)
    """
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        both = isinstance(df1, Number) and isinstance(df2, Number)
        super().__init__(Size() if both else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        df2 = self.df2.clone(memory_format=torchlike.contiguous_format)
        return torchlike.where(df2 <= 2, math.nan, df2 / (df2 - 2))

    @property
    def mode(self):
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return torchlike.where(self.df1 <= 2, math.nan, m)

    @property
    def variance(self):
        df2 = self.df2.clone(memory_format=torchlike.contiguous_format)
        v = 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))
        return torchlike.where(df2 <= 4, math.nan, v)

    def rsample(self, sample_shape=Size()):
        # X1 ~ Gamma(df1 / 2, 1 / df1), X2 ~ Gamma(df2 / 2, 1 / df2): Y = X1 / X2 ~ F(df1, df2)
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape)
        tiny = _finfo(x2).tiny
        x2 = x2.clamp(min=tiny)
        y = x1 / x2
        return y.clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * torchlike.log(value)
        t3 = (ct1 + ct2) * torchlike.log1p(ct3 * value)
        return t1 + t2 - t3


class GeneralizedPareto(Distribution):
    """Generalized Pareto with location ``loc``, scale ``scale`` and shape ``concentration``.

    >>> from torchlike.distributions import GeneralizedPareto
    >>> GeneralizedPareto(0.0, 1.0, 0.0).log_prob(torchlike.tensor(1.0))
    tensor(-1.)
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        both = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(Size() if both else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = self.concentration == 0
        safe_conc = torchlike.where(eq_zero, torchlike.ones_like(self.concentration), self.concentration)
        y = 1 / safe_conc + torchlike.ones_like(z)
        where_nonzero = torchlike.where(y == 0, y, y * torchlike.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Number) else self.scale.log()
        return -log_scale - torchlike.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = self.concentration == 0
        safe_conc = torchlike.where(eq_zero, torchlike.ones_like(self.concentration), self.concentration)
        where_nonzero = -torchlike.log1p(safe_conc * z) / safe_conc
        return torchlike.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return torchlike.log1p(-torchlike.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torchlike.exp(self.log_cdf(value))

    def icdf(self, value):
        loc, scale, conc = self.loc, self.scale, self.concentration
        eq_zero = conc == 0
        safe_conc = torchlike.where(eq_zero, torchlike.ones_like(conc), conc)
        logu = torchlike.log1p(-value)
        where_nonzero = loc + scale / safe_conc * torchlike.expm1(-safe_conc * logu)
        return torchlike.where(eq_zero, loc - scale * logu, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        conc = self.concentration
        valid = conc < 1
        safe_conc = torchlike.where(valid, conc, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return torchlike.where(valid, result, math.nan)

    @property
    def variance(self):
        conc = self.concentration
        valid = conc < 0.5
        safe_conc = torchlike.where(valid, conc, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return torchlike.where(valid, result, math.nan)

    def entropy(self):
        ans = torchlike.log(self.scale) + self.concentration + 1
        return torchlike.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = torchlike.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
