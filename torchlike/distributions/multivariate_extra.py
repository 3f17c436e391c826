"""More multivariate distributions: LowRankMultivariateNormal (covariance ``W W^T + diag(D)``) and
LogisticNormal (a stick-broken Normal on the simplex).

>>> import torchlike
>>> from torchlike.distributions import LowRankMultivariateNormal
>>> d = LowRankMultivariateNormal(torchlike.zeros(2), torchlike.ones(2, 1), torchlike.ones(2))
>>> d.covariance_matrix
tensor([[2., 1.],
        [1., 2.]])
"""
from __future__ import annotations

import math
import numbers
import warnings

import torchlike
from torchlike.tensor import Size

from . import constraints
from .continuous import Beta, Chi2, Normal
from .distribution import Distribution, ExponentialFamily
from .multivariate import _precision_to_scale_tril
from .structured_transforms import StickBreakingTransform
from .transformed_distribution import TransformedDistribution
from .utils import _standard_normal, broadcast_all, lazy_property

__all__ = ["LowRankMultivariateNormal", "LogisticNormal", "LKJCholesky", "Wishart"]


def _batch_capacitance_tril(W, D):
    """Cholesky of the capacitance ``I + W^T D^-1 W``."""
    m = W.size(-1)
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = torchlike.matmul(Wt_Dinv, W).contiguous()
    K.view(-1, m * m)[:, ::m + 1] += 1
    return torchlike.linalg.cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = torchlike.matmul(Wt_Dinv, x.unsqueeze(-1)).squeeze(-1)
    mahalanobis_term1 = (x.pow(2) / D).sum(-1)
    y = torchlike.linalg.solve_triangular(capacitance_tril, Wt_Dinv_x.unsqueeze(-1), upper=False).squeeze(-1)
    return mahalanobis_term1 - y.pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """Multivariate normal with covariance ``cov_factor @ cov_factor.T + diag(cov_diag)``."""
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_ = loc.unsqueeze(-1)
        cov_diag_ = cov_diag.unsqueeze(-1)
        loc_, self.cov_factor, cov_diag_ = torchlike.broadcast_tensors(loc_, cov_factor, cov_diag_)
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(
            self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        n = self._event_shape[0]
        cov_diag_sqrt_unsqueeze = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt_unsqueeze
        K = torchlike.matmul(Dinvsqrt_W, Dinvsqrt_W.mT).contiguous()
        K.view(-1, n * n)[:, ::n + 1] += 1
        scale_tril = cov_diag_sqrt_unsqueeze * torchlike.linalg.cholesky(K)
        return scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        cov = torchlike.matmul(W, W.mT) + torchlike.diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = torchlike.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        prec = torchlike.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return prec.expand(self._batch_shape + self._event_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        W_shape = shape[:-1] + self.cov_factor.shape[-1:]
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + torchlike.matmul(self._unbroadcasted_cov_factor, eps_W.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                        self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                        self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform of Normal(loc, scale): a distribution on the simplex.

    >>> from torchlike.distributions import LogisticNormal
    >>> LogisticNormal(torchlike.zeros(2), torchlike.ones(2)).sample().shape
    torch.Size([3])
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc if hasattr(self.base_dist, "base_dist") else self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale if hasattr(self.base_dist, "base_dist") else self.base_dist.scale


class LKJCholesky(Distribution):
    r"""The LKJ distribution over lower Cholesky factors ``L`` of ``dim x dim`` correlation matrices: the
    correlation matrix ``L @ L.T`` has density proportional to :math:`\det(M)^{\eta - 1}`
    (``concentration`` = :math:`\eta`; 1 is uniform). Sampled by the onion method (Lewandowski, Kurowicka and
    Joe, 2009, section 3): a Beta draw for each row's squared length, a direction from normals, the diagonal
    from the rest, in the order torch draws them (the same seed gives torch's samples).

    >>> import torchlike
    >>> L = LKJCholesky(3, 0.5).sample()
    >>> torchlike.allclose((L @ L.T).diagonal(), torchlike.ones(3))
    True
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        # row i's squared off-diagonal length ~ Beta(i/2, concentration + (dim - 2)/2 - (i - 1)/2) (row 0: empty)
        offset = torchlike.arange(dim - 1, dtype=c.dtype, device=c.device)
        offset = torchlike.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, (c + 0.5 * (dim - 2)).unsqueeze(-1) - 0.5 * offset)
        super().__init__(c.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = torchlike.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        direction = normal / normal.norm(dim=-1, keepdim=True)
        direction[..., 0, :].fill_(0.0)  # row 0 is (1, 0, ...): its 0/0 direction is replaced
        w = y.sqrt() * direction
        diag = torchlike.clamp(1 - (w ** 2).sum(dim=-1), min=torchlike.finfo(w.dtype).tiny).sqrt()
        return w + torchlike.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torchlike.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + torchlike.mvlgamma(alpha - 0.5, dm1) - \
            torchlike.lgamma(alpha) * dm1
        return unnormalized - normalizer


_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function of dimension ``p``: sum of digamma(x - i/2), i < p."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return torchlike.digamma(x.unsqueeze(-1) - torchlike.arange(p, dtype=x.dtype, device=x.device).div(2)
                             .expand(x.shape + (-1,))).sum(-1)


class Wishart(ExponentialFamily):
    r"""The Wishart distribution over ``p x p`` positive-definite matrices with ``df`` degrees of freedom and
    scale :math:`\Sigma` (``covariance_matrix``, ``precision_matrix`` or ``scale_tril``: exactly one).
    Sampled by the Bartlett decomposition (chi-square diagonal, normal lower triangle) in torch's order, with
    torch's retries of singular samples: the same seed gives torch's samples.

    >>> import torchlike
    >>> w = Wishart(torchlike.tensor(4.0), covariance_matrix=torchlike.eye(2))
    >>> w.sample((3,)).shape, w.mean.tolist()
    (torch.Size([3, 2, 2]), [[4.0, 0.0], [0.0, 4.0]])
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = torchlike.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = torchlike.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torchlike.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(self.df, batch_shape)

    def _chi2(self, df, batch_shape):  # row i of the Bartlett factor: sqrt of a chi-square with df - i dof
        L = self._unbroadcasted_scale_tril
        return Chi2(df=df.unsqueeze(-1) - torchlike.arange(self._event_shape[-1], dtype=L.dtype, device=L.device)
                    .expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(new.df, batch_shape)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        eye = torchlike.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return torchlike.cholesky_solve(eye, L).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (V.pow(2) + torchlike.einsum("...i,...j->...ij", d, d))

    def _bartlett_sampling(self, sample_shape=Size()):
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = chi.clamp(min=torchlike.finfo(chi.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = torchlike.tril_indices(p, p, offset=-1)
        noise[..., i, j] = torchlike.randn(Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,),
                                           dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=Size(), max_try_correction=None):
        """Bartlett samples; singular ones are redrawn up to ``max_try_correction`` times (default 10), as torch
        does (with its "Singular sample detected." warning)."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # (as torch's code reads: the first check marks the samples *inside* the support)
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not bool(is_singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p, L = self.df, self._event_shape[-1], self._unbroadcasted_scale_tril
        return (-nu * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - torchlike.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * torchlike.linalg.slogdet(value).logabsdet
                - torchlike.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self):
        nu, p, L = self.df, self._event_shape[-1], self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + torchlike.mvlgamma(nu / 2, p=p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-torchlike.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + \
            torchlike.mvlgamma(y + (p + 1) / 2, p=p)
