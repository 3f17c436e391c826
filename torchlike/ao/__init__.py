"""torchlike.ao: torch's "architecture optimization" namespace: dynamic quantization of Linear layers
(``quantization.quantize_dynamic``); the float-mode stubs that model code builds (``QuantStub``/``DeQuantStub``)
exist so that such code imports and runs unquantized; every other name raises a NotImplementedError naming it
(see docs/differences.md).

>>> import torchlike, torchlike.ao.quantization as q
>>> q.QuantStub()(torchlike.ones(2))
tensor([1., 1.])
"""
from .._missing import module_getattr
from . import nn, quantization  # noqa: F401

__getattr__ = module_getattr("torch.ao")
