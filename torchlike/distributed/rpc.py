"""torchlike.distributed.rpc: torch's RPC framework is not provided; the module answers as torch's does in a build
without RPC support (``is_available()`` is False and nothing else is defined), which is what libraries check
before they use it (see docs/differences.md).

>>> import torchlike.distributed.rpc as rpc
>>> rpc.is_available()
False
"""
from __future__ import annotations

from .._missing import module_getattr

__all__ = ["is_available"]


def is_available() -> bool:
    """False: torchlike has no RPC agent (torch.distributed.rpc's init_rpc/rpc_sync/remote)."""
    return False


__getattr__ = module_getattr("torch.distributed.rpc")
