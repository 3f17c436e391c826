"""``parallelize_module``: apply tensor-parallel styles to a module or to its submodules by name.

>>> import torchlike
>>> from torchlike.distributed.device_mesh import init_device_mesh
>>> from torchlike.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
>>> mlp = torchlike.nn.Sequential(torchlike.nn.Linear(4, 8), torchlike.nn.ReLU(), torchlike.nn.Linear(8, 4))
>>> mlp = parallelize_module(mlp, init_device_mesh("cpu", (1,)), {"0": ColwiseParallel(), "2": RowwiseParallel()})
>>> mlp[0].weight.placements, mlp[2].weight.placements, tuple(mlp(torchlike.ones(2, 4)).shape)
((Shard(dim=0),), (Shard(dim=1),), (2, 4))
"""
from __future__ import annotations

import fnmatch

from .style import ParallelStyle
from ..._process_group import get_world_size, is_initialized
from .._dtensor import _default_mesh

__all__ = ["parallelize_module"]


def _check_mesh(mesh):
    world = get_world_size() if is_initialized() else 1
    if mesh.ndim != 1 or mesh.size() > world:
        raise NotImplementedError(f"torchlike's tensor parallelism runs over a 1-d mesh of ranks (a mesh or a "
                                  f"sub-mesh such as mesh['tp']; world size {world}), got a mesh of shape "
                                  f"{mesh.shape}")


def parallelize_module(module, device_mesh=None, parallelize_plan=None, *, src_data_rank=0):
    """Apply ``parallelize_plan`` (a ParallelStyle, or ``{submodule name pattern: ParallelStyle}``; names may
    use ``*`` wildcards per dotted part) over ``device_mesh``; returns ``module``."""
    mesh = device_mesh if device_mesh is not None else _default_mesh()
    _check_mesh(mesh)
    if parallelize_plan is None:
        import warnings
        warnings.warn("No parallelize_plan is provided and auto-parallel is not supported at the moment, so this "
                      "parallelize_module call will do nothing.", stacklevel=2)
        return module
    if isinstance(parallelize_plan, ParallelStyle):
        parallelize_plan.src_data_rank = src_data_rank
        return parallelize_plan._apply(module, mesh)
    if not isinstance(parallelize_plan, dict):
        raise TypeError(f"Expect Union[ParallelStyle, Dict[str, ParallelStyle]] for parallelize_plan, "
                        f"{type(parallelize_plan)} found!")
    for pattern, style in parallelize_plan.items():
        parts = pattern.split(".")
        first, rest = parts[0], ".".join(parts[1:])
        matched = False
        for name, child in module.named_children():
            if fnmatch.fnmatch(name, first):
                matched = True
                parallelize_module(child, mesh, {rest: style} if rest else style, src_data_rank=src_data_rank)
        if not matched:
            raise ValueError(f"Submodule path '{pattern}' does not match any child of {type(module).__name__}")
    return module
