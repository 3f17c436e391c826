"""torch.nn.modules.instancenorm: the instance-norm classes (defined in normalization.py) under torch's path.

>>> import torchlike as torch
>>> isinstance(torch.nn.InstanceNorm1d(3), torch.nn.modules.instancenorm._InstanceNorm)
True
"""
from .normalization import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d,  # noqa: F401
                            LazyInstanceNorm2d, LazyInstanceNorm3d, _InstanceNorm)

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]

from ..._torch_paths import home as _home  # noqa: E402

_home(globals(), InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
      LazyInstanceNorm3d, _InstanceNorm)
