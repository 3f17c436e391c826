"""torch.cuda.amp.autocast_mode: the legacy CUDA autocast and its custom_fwd/custom_bwd decorators."""
from . import autocast, custom_bwd, custom_fwd

__all__ = ["autocast", "custom_fwd", "custom_bwd"]
