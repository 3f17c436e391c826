"""Lazy convolutions: ``in_channels`` comes from the first input (LazyConv2d -> Conv2d after one call).

>>> import torchlike as torch
>>> m = torch.nn.LazyConv2d(4, 3)
>>> _ = m(torch.zeros(1, 2, 5, 5)); m
Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1))
"""
from __future__ import annotations

from ...autograd import grad_mode
from ..parameter import UninitializedParameter
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .lazy import LazyModuleMixin

__all__ = ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d"]


class _LazyConv(LazyModuleMixin):
    """Shared by the six lazy convolutions: placeholders until the first input fixes ``in_channels``."""

    def _placeholders(self, out_channels, bias, device, dtype):
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if self.in_channels != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        batched = input.ndim == len(self.kernel_size) + 2
        self.in_channels = input.shape[1 if batched else 0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, self.in_channels // self.groups)
        with grad_mode.no_grad():
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy(base, transposed):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, bias=True, device=None,
                 dtype=None, **kw):
        # an empty convolution of the right kind, then placeholders for the real shapes
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, *rest, bias=False, **kw)
        self._placeholders(out_channels, bias, device, dtype)

    name = "Lazy" + base.__name__
    doc = f"A {base.__name__} whose ``in_channels`` is inferred from the first input."
    return type(name, (_LazyConv, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                          "__module__": __name__})


LazyConv1d = _lazy(Conv1d, False)
LazyConv2d = _lazy(Conv2d, False)
LazyConv3d = _lazy(Conv3d, False)
LazyConvTranspose1d = _lazy(ConvTranspose1d, True)
LazyConvTranspose2d = _lazy(ConvTranspose2d, True)
LazyConvTranspose3d = _lazy(ConvTranspose3d, True)
