"""torch._utils: the device-module helpers libraries call (``_get_available_device_type``, ``_get_device_module``).

torchlike runs on the device JAX gives it; the accelerator family a library should synchronise or stream on is the
one whose ``torch.<type>`` module reports ``is_available()``, as in torch.

>>> _get_device_module("cpu").__name__
'torchlike.cpu'
"""
from __future__ import annotations

import functools
import sys

__all__ = ["_get_available_device_type", "_get_device_module"]


def _get_available_device_type():
    """The available accelerator type (``"cuda"``, ``"mps"``, ``"xpu"``, ``"mtia"``), or None on a CPU-only host."""
    torch = sys.modules[__package__]
    mps = getattr(getattr(torch, "backends", None), "mps", None)
    for name, mod in (("cuda", getattr(torch, "cuda", None)), ("mps", mps), ("xpu", getattr(torch, "xpu", None)),
                      ("mtia", getattr(torch, "mtia", None))):
        if mod is not None and hasattr(mod, "is_available") and mod.is_available():
            return name
    return None


@functools.lru_cache(2)
def _get_device_module(device_type: str):
    """``torch.<device_type>`` (``torch.cuda`` for ``"cuda"``); RuntimeError when there is no such module."""
    mod = getattr(sys.modules[__package__], device_type, None)
    if mod is None:
        raise RuntimeError(f"Device '{device_type}' does not have a corresponding module registered as "
                           f"'torch.{device_type}'.")
    return mod
