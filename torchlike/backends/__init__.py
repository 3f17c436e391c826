"""torch.backends flags: accepted and readable (XLA chooses kernels itself)."""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401

__all__ = ["cpu", "cudnn", "cuda", "mps", "mkldnn", "opt_einsum", "openmp", "mkl"]
