"""torchlike.distributed.autograd: distributed autograd (which needs torch's RPC framework) is not provided; the
module answers as torch's does in a build without RPC support: ``is_available()`` is False and ``context`` is
defined (entering it fails, as it does there), which is what libraries check before they use it (see
docs/differences.md).

>>> import torchlike.distributed.autograd as dist_autograd
>>> dist_autograd.is_available()
False
"""
from __future__ import annotations

from .._missing import module_getattr

__all__ = ["context", "is_available"]


def is_available() -> bool:
    """False: torchlike has no RPC agent, so no distributed autograd (backward, get_gradients)."""
    return False


class context:
    """Context of a distributed forward and backward pass; entering it needs distributed autograd, which
    torchlike does not have (``is_available()`` is False)."""

    def __enter__(self) -> int:
        raise NotImplementedError("torch.distributed.autograd.context is not implemented in torchlike "
                                  "(no RPC support: torch.distributed.autograd.is_available() is False)")

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        pass


__getattr__ = module_getattr("torch.distributed.autograd")
