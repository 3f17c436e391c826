"""torchlike._dynamo.utils: ``is_compile_supported``, which libraries ask before choosing a compilable path, and
``disable_cache_limit``, which optimizer libraries (heavyball) wrap their steps in.

>>> from torchlike._dynamo.utils import is_compile_supported
>>> is_compile_supported("cpu")
True
"""
from __future__ import annotations

import contextlib
import sys

from .. import _device
from . import config

__all__ = ["is_compile_supported", "disable_cache_limit"]


@contextlib.contextmanager
def disable_cache_limit():
    """torch's: ``recompile_limit`` and ``accumulated_recompile_limit`` are ``sys.maxsize`` inside the block and
    restored after it.

    >>> import torchlike._dynamo as d
    >>> with d.utils.disable_cache_limit():
    ...     d.config.recompile_limit == sys.maxsize
    True
    """
    prior, prior_acc = config.recompile_limit, config.accumulated_recompile_limit
    config.recompile_limit = config.accumulated_recompile_limit = sys.maxsize
    try:
        yield
    finally:
        config.recompile_limit, config.accumulated_recompile_limit = prior, prior_acc


def is_compile_supported(device_type) -> bool:
    """Whether ``torch.compile`` supports tensors on ``device_type``: torchlike compiles for every device it
    runs on (the JAX backends), so this is True for cpu, cuda and the other device types it accepts."""
    return _device.device(device_type).type in ("cpu", "cuda", "xpu", "mtia")
