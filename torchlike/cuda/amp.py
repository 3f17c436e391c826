"""Legacy torch.cuda.amp: autocast (device 'cuda') and GradScaler."""
from __future__ import annotations

from ..amp import GradScaler as _GradScaler
from ..amp import autocast_mode as _am
from ..amp.autocast_mode import autocast as _autocast

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Legacy ``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(device_type='cuda')``."""
    return _am.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """Legacy ``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(device_type='cuda')``."""
    return _am.custom_bwd(bwd, device_type="cuda")
