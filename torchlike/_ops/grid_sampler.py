"""torch's positional grid-sampler entry points (``torch.grid_sampler``, ``torch.grid_sampler_2d``, ``torch.grid_sampler_3d``): the
integer-coded forms of :func:`torchlike.nn.functional.grid_sample`."""
from __future__ import annotations

from .registry import register

__all__ = []

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _sample(input, grid, interpolation_mode, padding_mode, align_corners):
    from ..nn.functional import grid_sample  # lazy: nn.functional sits in the nn package (layer 5), above _ops
    return grid_sample(input, grid, mode=_MODES[int(interpolation_mode)], padding_mode=_PADDING[int(padding_mode)],
                       align_corners=bool(align_corners))


@register(method=False)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` with torch's integer codes: mode 0/1/2 = bilinear/nearest/bicubic, padding 0/1/2 =
    zeros/border/reflection.

    >>> import torchlike
    >>> torchlike.grid_sampler_2d(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 3, 3, 2), 0, 0, False).shape
    torch.Size([1, 1, 3, 3])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` of a 5-D input with torch's integer codes (mode 0/1 = bilinear/nearest).

    >>> import torchlike
    >>> torchlike.grid_sampler_3d(torchlike.ones(1, 1, 2, 2, 2), torchlike.zeros(1, 1, 1, 1, 3), 0, 0, False).shape
    torch.Size([1, 1, 1, 1, 1])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` with torch's integer codes (see :func:`grid_sampler_2d`).

    >>> import torchlike
    >>> torchlike.grid_sampler(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 3, 3, 2), 1, 1, True).shape
    torch.Size([1, 1, 3, 3])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)
