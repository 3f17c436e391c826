"""torch.ao.nn: ``intrinsic`` (the fused-module containers and their quantized/QAT versions), ``quantized``
(statically and dynamically quantized modules) and ``qat`` (quantization-aware-training modules)."""
from . import intrinsic, qat, quantized  # noqa: F401
