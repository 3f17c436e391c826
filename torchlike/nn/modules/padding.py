"""Padding modules: Zero/Constant/Reflection/Replication/Circular Pad 1d/2d/3d.

>>> import torchlike as torch
>>> torch.nn.ReflectionPad2d(1)
ReflectionPad2d((1, 1, 1, 1))
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _pad_tuple(padding, n):
    if isinstance(padding, (list, tuple)):
        if len(padding) != 2 * n:
            raise ValueError(f"Padding length must be {2 * n}, but got {len(padding)}")
        return tuple(int(p) for p in padding)
    return (int(padding),) * (2 * n)


class _PadNd(Module):
    __constants__ = ["padding"]
    _n = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _pad_tuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with a constant."""
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with a constant."""
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with a constant."""
    _n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros."""
    _n = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last 2 dims with zeros.

    >>> import torchlike as torch
    >>> torch.nn.ZeroPad2d((1, 0, 0, 1))(torch.ones(1, 1, 1)).shape
    torch.Size([1, 2, 2])
    """
    _n = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last 3 dims with zeros."""
    _n = 3


class ReflectionPad1d(_PadNd):
    """Reflect-pad the last dim."""
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Reflect-pad the last 2 dims."""
    _n, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Reflect-pad the last 3 dims."""
    _n, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Edge-pad the last dim."""
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Edge-pad the last 2 dims."""
    _n, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Edge-pad the last 3 dims."""
    _n, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # torch's circular modules check the rank themselves (F.pad's message would differ)
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, self._mode)


class CircularPad1d(_CircularPadNd):
    """Wrap-pad the last dim.

    >>> import torchlike as torch
    >>> torch.nn.CircularPad1d(1)(torch.tensor([[1., 2., 3.]]))
    tensor([[3., 1., 2., 3., 1.]])
    """
    _n = 1


class CircularPad2d(_CircularPadNd):
    """Wrap-pad the last 2 dims."""
    _n = 2


class CircularPad3d(_CircularPadNd):
    """Wrap-pad the last 3 dims."""
    _n = 3
