"""torch.ao.nn.intrinsic.quantized: the quantized fused modules (``LinearReLU``, ``ConvReLU2d``,
``BNReLU2d``/``BNReLU3d``) that ``convert``
makes of ``torch.ao.nn.intrinsic``'s; other fused quantized modules raise a NotImplementedError naming them.

>>> import torchlike
>>> torchlike.ao.nn.intrinsic.quantized.LinearReLU(4, 2)
QuantizedLinearReLU(in_features=4, out_features=2, scale=1.0, zero_point=0, qscheme=torch.per_tensor_affine)
"""
from ....._missing import module_getattr
from . import modules  # noqa: F401
from .modules import BNReLU2d, BNReLU3d, ConvReLU2d, LinearReLU

__all__ = ["BNReLU2d", "BNReLU3d", "ConvReLU2d", "LinearReLU"]

__getattr__ = module_getattr("torch.ao.nn.intrinsic.quantized")
