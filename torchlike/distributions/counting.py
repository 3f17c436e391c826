"""Counting distributions: Geometric, NegativeBinomial, Multinomial.

>>> import torchlike
>>> from torchlike.distributions import Geometric
>>> Geometric(torchlike.tensor([0.5])).log_prob(torchlike.tensor([2.0]))
tensor([-2.0794])
"""
from __future__ import annotations

import math

import torchlike
from torchlike.tensor import Size

from . import constraints
from .continuous import Gamma
from .discrete import Binomial, Categorical, _ProbsOrLogits
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["Geometric", "NegativeBinomial", "Multinomial"]


class Geometric(_ProbsOrLogits):
    """The number of failures before the first success of Bernoulli(probs) trials.

    >>> from torchlike.distributions import Geometric
    >>> Geometric(torchlike.tensor(0.25)).mean
    tensor(3.)
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_binary(probs, logits, validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            if not bool(((value > 0) & (value <= 1)).all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} to satisfy the constraint HalfOpenInterval(lower_bound="
                                 f"0.0, upper_bound=1.0), but found invalid values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        self._expand_params(new, batch_shape, ("probs", "logits"))
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torchlike.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = torchlike.finfo(self.probs.dtype).tiny
        with torchlike.no_grad():
            u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=torchlike.contiguous_format)
        probs = torchlike.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return torchlike.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                         reduction="none") / self.probs


class NegativeBinomial(_ProbsOrLogits):
    """The number of successes before ``total_count`` failures of Bernoulli(probs) trials.

    >>> from torchlike.distributions import NegativeBinomial
    >>> NegativeBinomial(4.0, torchlike.tensor(0.5)).mean
    tensor(4.)
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        self.total_count, param = broadcast_all(total_count, given)
        self.total_count = self.total_count.type_as(param)
        self._param = param
        setattr(self, "probs" if probs is not None else "logits", param)
        Distribution.__init__(self, self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_params(new, batch_shape, ("probs", "logits"))
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.total_count * torchlike.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torchlike.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=torchlike.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with torchlike.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return torchlike.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = (self.total_count * torchlike.nn.functional.logsigmoid(-self.logits)
                            + value * torchlike.nn.functional.logsigmoid(self.logits))
        log_norm = (-torchlike.lgamma(self.total_count + value) + torchlike.lgamma(1.0 + value)
                    + torchlike.lgamma(self.total_count))
        log_norm = log_norm.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_norm


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from Categorical(probs / logits).

    >>> from torchlike.distributions import Multinomial
    >>> Multinomial(4, torchlike.tensor([0.25, 0.75])).mean
    tensor([1., 3.])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # samples: (total_count, sample..., batch...) -> counts over the last (event) dim
        shifted = list(range(1, samples.dim())) + [0]
        samples = samples.permute(*shifted)
        counts = samples.new_zeros(self._extended_shape(sample_shape))
        counts.scatter_add_(-1, samples, torchlike.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = torchlike.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - torchlike.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torchlike.exp(self._binomial.log_prob(support))
        weights = torchlike.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=torchlike.contiguous_format)
        log_factorial_n = torchlike.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torchlike.lgamma(value + 1).sum(-1)
        logits = torchlike.where((logits == -math.inf) & (value == 0), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
