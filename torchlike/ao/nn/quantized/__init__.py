"""torch.ao.nn.quantized: quantized modules.  The statically quantized ``Quantize``/``DeQuantize``/``Linear``/
``Conv2d``/``BatchNorm2d``/``BatchNorm3d``/``QFunctional`` (what ``torch.ao.quantization.convert`` swaps in) and
``dynamic.Linear``/``LSTM`` run; other names raise a NotImplementedError naming them.

>>> import torchlike
>>> torchlike.ao.nn.quantized.DeQuantize()
DeQuantize()
"""
from ...._missing import module_getattr
from . import dynamic, functional, modules  # noqa: F401
from .modules import BatchNorm2d, BatchNorm3d, Conv2d, DeQuantize, Dropout, FloatFunctional, FXFloatFunctional, Linear, LinearPackedParams, \
    QFunctional, Quantize, ReLU6  # noqa: F401

__all__ = ["Linear", "Conv2d", "BatchNorm2d", "BatchNorm3d", "DeQuantize", "Dropout", "FloatFunctional", "FXFloatFunctional", "QFunctional",
           "Quantize", "ReLU6"]

__getattr__ = module_getattr("torch.ao.nn.quantized")
