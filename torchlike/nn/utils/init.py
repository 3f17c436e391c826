"""torch.nn.utils.init: build a module without running its parameter initialisation.

>>> import torchlike as torch
>>> skip_init(torch.nn.Linear, 3, 2).weight.shape
torch.Size([2, 3])
"""
from __future__ import annotations

import inspect
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters/buffers hold unspecified values (as ``torch.empty``).

    torchlike builds the module normally (initialised values are one choice of "unspecified"); the
    ``device`` argument check is torch's.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    return module_cls(*args, **kwargs)
