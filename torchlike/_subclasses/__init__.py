"""torch._subclasses: the names libraries import from it (``FakeTensor``, ``FakeTensorMode``, ``is_fake``).

torchlike has no fake tensors (``torchlike.compile`` traces with JAX tracers), so no tensor is fake:

>>> import torchlike
>>> from torchlike._subclasses.fake_tensor import is_fake
>>> is_fake(torchlike.ones(2))
False
"""
from . import fake_tensor
from .fake_tensor import FakeTensor, FakeTensorMode, UnsupportedFakeTensorException, DynamicOutputShapeException

__all__ = ["fake_tensor", "FakeTensor", "FakeTensorMode", "UnsupportedFakeTensorException",
           "DynamicOutputShapeException"]
