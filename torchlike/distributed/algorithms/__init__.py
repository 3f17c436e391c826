"""``torch.distributed.algorithms``: DDP communication hooks (``ddp_comm_hooks``) and ``Join``."""
from . import ddp_comm_hooks, join
from .join import Join, JoinHook, Joinable

__all__ = ["Join", "JoinHook", "Joinable", "ddp_comm_hooks", "join"]
