"""``torch.cpu.amp.autocast``: the deprecated spelling of ``torch.amp.autocast('cpu', ...)``."""
from __future__ import annotations

import warnings

from ... import _dtype
from ...amp.autocast_mode import autocast as _autocast

__all__ = ["autocast"]


class autocast(_autocast):
    """``torch.amp.autocast("cpu", ...)`` under its old name (warns FutureWarning, as torch does).

    >>> import warnings, torchlike
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ac = autocast()
    >>> ac.device, ac.fast_dtype
    ('cpu', torch.bfloat16)
    """

    def __init__(self, enabled: bool = True, dtype=_dtype.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
