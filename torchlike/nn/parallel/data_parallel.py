"""``torch.nn.parallel.data_parallel``: DataParallel, a thin single-device wrapper (it holds ``module``
and calls it), and the functional ``data_parallel``.

>>> import torchlike as torch
>>> torch.nn.DataParallel(torch.nn.Identity())(torch.ones(2)).tolist()
[1.0, 1.0]
"""
from __future__ import annotations

from ... import _device
from ..._device import _gpus
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; ``forward`` calls it directly. Without a GPU it holds only ``module`` and an empty
    ``device_ids``, as torch's does; with GPUs, torch's attributes (the work stays on one device)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not _gpus():
            self.device_ids = []
            return
        self.device_ids = list(range(len(_gpus()))) if device_ids is None else \
            [d if isinstance(d, int) else (_device.device(d).index or 0) for d in device_ids]
        self.output_device = self.device_ids[0] if output_device is None else output_device
        self.dim = dim
        self.src_device_obj = _device.device("cuda", self.device_ids[0])

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Functional DataParallel: ``module(*inputs)`` (torch's error without a GPU)."""
    if not _gpus():
        raise RuntimeError("device type could not be determined")
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))
