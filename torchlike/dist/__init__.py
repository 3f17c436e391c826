"""SPMD data parallelism and sharded parameters over a ``jax.sharding.Mesh`` (the compile path); the torch
API for multi-process training is ``torchlike.distributed``.

``make_mesh``, ``replicate``, ``fully_shard`` (FSDP-style sharded parameters), ``data_parallel`` (a compiled
step over the mesh) and ``bytes_per_device`` live in ``_spmd``.

Importing this package makes ``torchlike.dist`` refer to it, but ``torch.dist`` is also an op (the
p-norm distance), so the package is callable and calls that op:

>>> import torchlike
>>> import torchlike.dist
>>> torchlike.dist(torchlike.tensor([1., 1.]), torchlike.tensor([4., 5.]))
tensor(5.)
"""
import sys as _sys
import types as _types

from .._ops.reduction import dist as _dist_op
from .._ops.registry import TABLE as _TABLE
from ._spmd import bytes_per_device, data_parallel, fully_shard, make_mesh, replicate

__all__ = ["bytes_per_device", "data_parallel", "fully_shard", "make_mesh", "replicate"]


class _CallableModule(_types.ModuleType):
    """Importing this package rebinds ``torchlike.dist`` (torch.dist, the p-norm distance) to the module, so the
    module calls the op."""

    def __call__(self, /, *args, **kwargs):  # torch.dist as the op table installed it (its parser errors name
        return _TABLE["torch", "dist"].public(*args, **kwargs)  # dist() and count the function's positions)


_sys.modules[__name__].__class__ = _CallableModule
__wrapped__ = _dist_op   # the table entry it stands for (tests/test_registry.py)
