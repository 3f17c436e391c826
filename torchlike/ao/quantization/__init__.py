"""torchlike.ao.quantization: the float-mode stubs and module fusion (``fuse_modules``); quantization itself
is not supported (any other name raises a NotImplementedError naming it, see docs/differences.md).

>>> from torchlike.ao.quantization import DeQuantStub
>>> DeQuantStub()
DeQuantStub()
"""
from ..._missing import module_getattr
from .stubs import DeQuantStub, QuantStub, QuantWrapper
from . import fuser_method_mappings  # noqa: F401
from .fuser_method_mappings import get_fuser_method
from .fuse_modules import fuse_modules, fuse_modules_qat  # (the function shadows its module, as in torch)

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper", "fuse_modules", "fuse_modules_qat", "get_fuser_method"]

__getattr__ = module_getattr("torch.ao.quantization")
