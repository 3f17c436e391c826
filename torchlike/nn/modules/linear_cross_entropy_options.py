"""torch.nn.modules.linear_cross_entropy_options: the options of ``LinearCrossEntropyLoss``.

>>> from torchlike.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
>>> LinearCrossEntropyOptions.__module__
'torchlike.nn.modules.linear_cross_entropy_options'
"""
from .linear_cross_entropy import LinearCrossEntropyOptions
from ..._torch_paths import home as _home

__all__ = ["LinearCrossEntropyOptions"]

_home(globals(), LinearCrossEntropyOptions)
