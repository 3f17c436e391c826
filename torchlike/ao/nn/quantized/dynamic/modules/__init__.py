"""torch.ao.nn.quantized.dynamic.modules: dynamically quantized modules (Linear)."""
from .linear import Linear

__all__ = ["Linear"]
