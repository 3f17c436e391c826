"""torchlike.ao: torch's "architecture optimization" namespace: eager-mode quantization (``quantization``: static
post-training, quantization-aware training and dynamic) and its modules (``nn.quantized``, ``nn.qat``,
``nn.intrinsic``); names torchlike lacks raise a NotImplementedError naming them (see docs/differences.md).

>>> import torchlike, torchlike.ao.quantization as q
>>> q.QuantStub()(torchlike.ones(2))
tensor([1., 1.])
"""
from .._missing import module_getattr
from . import nn, quantization  # noqa: F401

__getattr__ = module_getattr("torch.ao")
