"""Hook-based spectral normalisation (torch.nn.utils.spectral_norm): parameter ``<name>_orig``,
buffers ``<name>_u`` / ``<name>_v``; the weight is recomputed before each forward.

>>> import torchlike as torch
>>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2))
>>> list(m.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
"""
from __future__ import annotations

from ... import _random
from ...autograd import grad_mode
from ...tensor import Tensor
from ..parameter import Parameter
from . import _norms

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        if do_power_iteration:
            with grad_mode.no_grad():
                nu, nv = _norms.power_method(weight.detach(), u, v, self.eps, self.dim,
                                                self.n_power_iterations, v_first=True)
                u._set_value(nu._value)
                v._set_value(nv._value)
        return _norms.spectral_divide(weight, u.detach(), v.detach(), self.dim)

    def remove(self, module):
        with grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with grad_mode.no_grad():
            h = weight.shape[dim]
            w = weight.numel() // h
            dt = weight._value.dtype
            from .. import functional as F
            u = F.normalize(Tensor._wrap(_random.draw("normal", (h,), dt, None, args=(0.0, 1.0))), dim=0, eps=eps)
            v = F.normalize(Tensor._wrap(_random.draw("normal", (w,), dt, None, args=(0.0, 1.0))), dim=0, eps=eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Replace ``module.<name>`` by W / sigma(W) recomputed (with power iteration in training) each forward."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
