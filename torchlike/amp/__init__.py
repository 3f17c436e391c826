"""torchlike.amp: autocast and GradScaler.  On CPU, GradScaler is disabled exactly as torch disables it
(a warning, then every method is a pass-through); autocast to bfloat16/float16 casts matmul-like op
inputs where torch would (see torchlike.amp.autocast_mode)."""
from .autocast_mode import autocast, is_autocast_available, custom_fwd, custom_bwd  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "is_autocast_available", "custom_fwd", "custom_bwd"]
