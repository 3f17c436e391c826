"""torch.ao.nn.intrinsic: the modules ``torch.ao.quantization.fuse_modules`` builds (float mode).

>>> import torchlike
>>> torchlike.ao.nn.intrinsic.ConvReLU2d(torchlike.nn.Conv2d(1, 1, 1), torchlike.nn.ReLU())[1]
ReLU()
"""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
from . import modules  # noqa: F401
# the quantized and QAT fused modules (``.quantized``, ``.qat``) are imported by torchlike.nn.intrinsic, which the
# facade loads: importing them here closed a module-level cycle through ao.nn.quantized's modules, which import
# ``.modules.fused`` (and so this package) as torch's do
