"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d.

>>> import torchlike as torch
>>> torch.nn.Upsample(scale_factor=2)
Upsample(scale_factor=2.0, mode='nearest')
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _float_scale(scale_factor):
    # stored as floats (per dimension for tuples) so the repr reads like torch's; falsy means "unset"
    if isinstance(scale_factor, tuple):
        return tuple(map(float, scale_factor))
    return float(scale_factor) if scale_factor else None


class Upsample(Module):
    """Resize with :func:`torchlike.nn.functional.interpolate`; give exactly one of ``size`` and
    ``scale_factor``."""
    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size, self.scale_factor = size, _float_scale(scale_factor)
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                              recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        target = f"size={self.size!r}" if self.scale_factor is None else f"scale_factor={self.scale_factor!r}"
        return f"{target}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-D upsampling (``Upsample`` with ``mode="nearest"``)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-D upsampling with ``align_corners=True``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
