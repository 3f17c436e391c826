"""The hook-based spectral normalisation, ``torch.nn.utils.spectral_norm``.

``module.<name>`` is stored as the parameter ``<name>_orig`` plus two buffers, ``<name>_u`` and
``<name>_v``, estimates of the leading singular vectors of the weight seen as a matrix. A forward
pre-hook (a ``SpectralNorm`` object) sets ``<name> = W / sigma`` with ``sigma = u . (W v)``, first
refining u and v by power iteration when the module is training.

>>> import torchlike as torch
>>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2))
>>> list(m.state_dict())
['bias', 'weight_orig', 'weight_u', 'weight_v']
"""
from __future__ import annotations

from ...autograd import grad_mode
from ..parameter import Parameter, is_lazy
from . import _norms
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def _pre_hooks_of(module, name):
    return [(key, hook) for key, hook in module._forward_pre_hooks.items()
            if isinstance(hook, SpectralNorm) and hook.name == name]


def _unit_normal(like, size, eps):
    return F.normalize(like.new_empty(size).normal_(0, 1), dim=0, eps=eps)


class SpectralNorm:
    """Forward pre-hook dividing ``module.<name>_orig`` by its estimated largest singular value.

    ``dim`` is the weight dimension that becomes the matrix rows (0 in general, 1 for transposed
    convolutions).
    """

    # version 1 added the ``<name>_v`` buffer; older checkpoints are upgraded on load
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a 2-D matrix whose rows run along ``self.dim``."""
        rows_first = weight.movedim(self.dim, 0) if self.dim != 0 else weight
        return rows_first.reshape(rows_first.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """W / sigma; with ``do_power_iteration`` the u/v buffers are refined in place first."""
        weight = getattr(module, self.name + "_orig")
        left = getattr(module, self.name + "_u")
        right = getattr(module, self.name + "_v")
        if do_power_iteration:
            with grad_mode.no_grad():
                new_left, new_right = _norms.power_method(weight.detach(), left, right, self.eps, self.dim,
                                                          self.n_power_iterations, v_first=True)
                left._set_value(new_left._value)
                right._set_value(new_right._value)
        # u and v enter as constants: the gradient flows through W only (torch clones them)
        # (clones, like torch: the next forward's power iteration rewrites the buffers in place)
        return _norms.spectral_divide(weight, left.detach().clone(), right.detach().clone(), self.dim)

    def _v_for(self, matrix, u, sigma):
        """A v with u . (W v) == sigma, from the least-squares solution of W v = u (legacy checkpoints)."""
        v = matrix.pinverse() @ u
        return v * (sigma / u.dot(matrix.mv(v)))

    def remove(self, module):
        """Replace the original/u/v trio by a plain Parameter holding the current normalised weight."""
        with grad_mode.no_grad():
            settled = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(settled.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Install spectral normalisation on ``module.<name>``; returns the hook."""
        if _pre_hooks_of(module, name):
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if is_lazy(weight):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. Make sure "
                             "to run the dummy forward before applying spectral normalization")
        with grad_mode.no_grad():
            rows, cols = hook.reshape_weight_to_matrix(weight).shape
            u = _unit_normal(weight, rows, hook.eps)
            v = _unit_normal(weight, cols, hook.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        # a plain tensor attribute until the first forward replaces it
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(hook)
        module._register_state_dict_hook(SpectralNormStateDictHook(hook))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(hook))
        return hook


class SpectralNormStateDictHook:
    """Records ``<name>.version`` under ``metadata['spectral_norm']`` when the state dict is saved."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """Upgrades version-0 checkpoints (``<name>``, ``<name>_orig``, ``<name>_u`` but no ``<name>_v``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version")
        if version is not None and version >= 1:
            return
        base = prefix + fn.name
        current_layout = all(base + s in state_dict for s in ("_orig", "_u", "_v")) and base not in state_dict
        if version is None and current_layout:
            return  # a current checkpoint that merely lost its metadata
        absent = [base + s for s in ("_orig", "", "_u") if base + s not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with grad_mode.no_grad():
            original = state_dict[base + "_orig"]
            normalised = state_dict.pop(base)
            sigma = (original / normalised).mean()
            state_dict[base + "_v"] = fn._v_for(fn.reshape_weight_to_matrix(original), state_dict[base + "_u"],
                                                sigma)


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Normalise ``module.<name>`` by its spectral norm before every forward; returns module.

    ``dim`` defaults to 1 for ConvTranspose modules and 0 otherwise.

    >>> import torchlike as torch
    >>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
    >>> m.weight_u.shape, m.weight_v.shape
    (torch.Size([3]), torch.Size([4]))
    """
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm` on ``name`` (its state-dict hooks go too); ValueError if not applied."""
    found = _pre_hooks_of(module, name)
    if not found:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    key, hook = found[0]
    hook.remove(module)
    del module._forward_pre_hooks[key]
    for table, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for hook_id, registered in list(table.items()):
            target = getattr(registered, "hook", registered)  # load pre-hooks are wrapped
            if isinstance(target, kind) and target.fn.name == name:
                del table[hook_id]
    return module
