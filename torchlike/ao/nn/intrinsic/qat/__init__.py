"""torch.ao.nn.intrinsic.qat: the fused modules ``prepare_qat`` swaps in (``LinearReLU``, ``ConvReLU2d``,
``ConvBn2d``, ``ConvBnReLU2d``): their weights fake-quantized each forward, batch norm folded into the conv weight
as torch does; other names raise a NotImplementedError naming them.

>>> import torchlike
>>> from torchlike.ao.quantization import default_qat_qconfig
>>> torchlike.ao.nn.intrinsic.qat.ConvBnReLU2d(1, 2, 3, qconfig=default_qat_qconfig).bn
BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
"""
from ....._missing import module_getattr
from . import modules  # noqa: F401
from .modules import ConvBn2d, ConvBnReLU2d, ConvReLU2d, LinearReLU, freeze_bn_stats, update_bn_stats

__all__ = ["ConvBn2d", "ConvBnReLU2d", "ConvReLU2d", "LinearReLU", "freeze_bn_stats", "update_bn_stats"]

__getattr__ = module_getattr("torch.ao.nn.intrinsic.qat")
