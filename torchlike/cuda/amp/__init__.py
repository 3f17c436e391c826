"""Legacy torch.cuda.amp: autocast (device 'cuda') and GradScaler (also under torch's submodule names
``torch.cuda.amp.autocast_mode`` / ``.grad_scaler`` / ``.common``)."""
from __future__ import annotations

import warnings

from ... import _dtype
from ...amp import GradScaler as _GradScaler
from ...amp import autocast_mode as _am
from ...amp.autocast_mode import autocast as _autocast

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def _deprecated(name, instead):
    warnings.warn(f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use `{instead}` instead.", FutureWarning,
                  stacklevel=3)


class autocast(_autocast):
    """``torch.amp.autocast("cuda", ...)`` under its old name (FutureWarning, as torch's; without a GPU it
    warns and disables itself).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ac = autocast()
    >>> ac.device, ac.fast_dtype
    ('cuda', torch.float16)
    """

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        _deprecated("autocast", "torch.amp.autocast('cuda', args...)")
        from .. import is_available  # lazy: torchlike.cuda imports this module
        if enabled and not is_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
            enabled = False
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its old name (FutureWarning, as torch's)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _deprecated("GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Legacy ``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(device_type='cuda')`` (FutureWarning)."""
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _am.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """Legacy ``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(device_type='cuda')`` (FutureWarning)."""
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _am.custom_bwd(bwd, device_type="cuda")
