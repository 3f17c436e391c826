"""``torch.distributed.tensor``: DTensor, placements and factories on JAX shardings.

>>> import torchlike
>>> from torchlike.distributed.tensor import DTensor, Shard, Replicate, distribute_tensor, init_device_mesh
>>> mesh = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
>>> d = distribute_tensor(torchlike.arange(6.).reshape(3, 2), mesh, [Shard(0)])
>>> isinstance(d, DTensor), tuple(d.shape), d.placements
(True, (3, 2), (Shard(dim=0),))
"""
from __future__ import annotations

from ... import _creation
from ..._ops import random_ops as _random_ops
from ..device_mesh import DeviceMesh, init_device_mesh
from . import placement_types
from ._dtensor import DTensor, _default_mesh, distribute_tensor
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = [
    "DTensor",
    "DeviceMesh",
    "Partial",
    "Placement",
    "Replicate",
    "Shard",
    "distribute_module",
    "distribute_tensor",
    "empty",
    "full",
    "init_device_mesh",
    "ones",
    "placement_types",
    "rand",
    "randn",
    "zeros",
]


def _factory(fn, size, device_mesh, placements, requires_grad, kw):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    t = fn(*size, **kw)
    d = distribute_tensor(t, device_mesh if device_mesh is not None else _default_mesh(), placements)
    d.requires_grad_(requires_grad)
    return d


def zeros(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None, placements=None):
    """A DTensor of zeros.

    >>> zeros(2, device_mesh=init_device_mesh("cpu", (1,))).full_tensor()
    tensor([0., 0.])
    """
    return _factory(_creation.zeros, size, device_mesh, placements, requires_grad, {"dtype": dtype})


def ones(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None, placements=None):
    """A DTensor of ones."""
    return _factory(_creation.ones, size, device_mesh, placements, requires_grad, {"dtype": dtype})


def empty(*size, dtype=None, layout=None, requires_grad=False, device_mesh=None, placements=None):
    """An (uninitialised: here zero) DTensor."""
    return _factory(_creation.empty, size, device_mesh, placements, requires_grad, {"dtype": dtype})


def full(size, fill_value, *, dtype=None, layout=None, requires_grad=False, device_mesh=None, placements=None):
    """A DTensor filled with ``fill_value``."""
    return _factory(lambda *s, **k: _creation.full(s, fill_value, **k), tuple(size), device_mesh, placements,
                    requires_grad, {"dtype": dtype})


def rand(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None, placements=None):
    """A DTensor of uniform samples (drawn whole, then laid out)."""
    return _factory(_random_ops.rand, size, device_mesh, placements, requires_grad, {"dtype": dtype})


def randn(*size, requires_grad=False, dtype=None, layout=None, device_mesh=None, placements=None):
    """A DTensor of normal samples (drawn whole, then laid out)."""
    return _factory(_random_ops.randn, size, device_mesh, placements, requires_grad, {"dtype": dtype})


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None, output_fn=None):
    """Replicate (or ``partition_fn``-place) every parameter of ``module`` as a DTensor on ``device_mesh``.

    >>> import torchlike
    >>> m = distribute_module(torchlike.nn.Linear(2, 1), init_device_mesh("cpu", (1,)))
    >>> m.weight.placements, m.weight.requires_grad
    ((Replicate(),), True)
    """
    mesh = device_mesh if device_mesh is not None else _default_mesh()
    if partition_fn is not None:
        for name, sub in module.named_modules():
            partition_fn(name, sub, mesh)
    for sub in module.modules():
        for key, p in list(sub._parameters.items()):
            if p is not None and not isinstance(p, DTensor):
                d = distribute_tensor(p.detach(), mesh, [Replicate()] * mesh.ndim)
                d.requires_grad_(p.requires_grad)
                sub._parameters[key] = d
    if input_fn is not None:
        module.register_forward_pre_hook(lambda mod, inputs: input_fn(mod, inputs, mesh))
    if output_fn is not None:
        module.register_forward_hook(lambda mod, inputs, outputs: output_fn(mod, outputs, mesh))
    return module
