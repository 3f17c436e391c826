"""torch.distributed.nn: collectives that autograd differentiates (``functional``), re-exported here as torch does.

>>> import torchlike.distributed.nn as dist_nn
>>> dist_nn.all_reduce.__module__
'torchlike.distributed.nn.functional'
"""
from __future__ import annotations

from ..._missing import module_getattr
from . import functional
from .functional import (all_gather, all_reduce, all_to_all, all_to_all_single, broadcast, gather, reduce,
                         reduce_scatter, scatter)

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "functional", "gather",
           "reduce", "reduce_scatter", "scatter"]

__getattr__ = module_getattr("torch.distributed.nn")  # RemoteModule (torch's RPC framework) and jit
