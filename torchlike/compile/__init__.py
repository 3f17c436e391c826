"""torchlike.compile: lowers functions and modules through jax.jit (identity until the compile issue lands)."""
from ._errors import GraphBreak

__all__ = ["GraphBreak"]
