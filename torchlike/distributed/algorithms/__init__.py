"""``torch.distributed.algorithms``: DDP communication hooks (``ddp_comm_hooks``), ``Join`` and activation
checkpointing wrappers (``_checkpoint.checkpoint_wrapper``)."""
from . import _checkpoint, ddp_comm_hooks, join
from .join import Join, JoinHook, Joinable

__all__ = ["Join", "JoinHook", "Joinable", "ddp_comm_hooks", "join"]
