"""Parametrizations: weight_norm, spectral_norm, orthogonal (torch.nn.utils.parametrizations).

>>> import torchlike as torch
>>> m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
>>> list(m.state_dict())
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
"""
from __future__ import annotations


from ... import _random
from ...autograd import grad_mode
from ...tensor import Tensor
from ..modules.module import Module
from . import _norms, parametrize
from ..._dispatch import dispatch
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


class _Orthogonal(Module):
    """Q from the QR decomposition of the original (matrix_exp / cayley maps are not provided)."""

    def forward(self, X):
        return dispatch(_orth_f, (X,), name="LinalgQrBackward0")

    def right_inverse(self, Q):
        return Q


def _orth_f(x):
    import jax.numpy as jnp
    tall = x.shape[-2] >= x.shape[-1]
    a = x if tall else jnp.swapaxes(x, -1, -2)
    q, r = jnp.linalg.qr(a)
    q = q * jnp.sign(jnp.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
    return q if tall else jnp.swapaxes(q, -1, -2)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` to be (semi-)orthogonal (Householder/QR map)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    parametrize.register_parametrization(module, name, _Orthogonal(), unsafe=True)
    return module
