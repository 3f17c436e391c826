"""torch.ao.nn.intrinsic.qat.modules: ``LinearReLU`` (linear_relu) and the conv fusions (conv_fused)."""
from .conv_fused import ConvBn2d, ConvBnReLU2d, ConvReLU2d, freeze_bn_stats, update_bn_stats
from .linear_relu import LinearReLU

__all__ = ["ConvBn2d", "ConvBnReLU2d", "ConvReLU2d", "LinearReLU", "freeze_bn_stats", "update_bn_stats"]
