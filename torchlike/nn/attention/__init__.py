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

from ...backends.cuda import SDPBackend, current_backends, set_backends

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Context manager enabling only ``backends`` (a backend or a list) for scaled_dot_product_attention;
    ``torch.backends.cuda.flash_sdp_enabled()`` & co. read the choice."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    backends = list(dict.fromkeys([backends] if isinstance(backends, SDPBackend) else backends))
    previous = current_backends(with_priority=set_priority)
    try:
        set_backends(backends, set_priority)
        yield {}
    finally:
        set_backends(previous, set_priority)


def _cur_sdpa_kernel_backends(with_priority: bool = False):
    return current_backends(with_priority)
