"""torch.ao.nn.qat.Conv2d: a Conv2d whose weight passes through its qconfig's weight fake quantizer each forward
(Conv1d/Conv3d raise a NotImplementedError naming them)."""
from __future__ import annotations

from .....nn.modules.conv import Conv2d as _FloatConv2d
from .....nn.utils.parametrize import type_before_parametrizations

__all__ = ["Conv2d"]


class Conv2d(_FloatConv2d):
    """``torch.ao.nn.qat.Conv2d``: ``conv2d(x, weight_fake_quant(weight), bias)``."""

    _FLOAT_MODULE = _FloatConv2d
    _FLOAT_CONV_MODULE = _FloatConv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", qconfig=None, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, padding=padding, dilation=dilation,
                         groups=groups, bias=bias, padding_mode=padding_mode, device=device, dtype=dtype)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs={"device": device, "dtype": dtype})

    def forward(self, input):
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT version of float ``mod`` (sharing its parameters)."""
        if type_before_parametrizations(mod) is not cls._FLOAT_MODULE:
            raise AssertionError("qat." + cls.__name__ + ".from_float only works for " + cls._FLOAT_MODULE.__name__)
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        if type(mod).__name__.startswith("ConvReLU"):
            mod = mod[0]
        qat = cls(mod.in_channels, mod.out_channels, mod.kernel_size, stride=mod.stride, padding=mod.padding,
                  dilation=mod.dilation, groups=mod.groups, bias=mod.bias is not None, padding_mode=mod.padding_mode,
                  qconfig=mod.qconfig)
        qat.weight = mod.weight
        qat.bias = mod.bias
        return qat

    def to_float(self):
        conv = _FloatConv2d(self.in_channels, self.out_channels, self.kernel_size, self.stride, self.padding,
                            self.dilation, self.groups, self.bias is not None, self.padding_mode)
        conv.weight = self.weight
        conv.bias = self.bias
        conv.train(self.training)
        return conv
