"""``torch.distributed._composable.fsdp.fully_shard``: FSDP2's API at its older module path (the objects of
``torchlike.distributed.fsdp``).

>>> from torchlike.distributed._composable.fsdp.fully_shard import fully_shard
>>> from torchlike.distributed.fsdp import fully_shard as f2
>>> fully_shard is f2
True
"""
from __future__ import annotations

from ...fsdp import FSDPModule, UnshardHandle, fully_shard, register_fsdp_forward_method

__all__ = ["FSDPModule", "UnshardHandle", "fully_shard", "register_fsdp_forward_method"]
