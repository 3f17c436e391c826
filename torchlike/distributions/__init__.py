"""Probability distributions (torch.distributions): parameters, sampling (``rsample`` is differentiable),
log densities, moments and KL divergences, built from torchlike ops so autograd flows through them.

Random draws come from torchlike's generator, so sampled values differ from torch's (their
distribution does not).

>>> import torchlike
>>> from torchlike.distributions import Normal, kl_divergence
>>> loc = torchlike.zeros(2, requires_grad=True)
>>> d = Normal(loc, 1.0)
>>> d.rsample((4,)).sum().backward()
>>> loc.grad
tensor([4., 4.])
>>> kl_divergence(d, Normal(1.0, 1.0)).detach()
tensor([0.5000, 0.5000])
"""
from . import constraints, transforms  # noqa: F401
from .continuous import Beta, Cauchy, Chi2, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, OneHotCategoricalStraightThrough, Poisson
from .distribution import Distribution, ExponentialFamily
from .kl import kl_divergence, register_kl
from .multivariate import Dirichlet, Independent, MultivariateNormal
from .transformed_distribution import TransformedDistribution
from .relaxed import LogNormal, RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_univariate import Gumbel, HalfCauchy, HalfNormal, InverseGamma, Kumaraswamy, Pareto, Weibull
from .heavy_tailed import FisherSnedecor, GeneralizedPareto, StudentT
from .counting import Geometric, Multinomial, NegativeBinomial
from .constraint_registry import biject_to, transform_to
from .mixture import MixtureSameFamily
from .multivariate_extra import LKJCholesky, LogisticNormal, LowRankMultivariateNormal, Wishart
from .bounded_support import ContinuousBernoulli, VonMises
from .transforms import *  # noqa: F401,F403
from . import transforms as _t

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
           "ExponentialFamily", "Exponential", "Gamma", "Gumbel", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "TransformedDistribution", "Uniform", "constraints",
           "kl_divergence", "register_kl", "transforms", "HalfCauchy", "HalfNormal", "InverseGamma",
           "Kumaraswamy", "Pareto", "Weibull", "FisherSnedecor", "GeneralizedPareto", "StudentT", "Geometric",
           "Multinomial", "NegativeBinomial", "biject_to", "transform_to", "MixtureSameFamily", "LogisticNormal",
           "LowRankMultivariateNormal", "ContinuousBernoulli", "VonMises", "LKJCholesky", "Wishart",
           *_t.__all__]

from . import relaxed as _relaxed  # noqa: E402
from .._torch_paths import mirror as _mirror  # noqa: E402
import sys as _sys  # noqa: E402

# torch's one-module-per-distribution paths (pickles and safe_globals lists name them)
_mirror(_sys.modules[__name__], {
    "bernoulli": [Bernoulli], "beta": [Beta], "binomial": [Binomial], "categorical": [Categorical],
    "cauchy": [Cauchy], "chi2": [Chi2], "dirichlet": [Dirichlet], "exp_family": [ExponentialFamily],
    "exponential": [Exponential], "gamma": [Gamma], "gumbel": [Gumbel], "independent": [Independent],
    "laplace": [Laplace], "log_normal": [LogNormal], "multivariate_normal": [MultivariateNormal], "normal": [Normal],
    "one_hot_categorical": [OneHotCategorical, OneHotCategoricalStraightThrough], "poisson": [Poisson],
    "relaxed_bernoulli": [_relaxed.LogitRelaxedBernoulli, RelaxedBernoulli],
    "relaxed_categorical": [_relaxed.ExpRelaxedCategorical, RelaxedOneHotCategorical], "uniform": [Uniform],
    "half_cauchy": [HalfCauchy], "half_normal": [HalfNormal], "inverse_gamma": [InverseGamma],
    "kumaraswamy": [Kumaraswamy], "pareto": [Pareto], "weibull": [Weibull], "fishersnedecor": [FisherSnedecor],
    "generalized_pareto": [GeneralizedPareto], "studentT": [StudentT], "geometric": [Geometric],
    "multinomial": [Multinomial], "negative_binomial": [NegativeBinomial], "mixture_same_family": [MixtureSameFamily],
    "logistic_normal": [LogisticNormal], "lowrank_multivariate_normal": [LowRankMultivariateNormal],
    "continuous_bernoulli": [ContinuousBernoulli], "von_mises": [VonMises], "lkj_cholesky": [LKJCholesky],
    "wishart": [Wishart]})

from .._missing import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.distributions")

from . import _module_imports  # noqa: E402

_module_imports.install(_sys.modules[__name__])
