"""The quantization stubs: identity modules in float mode, where ``prepare`` attaches an observer to a QuantStub and
``convert`` swaps them for ``torch.ao.nn.quantized.Quantize``/``DeQuantize``.

>>> import torchlike
>>> from torchlike.ao.quantization.stubs import QuantWrapper
>>> QuantWrapper(torchlike.nn.Identity())(torchlike.ones(1))
tensor([1.])
"""
from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]


class _IdentityStub(Module):
    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_IdentityStub):
    """Marks where a quantized model quantizes its input; the identity in float mode."""


class DeQuantStub(_IdentityStub):
    """Marks where a quantized model dequantizes; the identity in float mode."""


class QuantWrapper(Module):
    """``module`` between a QuantStub and a DeQuantStub."""

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X):
        return self.dequant(self.module(self.quant(X)))
