"""torch.nn.utils.memory_format: convert conv weights to a memory format.

torchlike tensors have no physical layout (XLA chooses it), so the conversion leaves the values as they
are and returns the module, as torch's does; see docs/differences.md.

>>> import torchlike as torch
>>> m = torch.nn.Conv2d(1, 1, 1)
>>> convert_conv2d_weight_memory_format(m, torch.channels_last) is m
True
"""
from __future__ import annotations
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Convert every Conv2d/ConvTranspose2d weight under ``module`` to ``memory_format``; returns ``module``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Convert every Conv3d/ConvTranspose3d weight under ``module`` to ``memory_format``; returns ``module``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
