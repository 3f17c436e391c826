"""FSDP1's configuration types (``torch.distributed.fsdp.api``): sharding strategies, state-dict types and
their configs, mixed precision, CPU offload.

>>> from torchlike.distributed.fsdp.api import ShardingStrategy, StateDictType, FullStateDictConfig
>>> ShardingStrategy.FULL_SHARD, StateDictType.FULL_STATE_DICT.value
(<ShardingStrategy.FULL_SHARD: 1>, 1)
>>> FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["BackwardPrefetch", "CPUOffload", "FullOptimStateDictConfig", "FullStateDictConfig",
           "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision", "OptimStateDictConfig",
           "OptimStateKeyType", "ShardedOptimStateDictConfig", "ShardedStateDictConfig", "ShardingStrategy",
           "StateDictConfig", "StateDictSettings", "StateDictType"]


class ShardingStrategy(enum.Enum):
    """How FSDP shards (all give the same results; torchlike shards parameters, gradients and optimizer state
    for every strategy, see docs/differences.md)."""
    FULL_SHARD = enum.auto()
    SHARD_GRAD_OP = enum.auto()
    NO_SHARD = enum.auto()
    HYBRID_SHARD = enum.auto()
    _HYBRID_SHARD_ZERO2 = enum.auto()


class BackwardPrefetch(enum.Enum):
    """When to prefetch the next all-gather in backward (accepted; torchlike does not prefetch)."""
    BACKWARD_PRE = enum.auto()
    BACKWARD_POST = enum.auto()


class StateDictType(enum.Enum):
    """What ``state_dict()`` of an FSDP module returns: full tensors, DTensor shards or local shards."""
    FULL_STATE_DICT = enum.auto()
    LOCAL_STATE_DICT = enum.auto()
    SHARDED_STATE_DICT = enum.auto()


class OptimStateKeyType(enum.Enum):
    PARAM_NAME = enum.auto()
    PARAM_ID = enum.auto()


@dataclass
class MixedPrecision:
    """FSDP1's mixed precision: dtype of the gathered parameters, of the gradient reduction, of buffers."""
    param_dtype: Optional[Any] = None
    reduce_dtype: Optional[Any] = None
    buffer_dtype: Optional[Any] = None
    keep_low_precision_grads: bool = False
    cast_forward_inputs: bool = False
    cast_root_forward_inputs: bool = True
    _module_classes_to_ignore: tuple = field(default_factory=tuple)


@dataclass
class CPUOffload:
    """Offload parameters to the host (accepted: torchlike's CPU tensors are on the host already)."""
    offload_params: bool = False


@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False


@dataclass
class FullStateDictConfig(StateDictConfig):
    """``FULL_STATE_DICT`` options: ``rank0_only`` leaves the other ranks an empty dict."""
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    _use_dtensor: bool = False


@dataclass
class OptimStateDictConfig:
    offload_to_cpu: bool = True


@dataclass
class FullOptimStateDictConfig(OptimStateDictConfig):
    rank0_only: bool = False


@dataclass
class LocalOptimStateDictConfig(OptimStateDictConfig):
    offload_to_cpu: bool = False


@dataclass
class ShardedOptimStateDictConfig(OptimStateDictConfig):
    _use_dtensor: bool = False


@dataclass
class StateDictSettings:
    state_dict_type: StateDictType
    state_dict_config: StateDictConfig
    optim_state_dict_config: OptimStateDictConfig
