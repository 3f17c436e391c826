"""torchlike._inductor: torch's Inductor compiler backend has no counterpart here (``torchlike.compile`` lowers
through XLA); scripts that tune it (``torch._inductor.config.coordinate_descent_tuning = True``) find its
``config`` module, whose settings are accepted and have no effect (docs/differences.md), except
``fallback_random``: with it, random ops in compiled code draw torch's eager stream, as in torch."""
from . import config
from .. import _random

_random.traced_torch_stream.append(lambda: config.fallback_random)

__all__ = ["config"]
