"""torch.ao.nn.intrinsic.quantized.modules: ``LinearReLU`` (linear_relu), ``ConvReLU2d`` (conv_relu) and
``BNReLU2d``/``BNReLU3d`` (bn_relu)."""
from .bn_relu import BNReLU2d, BNReLU3d
from .conv_relu import ConvReLU2d
from .linear_relu import LinearReLU

__all__ = ["BNReLU2d", "BNReLU3d", "ConvReLU2d", "LinearReLU"]
