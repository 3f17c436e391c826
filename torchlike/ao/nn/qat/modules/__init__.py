"""torch.ao.nn.qat.modules: the QAT ``Linear`` (linear) and ``Conv2d`` (conv)."""
from .conv import Conv2d
from .linear import Linear

__all__ = ["Conv2d", "Linear"]
