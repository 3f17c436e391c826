"""torch.ao.nn.quantized.modules: the quantized modules' classes (statically quantized forward not supported)."""
from .linear import Linear, LinearPackedParams

__all__ = ["Linear", "LinearPackedParams"]
