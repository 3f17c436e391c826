"""torch.nn.modules.batchnorm: the batch-norm classes (defined in normalization.py), under torch's path
so ``isinstance(m, torch.nn.modules.batchnorm._BatchNorm)`` works in ported code.

>>> import torchlike as torch
>>> isinstance(torch.nn.BatchNorm2d(3), torch.nn.modules.batchnorm._BatchNorm)
True
"""
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d,  # noqa: F401
                            LazyBatchNorm3d, SyncBatchNorm, _BatchNorm, _LazyNormBase, _NormBase)

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]

from ..._torch_paths import home as _home  # noqa: E402

_home(globals(), BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d,
      SyncBatchNorm, _BatchNorm, _LazyNormBase, _NormBase)
