"""torchlike.__config__: build configuration, as ``torch.__config__`` reports it.

Libraries read it to decide on code paths (torch_geometric looks for ``USE_MKL=OFF`` in ``show()``); torchlike
is not a C++ build, so it reports a CPU build without MKL, CUDA or OpenMP, running on JAX.

>>> import torchlike
>>> "TORCH_VERSION=2.13.0" in torchlike.__config__.show()
True
"""
import os

import jax

from ._global_settings import get_num_interop_threads, get_num_threads
__all__ = ["show", "parallel_info"]


def show() -> str:
    """The build settings, in the layout of ``torch.__config__.show()``."""
    return ("PyTorch built with:\n"
            f"  - torchlike on JAX {jax.__version__}\n"
            "  - CPU capability usage: JAX/XLA\n"
            "  - Build settings: BUILD_TYPE=Release, TORCH_VERSION=2.13.0, USE_CUDA=0, USE_CUDNN=OFF, "
            "USE_MKL=OFF, USE_MKLDNN=OFF, USE_MPI=OFF, USE_NCCL=OFF, USE_OPENMP=OFF, USE_ROCM=OFF, USE_XPU=OFF, \n")


def parallel_info() -> str:
    """The thread settings, in the layout of ``torch.__config__.parallel_info()``."""
    n, m = get_num_threads(), get_num_interop_threads()
    omp = os.environ.get("OMP_NUM_THREADS", "[not set]")
    mkl = os.environ.get("MKL_NUM_THREADS", "[not set]")
    return (f"ATen/Parallel:\n\tat::get_num_threads() : {n}\n\tat::get_num_interop_threads() : {m}\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count() or 1}\nEnvironment variables:\n"
            f"\tOMP_NUM_THREADS : {omp}\n\tMKL_NUM_THREADS : {mkl}\nATen parallel backend: XLA\n")


def _cxx_flags() -> str:
    return ""
