"""torchlike.version: build information, as torch.version reports it (no CUDA/ROCm/XPU toolkit).

>>> import torchlike
>>> torchlike.version.cuda is None, torchlike.version.__version__.startswith("2.13.0")
(True, True)
"""
__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = "2.13.0+torchlike"
debug = False
cuda = None
git_version = "torchlike"
hip = None
rocm = None
xpu = None
