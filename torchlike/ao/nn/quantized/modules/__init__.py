"""torch.ao.nn.quantized.modules: the statically quantized modules (``Quantize``/``DeQuantize`` here, ``Linear``,
``Conv2d``, ``QFunctional`` ...) that ``torch.ao.quantization.convert`` swaps in.

>>> import torchlike
>>> from torchlike.ao.nn.quantized import Quantize
>>> Quantize(0.5, 3, torchlike.quint8)(torchlike.tensor([1.0])).int_repr()
tensor([5], dtype=torch.uint8)
"""
from ..... import _dtype
from ....._creation import tensor
from ....._quantized import dequantize, quantize_per_tensor
from .....nn.modules.module import Module
from .activation import ReLU6
from .batchnorm import BatchNorm2d, BatchNorm3d
from .conv import Conv2d
from .dropout import Dropout
from .functional_modules import FloatFunctional, FXFloatFunctional, QFunctional
from .linear import Linear, LinearPackedParams

__all__ = ["Linear", "LinearPackedParams", "Conv2d", "BatchNorm2d", "BatchNorm3d", "Dropout", "FloatFunctional", "FXFloatFunctional",
           "QFunctional", "Quantize", "DeQuantize", "ReLU6"]


class Quantize(Module):
    """Quantizes its float input per tensor with a fixed ``scale``/``zero_point`` (what a QuantStub becomes)."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer("scale", tensor([scale]))
        self.register_buffer("zero_point", tensor([zero_point], dtype=_dtype.int64))
        self.dtype = dtype

    def forward(self, X):
        return quantize_per_tensor(X, float(self.scale), int(self.zero_point), self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError("Input float module must have activation_post_process")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(scale.float().item(), zero_point.long().item(), mod.activation_post_process.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(Module):
    """Dequantizes its quantized input (what a DeQuantStub becomes)."""

    def forward(self, Xq):
        return dequantize(Xq)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return DeQuantize()
