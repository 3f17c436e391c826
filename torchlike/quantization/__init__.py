"""torch.quantization: torch's older path of ``torch.ao.quantization`` (the same objects), modules included:
``torch.quantization.quantize`` is ``torch.ao.quantization.quantize``'s names, as in torch.

>>> import torchlike
>>> torchlike.quantization.quantize_dynamic is torchlike.ao.quantization.quantize_dynamic
True
>>> from torchlike.quantization.fuse_modules import fuse_modules
>>> fuse_modules is torchlike.ao.quantization.fuse_modules
True
"""
import importlib as _importlib
import sys as _sys

from ..ao.quantization import *  # noqa: F401,F403
from ..ao.quantization import __all__, __getattr__  # noqa: F401

# torch's files here re-export torch.ao.quantization's modules of the same names; torchlike's are those modules
# (the functions ``quantize`` and ``fuse_modules`` keep shadowing their modules' names, as in torch)
for _name in ("fake_quantize", "fuse_modules", "fuser_method_mappings", "observer", "qconfig",
              "quantization_mappings", "quantize", "quantize_fx", "stubs"):
    _sys.modules.setdefault(f"{__name__}.{_name}", _importlib.import_module(f"..ao.quantization.{_name}", __package__))
