"""torch.autograd.variable: the legacy ``Variable`` (every Tensor is one).

>>> import torchlike as torch
>>> from torchlike.autograd.variable import Variable
>>> isinstance(torch.ones(1), Variable), Variable(torch.ones(1), requires_grad=True).requires_grad
(True, True)
"""
from __future__ import annotations

from .. import _creation
from ..tensor import Tensor

__all__ = ["VariableMeta", "Variable"]


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true for every Tensor, as in torch."""

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(t, requires_grad=False)`` is ``t`` (Variables and Tensors merged in torch 0.4)."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            data = _creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad:
            data.requires_grad_(True)
        return data
