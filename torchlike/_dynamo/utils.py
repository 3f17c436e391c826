"""torchlike._dynamo.utils: ``is_compile_supported``, which libraries ask before choosing a compilable path.

>>> from torchlike._dynamo.utils import is_compile_supported
>>> is_compile_supported("cpu")
True
"""
from __future__ import annotations

from .. import _device

__all__ = ["is_compile_supported"]


def is_compile_supported(device_type) -> bool:
    """Whether ``torch.compile`` supports tensors on ``device_type``: torchlike compiles for every device it
    runs on (the JAX backends), so this is True for cpu, cuda and the other device types it accepts."""
    return _device.device(device_type).type in ("cpu", "cuda", "xpu", "mtia")
