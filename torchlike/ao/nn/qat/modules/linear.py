"""torch.ao.nn.qat.Linear: a Linear whose weight passes through its qconfig's weight fake quantizer each forward."""
from __future__ import annotations

from .....nn import functional as F
from .....nn.modules.linear import Linear as _FloatLinear
from .....nn.utils.parametrize import type_before_parametrizations

__all__ = ["Linear"]


class Linear(_FloatLinear):
    """``torch.ao.nn.qat.Linear``: ``F.linear(x, weight_fake_quant(weight), bias)``."""

    _FLOAT_MODULE = _FloatLinear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs={"device": device, "dtype": dtype})

    def forward(self, input):
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT version of float ``mod`` (sharing its parameters)."""
        if type_before_parametrizations(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(" qat." + cls.__name__ + ".from_float only works for " + cls._FLOAT_MODULE.__name__)
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        if type(mod).__name__ == "LinearReLU":
            mod = mod[0]
        qat = cls(mod.in_features, mod.out_features, bias=mod.bias is not None, qconfig=mod.qconfig)
        qat.weight = mod.weight
        qat.bias = mod.bias
        return qat

    def to_float(self):
        linear = _FloatLinear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = self.weight
        linear.bias = self.bias
        linear.train(self.training)
        return linear
