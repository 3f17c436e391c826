"""torchlike.nn.attention: choosing scaled-dot-product-attention kernels (torch.nn.attention).

torchlike has one SDPA implementation (XLA fuses torch's math formulation), so every backend computes the
same result; ``sdpa_kernel`` accepts any choice and restores the previous one on exit.

>>> import torchlike
>>> from torchlike.nn.attention import SDPBackend, sdpa_kernel
>>> q = torchlike.ones(1, 1, 2, 4)
>>> with sdpa_kernel(SDPBackend.MATH):
...     torchlike.nn.functional.scaled_dot_product_attention(q, q, q).shape
torch.Size([1, 1, 2, 4])
"""
from __future__ import annotations

import contextlib

from ..._pybind_enum import PybindEnum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(PybindEnum):
    """The scaled-dot-product-attention backends torch knows (torchlike runs them all the same way)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4



_ALL = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
        SDPBackend.OVERRIDEABLE]
_enabled = list(_ALL)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Context manager enabling only ``backends`` (a backend or a list) for scaled_dot_product_attention."""
    chosen = list(backends) if isinstance(backends, (list, tuple, set)) else [backends]
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                                 f"got {type(b).__name__}")
    previous = list(_enabled)
    _enabled[:] = chosen
    try:
        yield {}
    finally:
        _enabled[:] = previous


def _current_backends():
    return list(_enabled)
