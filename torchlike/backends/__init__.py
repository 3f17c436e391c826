"""torch.backends flags: accepted and readable (XLA chooses kernels itself)."""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
from ._flags import allow_nonbracketed_mutation as __allow_nonbracketed_mutation  # noqa: F401
from ._flags import disable_global_flags, flag_functions, flags_frozen  # noqa: F401

fp32_precision = "none"
set_flags, flags = flag_functions(globals(), dict(fp32_precision="none"))
set_flags.__doc__ = "Set ``torch.backends.fp32_precision`` (None leaves it) and return the previous value, as in torch."
flags.__doc__ = "``torch.backends.fp32_precision`` for a ``with`` block, as ``torch.backends.flags`` does."

__all__ = ["cpu", "cudnn", "cuda", "mps", "mkldnn", "opt_einsum", "openmp", "mkl"]
