"""Discrete distributions: Bernoulli, Categorical, OneHotCategorical(+StraightThrough), Poisson, Binomial."""
from __future__ import annotations

from numbers import Number


import torchlike
from torchlike.tensor import Size

from . import constraints
from .distribution import Distribution, ExponentialFamily
from ._sampling import binomial
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
           "Binomial"]

_ONE_OF = "Either `probs` or `logits` must be specified, but not both."


def _enumerate(n_values, dtype, batch_shape, expand):
    values = torchlike.arange(n_values, dtype=dtype).view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


class _ProbsOrLogits(Distribution):
    """probs/logits bookkeeping shared by the binary distributions."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _init_binary(self, probs, logits, validate_args):
        """Keep exactly one of ``probs``/``logits`` (broadcast to a tensor); a Python number gives an empty
        batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        given = probs if probs is not None else logits
        (self._param,) = broadcast_all(given)
        setattr(self, "probs" if probs is not None else "logits", self._param)
        Distribution.__init__(self, Size() if isinstance(given, Number) else self._param.size(),
                              validate_args=validate_args)

    def _expand_params(self, new, batch_shape, names):
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = getattr(new, name)


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """Bernoulli distribution, given ``probs`` or ``logits`` (not both).

    >>> import torchlike
    >>> from torchlike.distributions import Bernoulli
    >>> d = Bernoulli(probs=torchlike.tensor([0.25]))
    >>> d.log_prob(torchlike.tensor([1.0])), d.variance
    (tensor([-1.3863]), tensor([0.1875]))
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_binary(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        self._expand_params(new, batch_shape, ("probs", "logits"))
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        m = (self.probs >= 0.5).to(self.probs)
        return torchlike.where(self.probs == 0.5, torchlike.full_like(m, float("nan")), m)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -torchlike.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return torchlike.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                         reduction="none")

    def enumerate_support(self, expand=True):
        return _enumerate(2, self._param.dtype, self._batch_shape, expand)

    @property
    def _natural_params(self):
        return (torchlike.logit(self.probs),)

    def _log_normalizer(self, x):
        return torchlike.log1p(torchlike.exp(x))


class Binomial(_ProbsOrLogits):
    """Binomial distribution: successes in ``total_count`` Bernoulli trials.

    >>> import torchlike
    >>> from torchlike.distributions import Binomial
    >>> d = Binomial(10, torchlike.tensor([0.5]))
    >>> d.mean, d.log_prob(torchlike.tensor([5.0]))
    (tensor([5.]), tensor([-1.4020]))
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_params(new, batch_shape, ("probs", "logits"))
        return self._finish_expand(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, lg = self.total_count, self.logits
        log_norm = (n * (lg.clamp(min=0) + lg - lg.clamp(max=0)) / 2 + n * torchlike.log1p(torchlike.exp(-lg.abs()))
                    - torchlike.lgamma(n + 1))
        return value * lg - torchlike.lgamma(value + 1) - torchlike.lgamma(n - value + 1) - log_norm

    def entropy(self):
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(torchlike.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        return _enumerate(1 + n, self._param.dtype, self._batch_shape, expand)


class Categorical(Distribution):
    """Categorical distribution over ``{0, ..., K-1}``, given ``probs`` or ``logits`` along the last dim.

    >>> import torchlike
    >>> from torchlike.distributions import Categorical
    >>> d = Categorical(probs=torchlike.tensor([0.25, 0.75]))
    >>> d.log_prob(torchlike.tensor(1)), d.entropy()
    (tensor(-0.2877), tensor(0.5623))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError(_ONE_OF)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # normalized so that logits.exp() sums to one
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(param_shape))
                new._param = getattr(new, name)
        new._num_events = self._num_events
        return self._finish_expand(new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return torchlike.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                              device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return torchlike.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype,
                              device=self.probs.device)

    def sample(self, sample_shape=Size()):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with torchlike.no_grad():
            samples_2d = torchlike.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torchlike.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = torchlike.clamp(self.logits, min=torchlike.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        return _enumerate(self._num_events, torchlike.long, self._batch_shape, expand)


class OneHotCategorical(Distribution):
    """Categorical distribution whose samples are one-hot vectors.

    >>> import torchlike
    >>> from torchlike.distributions import OneHotCategorical
    >>> d = OneHotCategorical(probs=torchlike.tensor([0.25, 0.75]))
    >>> d.sample((3,)).shape, d.log_prob(torchlike.tensor([0.0, 1.0]))
    (torch.Size([3, 2]), tensor(-0.2877))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return torchlike.nn.functional.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        probs = self._categorical.probs
        idx = self._categorical.sample(sample_shape)
        return torchlike.nn.functional.one_hot(idx, self._categorical._num_events).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = torchlike.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients straight through to ``probs``.

    >>> import torchlike
    >>> from torchlike.distributions import OneHotCategoricalStraightThrough
    >>> p = torchlike.tensor([0.5, 0.5], requires_grad=True)
    >>> OneHotCategoricalStraightThrough(probs=p).rsample().requires_grad
    True
    """
    has_rsample = True

    def rsample(self, sample_shape=Size()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())


class Poisson(ExponentialFamily):
    """Poisson distribution with mean ``rate``.

    >>> import torchlike
    >>> from torchlike.distributions import Poisson
    >>> Poisson(torchlike.tensor([2.0])).log_prob(torchlike.tensor([1.0]))
    tensor([-1.3069])
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, Number) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            return torchlike.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (torchlike.log(self.rate),)

    def _log_normalizer(self, x):
        return torchlike.exp(x)
