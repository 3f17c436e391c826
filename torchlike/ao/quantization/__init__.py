"""torchlike.ao.quantization: dynamic quantization (``quantize_dynamic``: Linear layers), the float-mode stubs and
module fusion (``fuse_modules``); static quantization and the observers are not supported (any other name raises
a NotImplementedError naming it, see docs/differences.md).

>>> from torchlike.ao.quantization import DeQuantStub
>>> DeQuantStub()
DeQuantStub()
"""
from ..._missing import module_getattr
from .stubs import DeQuantStub, QuantStub, QuantWrapper
from . import fuser_method_mappings  # noqa: F401
from .fuser_method_mappings import get_fuser_method
from .fuse_modules import fuse_modules, fuse_modules_qat  # (the function shadows its module, as in torch)
from .qconfig import QConfig, QConfigDynamic, default_dynamic_qconfig, float16_dynamic_qconfig, \
    per_channel_dynamic_qconfig
from .quantize import convert, get_default_dynamic_quant_module_mappings, propagate_qconfig_, quantize_dynamic, \
    swap_module

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper", "fuse_modules", "fuse_modules_qat", "get_fuser_method",
           "QConfig", "QConfigDynamic", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "per_channel_dynamic_qconfig", "convert", "get_default_dynamic_quant_module_mappings",
           "propagate_qconfig_", "quantize_dynamic", "swap_module"]

__getattr__ = module_getattr("torch.ao.quantization")
