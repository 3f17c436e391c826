"""torch._subclasses.fake_tensor: libraries test ``is_fake(t)`` to skip data-dependent work while torch.compile
traces with fake tensors; torchlike traces with JAX tracers instead, so no tensor it makes is a FakeTensor and
``is_fake`` is False for every value.  ``FakeTensorMode`` (running real code on shape-only tensors) is not
provided: constructing one raises NotImplementedError (docs/differences.md).

>>> import torchlike
>>> is_fake(torchlike.zeros(3)), is_fake(1.0)
(False, False)
"""
from __future__ import annotations

from ..tensor import Tensor
from .._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl

__all__ = ["FakeTensor", "FakeTensorMode", "is_fake", "UnsupportedFakeTensorException",
           "DynamicOutputShapeException"]

_WHY = ("torch._subclasses.fake_tensor.FakeTensorMode is not implemented in torchlike (torchlike.compile traces "
        "with JAX tracers, not fake tensors); see docs/differences.md")


class FakeTensor(Tensor):
    """torch's shape-only tensor type; torchlike makes none (a type for ``isinstance`` checks)."""
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor

    def __new__(cls, fake_mode=None, elem=None, device=None, *args, **kwargs):
        if fake_mode is None:
            raise TypeError("FakeTensor.__new__() missing required argument: 'fake_mode'")
        raise NotImplementedError(_WHY)


class FakeTensorMode:
    """torch's mode that makes factory calls return FakeTensors; not available in torchlike."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_WHY)


class UnsupportedFakeTensorException(RuntimeError):
    pass


class DynamicOutputShapeException(RuntimeError):
    pass


def is_fake(x) -> bool:
    """Whether ``x`` is (or wraps) a fake tensor: never, in torchlike."""
    return isinstance(x, FakeTensor)


for _c in (FakeTensor, FakeTensorMode, UnsupportedFakeTensorException, DynamicOutputShapeException):
    _c.__module__ = "torch._subclasses.fake_tensor"
