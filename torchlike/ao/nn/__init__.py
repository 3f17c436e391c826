"""torch.ao.nn: only ``intrinsic`` (the fused-module containers); quantized modules are not supported."""
from . import intrinsic  # noqa: F401
