"""torchlike.ao.quantization: only the float-mode stubs (quantization itself is not supported; any other
name raises a NotImplementedError naming it, see docs/differences.md).

>>> from torchlike.ao.quantization import DeQuantStub
>>> DeQuantStub()
DeQuantStub()
"""
from ..._missing import module_getattr
from .stubs import DeQuantStub, QuantStub, QuantWrapper

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper"]

__getattr__ = module_getattr("torch.ao.quantization")
