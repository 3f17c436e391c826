"""torch.distributed's debug level (``TORCH_DISTRIBUTED_DEBUG``) and ``breakpoint``.

>>> import torchlike.distributed as dist
>>> dist.get_debug_level()
<DebugLevel.OFF: 0>
"""
from __future__ import annotations

import enum
import os
import pdb

from . import _process_group as _pg

__all__ = ["DebugLevel", "get_debug_level", "set_debug_level", "set_debug_level_from_env", "breakpoint"]


class DebugLevel(enum.Enum):
    """OFF, INFO or DETAIL (what torch's collectives log and check)."""
    OFF = 0
    INFO = 1
    DETAIL = 2


_level = [None]


def get_debug_level():
    if _level[0] is None:
        set_debug_level_from_env()
    return _level[0]


def set_debug_level(level):
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level(): incompatible function arguments. Got {type(level).__name__}")
    _level[0] = level


def set_debug_level_from_env():
    name = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if name not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    _level[0] = DebugLevel[name]


_calls = [0]


def breakpoint(rank=0, skip=0, timeout_s=3600):
    """Stop rank ``rank`` in pdb while the other ranks wait at a barrier (as torch's); the first ``skip``
    calls pass."""
    _calls[0] += 1
    if _calls[0] <= skip:
        return
    on = _pg.is_initialized()
    if not on or _pg.get_rank() == rank:
        pdb.Pdb(skip=["torchlike.distributed.*"]).set_trace()
    if on:
        _pg.barrier()
