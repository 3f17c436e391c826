"""torchlike.ao: torch's "architecture optimization" namespace. Quantization is not supported by torchlike
(see docs/differences.md); the float-mode stubs that model code builds (``QuantStub``/``DeQuantStub``) exist so
that such code imports and runs unquantized, and every other name raises a NotImplementedError naming it.

>>> import torchlike, torchlike.ao.quantization as q
>>> q.QuantStub()(torchlike.ones(2))
tensor([1., 1.])
"""
from .._missing import module_getattr
from . import nn, quantization  # noqa: F401

__getattr__ = module_getattr("torch.ao")
