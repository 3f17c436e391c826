"""torchlike.distributed: process groups on JAX's distributed runtime (minimal for now: single process)."""
from __future__ import annotations

from .._missing import module_getattr

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size", "init_process_group", "barrier",
           "destroy_process_group", "ReduceOp", "all_reduce", "broadcast"]

_state = {"initialized": False, "rank": 0, "world": 1}


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _state["initialized"]


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Single-process groups work; multi-process groups arrive with the distributed issue."""
    import os
    ws = world_size if world_size != -1 else int(os.environ.get("WORLD_SIZE", 1))
    if ws != 1:
        raise NotImplementedError("multi-process torch.distributed is not implemented in torchlike yet")
    _state.update(initialized=True, rank=0, world=1)


def destroy_process_group(group=None):
    _state.update(initialized=False)


def _need():
    if not _state["initialized"]:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def get_rank(group=None) -> int:
    _need()
    return _state["rank"]


def get_world_size(group=None) -> int:
    _need()
    return _state["world"]


def barrier(group=None, async_op=False, device_ids=None):
    _need()


class ReduceOp:
    SUM, PRODUCT, MIN, MAX, AVG = "sum", "product", "min", "max", "avg"


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _need()  # one process: the reduction is the tensor itself


def broadcast(tensor, src, group=None, async_op=False):
    _need()


__getattr__ = module_getattr("torch.distributed")
