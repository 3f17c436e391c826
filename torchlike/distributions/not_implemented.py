"""Distributions torchlike does not provide yet: the names exist (so imports and isinstance checks work) and
constructing one raises NotImplementedError naming it (listed in docs/differences.md)."""
from __future__ import annotations

from .._missing import MissingAPI
from .distribution import ExponentialFamily

__all__ = ["Wishart"]


def _make(name, base):
    def __init__(self, *args, **kwargs):
        raise MissingAPI(f"torch.distributions.{name} is not implemented in torchlike (see docs/differences.md)")
    return type(name, (base,), {"__init__": __init__, "__module__": __name__,
                                "__doc__": f"torch.distributions.{name} (not implemented in torchlike)."})


Wishart = _make("Wishart", ExponentialFamily)
