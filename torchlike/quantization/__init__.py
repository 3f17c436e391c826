"""torch.quantization: torch's older path of ``torch.ao.quantization`` (the same objects).

>>> import torchlike
>>> torchlike.quantization.quantize_dynamic is torchlike.ao.quantization.quantize_dynamic
True
"""
from ..ao.quantization import *  # noqa: F401,F403
from ..ao.quantization import __all__, __getattr__  # noqa: F401
