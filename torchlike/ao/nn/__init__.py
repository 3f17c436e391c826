"""torch.ao.nn: ``intrinsic`` (the fused-module containers) and ``quantized`` (dynamic quantized Linear)."""
from . import intrinsic, quantized  # noqa: F401
