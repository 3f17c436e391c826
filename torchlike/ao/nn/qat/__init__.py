"""torch.ao.nn.qat: the modules ``prepare_qat`` swaps in (``Linear``, ``Conv2d``): float modules whose weight is
fake-quantized on every forward; other names raise a NotImplementedError naming them.

>>> import torchlike
>>> from torchlike.ao.quantization import default_qat_qconfig
>>> torchlike.ao.nn.qat.Linear(2, 3, qconfig=default_qat_qconfig).weight_fake_quant.dtype
torch.qint8
"""
from ...._missing import module_getattr
from . import modules  # noqa: F401
from .modules import Conv2d, Linear

__all__ = ["Conv2d", "Linear"]

__getattr__ = module_getattr("torch.ao.nn.qat")
