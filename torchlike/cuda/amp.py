"""Legacy torch.cuda.amp: autocast (device 'cuda') and GradScaler."""
from __future__ import annotations

from ..amp import GradScaler as _GradScaler
from ..amp.autocast_mode import autocast as _autocast, custom_bwd, custom_fwd  # noqa: F401

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
