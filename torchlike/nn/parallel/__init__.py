"""DataParallel (a thin single-device wrapper: it holds ``module`` and calls it) and
DistributedDataParallel (multi-process, ``distributed.py``).

>>> import torchlike as torch
>>> dp = torch.nn.DataParallel(torch.nn.Linear(2, 1))
>>> list(dp.state_dict())
['module.weight', 'module.bias']
"""
from __future__ import annotations

from . import comm
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel", "DistributedDataParallelCPU"]


class DistributedDataParallelCPU(DistributedDataParallel):
    """torch's deprecated alias of :class:`DistributedDataParallel` (warns, as torch does)."""

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn("`torch.nn.parallel.DistributedDataParallelCPU` is deprecated, please use "
                      "`torch.nn.parallel.DistributedDataParallel` instead.", FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)
