"""Distributions on a bounded support: ContinuousBernoulli on [0, 1] and the circular VonMises on
[-pi, pi).

>>> import torchlike
>>> from torchlike.distributions import ContinuousBernoulli, VonMises
>>> ContinuousBernoulli(torchlike.tensor(0.3)).mean
tensor(0.4302)
>>> VonMises(torchlike.tensor(0.0), torchlike.tensor(1.0)).log_prob(torchlike.tensor(0.0))
tensor(-1.0738)
"""
from __future__ import annotations

import math

import torchlike
from torchlike.tensor import Size

from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli", "VonMises"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli on [0, 1] with shape ``probs`` (or ``logits``); ``lims`` is the interval
    around 0.5 where a Taylor expansion keeps the normaliser stable."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, (int, float))
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, (int, float))
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new._lims = self._lims
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = getattr(new, name)
        return self._finish_expand(new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return torchlike.max(torchlike.le(self.probs, self._lims[0]), torchlike.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return torchlike.where(self._outside_unstable_region(), self.probs,
                               self._lims[0] * torchlike.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log of the normaliser C(p) = 2 atanh(1 - 2p) / (1 - 2p), by a Taylor series near p = 1/2."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = torchlike.where(torchlike.le(cut_probs, 0.5), cut_probs, torchlike.zeros_like(cut_probs))
        cut_probs_above_half = torchlike.where(torchlike.ge(cut_probs, 0.5), cut_probs, torchlike.ones_like(cut_probs))
        log_norm = torchlike.log(torchlike.abs(torchlike.log1p(-cut_probs) - torchlike.log(cut_probs))) - torchlike.where(
            torchlike.le(cut_probs, 0.5), torchlike.log1p(-2.0 * cut_probs_below_half),
            torchlike.log(2.0 * cut_probs_above_half - 1.0))
        x = torchlike.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (torchlike.log1p(-cut_probs) - torchlike.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torchlike.pow(x, 2)) * x
        return torchlike.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return torchlike.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars_ = cut_probs * (cut_probs - 1.0) / torchlike.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / torchlike.pow(
            torchlike.log1p(-cut_probs) - torchlike.log(cut_probs), 2)
        x = torchlike.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torchlike.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with torchlike.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = torchlike.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -torchlike.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none") \
            + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (torchlike.pow(cut_probs, value) * torchlike.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0) / (
            2.0 * cut_probs - 1.0)
        unbounded_cdfs = torchlike.where(self._outside_unstable_region(), cdfs, value)
        return torchlike.where(torchlike.le(value, 0.0), torchlike.zeros_like(value),
                               torchlike.where(torchlike.ge(value, 1.0), torchlike.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return torchlike.where(
            self._outside_unstable_region(),
            (torchlike.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - torchlike.log1p(-cut_probs))
            / (torchlike.log(cut_probs) - torchlike.log1p(-cut_probs)), value)

    def entropy(self):
        log_probs0 = torchlike.log1p(-self.probs)
        log_probs1 = torchlike.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out_unst_reg = torchlike.max(torchlike.le(x, self._lims[0] - 0.5), torchlike.gt(x, self._lims[1] - 0.5))
        cut_nat_params = torchlike.where(out_unst_reg, x, (self._lims[0] - 0.5) * torchlike.ones_like(x))
        log_norm = torchlike.log(torchlike.abs(torchlike.exp(cut_nat_params) - 1.0)) - torchlike.log(
            torchlike.abs(cut_nat_params))
        taylor = 0.5 * x + torchlike.pow(x, 2) / 24.0 - torchlike.pow(x, 4) / 2880.0
        return torchlike.where(out_unst_reg, log_norm, taylor)


def _log_modified_bessel_i0(x):
    """log I0(x) through the exponentially scaled Bessel function (stable for large x)."""
    return torchlike.log(torchlike.special.i0e(x)) + x.abs()


class VonMises(Distribution):
    """The circular von Mises distribution with mean direction ``loc`` and concentration
    ``concentration``; samples by Best & Fisher's rejection scheme, computed in double precision."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        super().__init__(batch_shape, Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torchlike.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_i0(self.concentration)

    @lazy_property
    def _loc(self):
        return self.loc.to(torchlike.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(torchlike.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        _proposal_r = (1 + rho ** 2) / (2 * rho)
        # second-order Taylor expansion around 0 for small kappa
        _proposal_r_taylor = 1 / kappa + kappa
        return torchlike.where(kappa < 1e-5, _proposal_r_taylor, _proposal_r)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torchlike.no_grad():
            x = torchlike.empty(shape, dtype=self._loc.dtype)
            done = torchlike.zeros(shape, dtype=torchlike.bool)
            conc = self._concentration.expand(shape)
            r = self._proposal_r.expand(shape)
            while not bool(done.all()):
                u = torchlike.rand((3,) + tuple(shape), dtype=self._loc.dtype)
                u1, u2, u3 = u.unbind()
                z = torchlike.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = conc * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                if bool(accept.any()):
                    x = torchlike.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                    done = done | accept
            # (drawn in double, returned in the parameters' dtype as torch's sample does)
            return ((x + math.pi + self._loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        ratio = torchlike.special.i1e(self.concentration) / torchlike.special.i0e(self.concentration)
        return 1 - ratio

    def entropy(self):
        k = self.concentration
        ratio = torchlike.special.i1e(k) / torchlike.special.i0e(k)
        return -k * ratio + math.log(2 * math.pi) + _log_modified_bessel_i0(k)
