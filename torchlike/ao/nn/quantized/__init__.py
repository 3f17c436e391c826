"""torch.ao.nn.quantized: quantized modules.  ``dynamic.Linear`` runs; the statically quantized ``Linear``
holds and saves its weights but does not run; other names raise a NotImplementedError naming them."""
from ...._missing import module_getattr
from . import dynamic, modules  # noqa: F401
from .modules import Linear, LinearPackedParams  # noqa: F401

__all__ = ["Linear"]

__getattr__ = module_getattr("torch.ao.nn.quantized")
