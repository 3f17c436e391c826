"""torch.backends flags (accepted; XLA decides kernels)."""
from __future__ import annotations

import types

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "opt_einsum", "openmp", "mkl"]

cudnn = types.SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                              is_available=lambda: False, version=lambda: None)
_matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                allow_bf16_reduced_precision_reduction=True)
cuda = types.SimpleNamespace(matmul=_matmul, is_built=lambda: False, flash_sdp_enabled=lambda: False,
                             enable_flash_sdp=lambda flag: None, enable_mem_efficient_sdp=lambda flag: None,
                             enable_math_sdp=lambda flag: None, sdp_kernel=None)
mps = types.SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
mkldnn = types.SimpleNamespace(enabled=True, is_available=lambda: False)
opt_einsum = types.SimpleNamespace(enabled=True, strategy="auto", is_available=lambda: True)
openmp = types.SimpleNamespace(is_available=lambda: False)
mkl = types.SimpleNamespace(is_available=lambda: False)
