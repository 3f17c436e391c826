"""The names torch's one-module-per-distribution files import at module level (``torch``, ``Tensor``,
``constraints``, ``Distribution``, ``broadcast_all``, ...): libraries import them from there (BoTorch does
``from torch.distributions.multivariate_normal import Distribution, MultivariateNormal``), so the mirrored
modules (``torchlike._torch_paths.mirror``) carry them too, as torch's do."""
from __future__ import annotations

import math
from numbers import Number

import torchlike

from . import constraints, multivariate, transforms, utils

IMPORTS = {
    "bernoulli": "torch nan Tensor constraints ExponentialFamily broadcast_all lazy_property logits_to_probs "
                 "probs_to_logits Number",
    "beta": "torch Tensor constraints Dirichlet ExponentialFamily broadcast_all",
    "binomial": "torch Tensor constraints Distribution broadcast_all lazy_property logits_to_probs probs_to_logits",
    "categorical": "torch nan Tensor constraints Distribution lazy_property logits_to_probs probs_to_logits",
    "cauchy": "math torch inf nan Tensor constraints Distribution broadcast_all",
    "chi2": "Tensor constraints Gamma",
    "dirichlet": "torch Tensor constraints ExponentialFamily",
    "exp_family": "torch Tensor Distribution",
    "exponential": "torch Tensor constraints ExponentialFamily broadcast_all",
    "gamma": "torch Tensor constraints ExponentialFamily broadcast_all",
    "gumbel": "math torch Tensor constraints TransformedDistribution AffineTransform ExpTransform Uniform "
              "broadcast_all euler_constant",
    "independent": "torch Size Tensor constraints Distribution _sum_rightmost",
    "laplace": "torch Tensor constraints Distribution broadcast_all",
    "log_normal": "Tensor constraints Normal TransformedDistribution ExpTransform",
    "multivariate_normal": "math torch Tensor constraints Distribution _standard_normal lazy_property "
                           "_precision_to_scale_tril",
    "normal": "math torch Tensor constraints ExponentialFamily _standard_normal broadcast_all",
    "one_hot_categorical": "torch Tensor constraints Categorical Distribution",
    "poisson": "torch Tensor constraints ExponentialFamily broadcast_all Number",
    "relaxed_bernoulli": "torch Tensor constraints Distribution TransformedDistribution SigmoidTransform "
                         "broadcast_all clamp_probs lazy_property logits_to_probs probs_to_logits Number",
    "relaxed_categorical": "torch Tensor constraints Categorical Distribution TransformedDistribution ExpTransform "
                           "broadcast_all clamp_probs",
    "uniform": "torch nan Tensor constraints Distribution broadcast_all",
    "half_cauchy": "math torch inf Tensor constraints Cauchy TransformedDistribution AbsTransform",
    "half_normal": "math torch inf Tensor constraints Normal TransformedDistribution AbsTransform",
    "inverse_gamma": "torch Tensor constraints Gamma TransformedDistribution PowerTransform",
    "kumaraswamy": "torch nan Tensor constraints TransformedDistribution AffineTransform PowerTransform Uniform "
                   "broadcast_all euler_constant",
    "pareto": "Tensor constraints Exponential TransformedDistribution AffineTransform ExpTransform broadcast_all",
    "weibull": "torch Tensor constraints Exponential euler_constant TransformedDistribution AffineTransform "
               "PowerTransform broadcast_all",
    "fishersnedecor": "torch nan Tensor constraints Distribution Gamma broadcast_all",
    "generalized_pareto": "math Number torch inf nan constraints Distribution broadcast_all",
    "studentT": "math torch inf nan Tensor Chi2 constraints Distribution _standard_normal broadcast_all",
    "geometric": "torch Tensor constraints Distribution broadcast_all lazy_property logits_to_probs "
                 "probs_to_logits Number",
    "multinomial": "torch inf Tensor Categorical constraints Binomial Distribution broadcast_all",
    "negative_binomial": "torch Tensor constraints Distribution Gamma broadcast_all lazy_property logits_to_probs "
                         "probs_to_logits",
    "mixture_same_family": "torch Tensor Categorical constraints Distribution",
    "logistic_normal": "Tensor constraints Independent Normal TransformedDistribution StickBreakingTransform",
    "lowrank_multivariate_normal": "math torch Tensor constraints Distribution _standard_normal lazy_property",
    "continuous_bernoulli": "math torch Tensor constraints ExponentialFamily broadcast_all clamp_probs "
                            "lazy_property logits_to_probs probs_to_logits Number",
    "von_mises": "math torch Tensor constraints Distribution broadcast_all lazy_property",
    "lkj_cholesky": "math torch Tensor Beta constraints Distribution broadcast_all",
    "wishart": "math torch nan Tensor constraints ExponentialFamily _precision_to_scale_tril lazy_property Number",
}


def install(package):
    """Set each mirrored ``package.<sub>`` module's torch-imported names (not homed there, not exported)."""
    pool = {"torch": torchlike, "math": math, "Number": Number, "nan": math.nan, "inf": math.inf,
            "Tensor": torchlike.Tensor, "Size": torchlike.Size, "constraints": constraints,
            **{k: v for k, v in vars(transforms).items() if not k.startswith("__")},
            **{k: v for k, v in vars(utils).items() if not k.startswith("__")},
            "_precision_to_scale_tril": multivariate._precision_to_scale_tril}
    for sub, names in IMPORTS.items():
        mod = getattr(package, sub)
        for name in names.split():
            if not hasattr(mod, name):
                setattr(mod, name, pool[name] if name in pool else getattr(package, name))
