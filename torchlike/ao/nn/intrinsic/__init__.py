"""torch.ao.nn.intrinsic: the modules ``torch.ao.quantization.fuse_modules`` builds (float mode).

>>> import torchlike
>>> torchlike.ao.nn.intrinsic.ConvReLU2d(torchlike.nn.Conv2d(1, 1, 1), torchlike.nn.ReLU())[1]
ReLU()
"""
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
from . import modules  # noqa: F401
from . import quantized  # noqa: F401,E402  (the quantized fused modules)
from . import qat  # noqa: F401,E402  (the QAT fused modules)
