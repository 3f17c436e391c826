"""torch.backends.cudnn flags (no cuDNN under XLA: the flags are kept but change nothing)."""
from ._flags import flag_functions

enabled = True
benchmark = False
benchmark_limit = None  # torch's value without CUDA
deterministic = False
allow_tf32 = True
fp32_precision = "none"
depthwise_kernel = "auto"

set_flags, flags = flag_functions(
    globals(), dict(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
                    fp32_precision="none", depthwise_kernel="auto"), ignored=("benchmark_limit",))


def is_available() -> bool:
    return False


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: never here, as in torch without CUDA."""
    return False


def version():
    return None
