"""``torch.distributed.fsdp``: FSDP2's ``fully_shard`` and FSDP1's ``FullyShardedDataParallel`` on
torchlike's process groups. Parameters are really sharded (each rank keeps the dim-0 ``torch.chunk`` piece as a
shard-backed DTensor), all-gathered for compute and their gradients reduce-scattered, every collective an XLA
collective (``torchlike.distributed``).

>>> import torchlike
>>> from torchlike.distributed.fsdp import fully_shard, FullyShardedDataParallel, ShardingStrategy
>>> m = fully_shard(torchlike.nn.Linear(2, 3))
>>> tuple(m.weight.shape), tuple(m.weight.to_local().shape)
((3, 2), (3, 2))
"""
from __future__ import annotations

from . import api, wrap
from ._fully_shard import (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy, UnshardHandle,
                           fully_shard, register_fsdp_forward_method)
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision, OptimStateDictConfig,
                  OptimStateKeyType, ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictSettings, StateDictType)
from .fully_sharded_data_parallel import FullyShardedDataParallel
from ..._missing import module_getattr

for _obj in (CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy, UnshardHandle, fully_shard,
             register_fsdp_forward_method):
    _obj.__module__ = __name__  # torch's home for FSDP2's names

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FSDPModule", "FullOptimStateDictConfig",
           "FullStateDictConfig", "FullyShardedDataParallel", "LocalOptimStateDictConfig", "LocalStateDictConfig",
           "MixedPrecision", "MixedPrecisionPolicy", "OffloadPolicy", "OptimStateDictConfig", "OptimStateKeyType",
           "ShardedOptimStateDictConfig", "ShardedStateDictConfig", "ShardingStrategy", "StateDictConfig",
           "StateDictSettings", "StateDictType", "UnshardHandle", "api", "fully_shard",
           "register_fsdp_forward_method", "wrap"]

__getattr__ = module_getattr("torch.distributed.fsdp")
