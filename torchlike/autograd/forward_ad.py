"""torch.autograd.forward_ad: forward-mode AD through dual tensors.

Not implemented in torchlike: its tensors carry no tangent slot.  Forward-mode derivatives are
available through ``torchlike.autograd.functional.jvp`` (and JAX's ``jax.jvp`` underneath).
``UnpackedDualTensor`` is the plain named tuple torch returns, and ``unpack_dual`` answers as torch does outside
a dual level (libraries call it to ask whether a tensor carries a tangent): no tensor here ever does.

>>> import torchlike
>>> torchlike.autograd.forward_ad.UnpackedDualTensor(1, None).primal
1
>>> torchlike.autograd.forward_ad.unpack_dual(torchlike.ones(2)).tangent is None
True
"""
from __future__ import annotations

from typing import NamedTuple

from .._torch_paths import missing_class, missing_function

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: ``(primal, tangent)``."""

    primal: object
    tangent: object


_WHY = "dual tensors for forward-mode AD; use torch.autograd.functional.jvp"
enter_dual_level = missing_function(globals(), "enter_dual_level", _WHY)
exit_dual_level = missing_function(globals(), "exit_dual_level", _WHY)
make_dual = missing_function(globals(), "make_dual", _WHY)


def unpack_dual(tensor, *, level=None):
    """``(tensor, None)``: with no dual level entered (``make_dual`` is not available) nothing has a tangent."""
    return UnpackedDualTensor(tensor, None)


dual_level = missing_class(globals(), "dual_level", _WHY)
