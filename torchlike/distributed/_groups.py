"""Backend queries, subgroups and the monitored barrier of torch.distributed.

>>> import torchlike.distributed as dist
>>> dist.get_default_backend_for_device("cpu"), dist.is_backend_available("gloo")
('gloo', True)
"""
from __future__ import annotations

import os

from .. import _device
from . import _process_group as _pg
from ._reduce_op import ReduceOp

__all__ = ["get_default_backend_for_device", "is_backend_available", "is_ucc_available", "is_xccl_available",
           "supports_complex", "get_node_local_rank", "new_subgroups", "new_subgroups_by_enumeration",
           "monitored_barrier", "get_pg_count"]



_OTHER_DEVICE_TYPES = ("xpu", "hpu", "mtia", "ipu", "maia", "privateuseone")


def get_default_backend_for_device(device):
    """The backend torch uses for ``device``'s type (gloo for cpu, nccl for cuda)."""
    if isinstance(device, _device.device):
        kind = device.type
    else:
        kind = str(device).partition(":")[0]
        if kind not in _OTHER_DEVICE_TYPES:  # device types torch knows but torchlike cannot make
            kind = _device.device(device).type
    backend = _pg.Backend.default_device_backend_map.get(kind)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend


def is_ucc_available():
    return False


def is_xccl_available():
    return False


def is_backend_available(backend):
    """Whether ``backend`` ("gloo", "nccl", ...) can be used here."""
    name = str(backend).lower()
    check = {"gloo": _pg.is_gloo_available, "nccl": _pg.is_nccl_available, "mpi": _pg.is_mpi_available,
             "ucc": is_ucc_available, "xccl": is_xccl_available}.get(name)
    return bool(check()) if check is not None else False


def supports_complex(reduceOp):
    """Whether ``reduceOp`` is defined on complex tensors (SUM and AVG are; order-based ops are not)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND, ReduceOp.BOR,
                            ReduceOp.BXOR)


def get_node_local_rank(fallback_rank=None):
    """``LOCAL_RANK`` from the launcher's environment, else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context and "
                       "want the code to run locally instead.")


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Split the world into subgroups of ``group_size`` consecutive ranks; ``(this rank's subgroup, all)``."""
    if group_size is None:
        if not _pg.is_nccl_available():
            raise ValueError("Default group size only takes effect when CUDA is available.If your subgroup using a "
                             "backend that does not depend on CUDA,please pass in 'group_size' correctly.")
        import jax  # lazy: only the GPU default needs the device count
        group_size = len(jax.local_devices())
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world = _pg.get_world_size()
    if world < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world})")
    if world % group_size != 0:
        raise ValueError(f"The world size ({world}) must be divisible by 'group_size={group_size}'")
    ranks = [list(range(s, s + group_size)) for s in range(0, world, group_size)]
    return new_subgroups_by_enumeration(ranks, timeout=timeout, backend=backend, pg_options=pg_options)


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """One group per rank list (each rank in at most one); ``(this rank's subgroup or None, all)``."""
    if ranks_per_subgroup_list is None or len(ranks_per_subgroup_list) == 0:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    seen, subgroups, mine = {}, [], None
    me = _pg.get_rank()
    for ranks in ranks_per_subgroup_list:
        g = _pg.new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options)
        subgroups.append(g)
        for r in ranks:
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {seen[r]} and {ranks}")
            seen[r] = ranks
            if r == me:
                mine = g
    return mine, subgroups


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that reports the ranks that did not arrive within ``timeout`` (gloo only, as in torch)."""
    g = _pg._group(group)
    if g._backend != "gloo":
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is None:
        return _pg.barrier(group)
    saved = _pg._state["timeout"]
    _pg._state["timeout"] = timeout
    try:
        return _pg.barrier(group)
    finally:
        _pg._state["timeout"] = saved


def get_pg_count():
    """The number of process groups created so far (the world included)."""
    return _pg.ProcessGroup._next_id
