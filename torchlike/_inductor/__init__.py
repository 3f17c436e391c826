"""torchlike._inductor: torch's Inductor compiler backend has no counterpart here (``torchlike.compile`` lowers
through XLA); scripts that tune it (``torch._inductor.config.coordinate_descent_tuning = True``) find its
``config`` module, whose settings are accepted and have no effect (docs/differences.md)."""
from . import config

__all__ = ["config"]
