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

import torchlike
from torchlike.tensor import Size

from . import constraints
from .continuous import Beta, Normal
from .distribution import Distribution
from .structured_transforms import StickBreakingTransform
from .transformed_distribution import TransformedDistribution
from .utils import _standard_normal, broadcast_all, lazy_property

__all__ = ["LowRankMultivariateNormal", "LogisticNormal", "LKJCholesky"]


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
