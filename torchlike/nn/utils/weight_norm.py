"""The hook-based weight normalisation, ``torch.nn.utils.weight_norm`` (deprecated in torch in favour
of ``nn.utils.parametrizations.weight_norm``, and so here too).

The parameter ``<name>`` is split into a magnitude ``<name>_g`` and a direction ``<name>_v``; a
forward pre-hook (a ``WeightNorm`` object) rebuilds ``<name> = g * v / ||v||`` before each call.

>>> import warnings
>>> import torchlike as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     m = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
>>> list(m.state_dict())
['bias', 'weight_g', 'weight_v']
"""
from __future__ import annotations

import warnings

from ..parameter import Parameter, is_lazy
from . import _norms

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_DEPRECATION = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
                "`torch.nn.utils.parametrizations.weight_norm`.")


def _pre_hooks_of(module, name):
    """(hook id, hook) of the WeightNorm pre-hooks acting on ``name``."""
    return [(key, hook) for key, hook in module._forward_pre_hooks.items()
            if isinstance(hook, WeightNorm) and hook.name == name]


class WeightNorm:
    """Forward pre-hook recomputing ``module.<name>`` from ``<name>_g`` and ``<name>_v``.

    ``dim`` is the dimension kept when taking the norm of ``v``; ``None`` (stored as -1) means the
    norm of the whole tensor.
    """

    name: str
    dim: int

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def _pieces(self, module):
        return getattr(module, f"{self.name}_g"), getattr(module, f"{self.name}_v")

    def compute_weight(self, module):
        """g * v / ||v|| from the module's current parameters."""
        magnitude, direction = self._pieces(module)
        return _norms.weight_norm_apply(direction, magnitude, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Split ``module.<name>`` into g and v and install the hook; returns the hook."""
        if _pre_hooks_of(module, name):
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        hook = WeightNorm(name, dim)
        original = getattr(module, name)
        if is_lazy(original):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. Make sure "
                             "to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        frozen = original.detach()
        module.register_parameter(f"{name}_g", Parameter(_norms.norm_except_dim(frozen, hook.dim)))
        module.register_parameter(f"{name}_v", Parameter(frozen))
        # until the first forward the attribute already holds the (equal) recomputed weight
        setattr(module, name, hook.compute_weight(module))
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        """Fold g and v back into a single Parameter ``<name>``."""
        merged = self.compute_weight(module).detach()
        delattr(module, self.name)
        for suffix in ("_g", "_v"):
            del module._parameters[self.name + suffix]
        setattr(module, self.name, Parameter(merged))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as g * v / ||v|| (recomputed before every forward); returns module.

    >>> import warnings
    >>> import torchlike as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = torch.nn.utils.weight_norm(torch.nn.Linear(4, 2), dim=0)
    >>> m.weight_g.shape, m.weight_v.shape
    (torch.Size([2, 1]), torch.Size([2, 4]))
    """
    warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm` on ``name``; ValueError if it was not applied."""
    found = _pre_hooks_of(module, name)
    if not found:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    key, hook = found[0]
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module
