"""``torch.nn.parallel.data_parallel``: DataParallel, a thin single-device wrapper (it holds ``module``
and calls it), and the functional ``data_parallel``.

>>> import torchlike as torch
>>> from torchlike.nn.parallel.data_parallel import data_parallel
>>> data_parallel(torch.nn.Identity(), torch.ones(2)).tolist()
[1.0, 1.0]
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; ``forward`` calls it directly."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Functional DataParallel: ``module(*inputs)``."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))
