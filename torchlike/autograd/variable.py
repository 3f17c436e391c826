"""torch.autograd.variable: the legacy ``Variable`` (every Tensor is one).

>>> import torchlike as torch
>>> from torchlike.autograd.variable import Variable
>>> isinstance(torch.ones(1), Variable), Variable(torch.ones(1), requires_grad=True).requires_grad
(True, True)
"""
from __future__ import annotations

import warnings

from .. import _creation
from ..tensor import Tensor

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true for every Tensor, as in torch."""

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(t, requires_grad=False)``: a new leaf sharing ``t``'s storage (torch merged Variables into
    Tensors in 0.4; the constructor still detaches and never changes ``t`` itself).

    >>> import torchlike as torch
    >>> x = torch.ones(2)
    >>> v = torch.autograd.Variable(x, requires_grad=True)
    >>> v is x, v.requires_grad, x.requires_grad, v.is_leaf
    (False, True, False, True)
    """

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
