"""``torch.distributed._composable.fsdp``: FSDP2's names at their older import path (same objects as
``torchlike.distributed.fsdp``).

>>> from torchlike.distributed._composable.fsdp import fully_shard
>>> from torchlike.distributed.fsdp import fully_shard as f2
>>> fully_shard is f2
True
"""
from __future__ import annotations

from ...fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy
from .fully_shard import FSDPModule, fully_shard, register_fsdp_forward_method

__all__ = ["CPUOffloadPolicy", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy", "fully_shard",
           "register_fsdp_forward_method"]
