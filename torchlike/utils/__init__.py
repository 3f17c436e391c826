"""torchlike.utils: data loading (utils.data), checkpointing, tensorboard, dlpack."""
from .._missing import module_getattr

__getattr__ = module_getattr("torch.utils")
