"""``torch.distributed.algorithms._checkpoint``: activation checkpointing wrappers (``checkpoint_wrapper``)."""
from . import checkpoint_wrapper

__all__ = ["checkpoint_wrapper"]
