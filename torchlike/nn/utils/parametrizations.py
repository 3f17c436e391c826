"""Parametrizations: weight_norm, spectral_norm, orthogonal (torch.nn.utils.parametrizations).

>>> import torchlike as torch
>>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
>>> list(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""
from __future__ import annotations


from ... import _creation, _creation_ranges, _dtype, _random
from ..._ops import comparisons, linalg_decomp, matrix_exp as _matrix_exp, random_ops
from ..._ops import linalg as _linalg
from ..._ops.shape import cat as _cat
from ...autograd import grad_mode
from ...tensor import Tensor
from ..modules.module import Module
from . import _norms, parametrize
from .. import functional as F

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _norms.weight_norm_apply(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norms.norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as g * v / ||v|| (originals: g = original0, v = original1)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            h = weight.shape[self.dim]
            w = weight.numel() // h
            dt = weight._value.dtype
            u = Tensor._wrap(_random.draw("normal", (h,), dt, None, args=(0.0, 1.0)), weight.device)
            v = Tensor._wrap(_random.draw("normal", (w,), dt, None, args=(0.0, 1.0)), weight.device)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight, 15)

    def _power_method(self, weight, n_power_iterations):
        with grad_mode.no_grad():
            u, v = _norms.power_method(weight.detach(), self._u, self._v, self.eps, self.dim, n_power_iterations)
            self._u._set_value(u._value)
            self._v._set_value(v._value)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        if self.training:
            self._power_method(weight, self.n_power_iterations)
        # clones, like torch: the next forward's power iteration rewrites the buffers in place
        return _norms.spectral_divide(weight, self._u.detach().clone(), self._v.detach().clone(), self.dim)

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrize ``module.<name>`` as W / sigma(W), sigma estimated by power iteration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


_ORTH_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = _creation_ranges.eye(k, dtype=Q.dtype, device=Q.device)
    return comparisons.allclose(Q.mH @ Q, Id, atol=10.0 * n * _dtype.finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """Q of A = QR for a tall A, with diag(R) made real and non-negative (torch's geqrf route)."""
    X, tau = linalg_decomp.geqrf(A)
    Q = linalg_decomp.householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _Orthogonal(Module):
    """torch's orthogonal map: matrix_exp / cayley of a skew-symmetric matrix, or a product of Householder
    reflectors, composed with a ``base`` buffer under the dynamic trivialization (``use_trivialization``)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp.matrix_exp(A)
            else:  # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                Id = _creation_ranges.eye(n, dtype=A.dtype, device=A.device)
                Q = _linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg_decomp.householder_product(A, tau)
            # the diagonal of X holds the signs (+-1); cast so that it gets no gradient
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with grad_mode.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            A, tau = linalg_decomp.geqrf(Q)
            # diag(R) > 0; LAPACK's tau is exactly zero where it skipped a reflection
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete Q into a full n x n orthogonal matrix, with torch's randn draw
            N = random_ops.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(_cat([Q, N], dim=-1))
        self.base = Q
        # -Id, so that householder(zeros(m, n)) == eye(m, n)
        neg_Id = _creation.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` to be orthogonal (or unitary): ``"matrix_exp"``, ``"cayley"`` or
    ``"householder"`` map, as torch (default: matrix_exp for square or complex, householder otherwise).

    >>> import torchlike as torch
    >>> m = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(3, 3))
    >>> bool((m.weight @ m.weight.T - torch.eye(3)).abs().max() < 1e-5)
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    if orthogonal_map not in _ORTH_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
