"""torch.autograd.profiler_legacy: the legacy profiler, not implemented in torchlike (see profiler).

>>> import torchlike.autograd.profiler_legacy as p
>>> p.profile.__module__
'torchlike.autograd.profiler_legacy'
"""
from .._torch_paths import missing_class

__all__ = ["profile"]

profile = missing_class(globals(), "profile", "the legacy autograd profiler; use jax.profiler")
