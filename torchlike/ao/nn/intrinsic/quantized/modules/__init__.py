"""torch.ao.nn.intrinsic.quantized.modules: ``LinearReLU`` (linear_relu) and ``ConvReLU2d`` (conv_relu)."""
from .conv_relu import ConvReLU2d
from .linear_relu import LinearReLU

__all__ = ["ConvReLU2d", "LinearReLU"]
