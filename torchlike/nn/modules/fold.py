"""Fold / Unfold (col2im / im2col).

>>> import torchlike as torch
>>> torch.nn.Unfold(2)(torch.zeros(1, 3, 4, 4)).shape
torch.Size([1, 12, 9])
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]

_WINDOW = ("kernel_size", "dilation", "padding", "stride")  # the sliding-block geometry both share


def _set_window(module, kernel_size, dilation, padding, stride):
    module.kernel_size, module.dilation, module.padding, module.stride = kernel_size, dilation, padding, stride


def _describe(module, names):
    return ", ".join(f"{name}={getattr(module, name)}" for name in names)


class Fold(Module):
    """Combine sliding local blocks (``N, C*prod(kernel_size), L``) into a tensor, summing overlaps."""
    __constants__ = ["output_size", *_WINDOW]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        _set_window(self, kernel_size, dilation, padding, stride)

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return _describe(self, ("output_size", *_WINDOW))


class Unfold(Module):
    """Extract sliding local blocks as columns (``N, C*prod(kernel_size), L``)."""
    __constants__ = list(_WINDOW)

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        _set_window(self, kernel_size, dilation, padding, stride)

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return _describe(self, _WINDOW)
