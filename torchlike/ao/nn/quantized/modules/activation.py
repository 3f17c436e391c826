"""torch.ao.nn.quantized's activations: ``ReLU6`` (what ``convert`` makes of ``nn.ReLU6``); the others (Hardswish,
ELU, LeakyReLU, Sigmoid, Softmax, PReLU, MultiheadAttention) raise a NotImplementedError naming them.

>>> import torchlike
>>> from torchlike.ao.nn.quantized import ReLU6
>>> q = torchlike.quantize_per_tensor(torchlike.tensor([-1.0, 3.0, 9.0]), 0.5, 2, torchlike.quint8)
>>> ReLU6()(q).int_repr()
tensor([ 2,  8, 14], dtype=torch.uint8)
"""
from .....nn.modules.activation import ReLU
from .. import functional as qF

__all__ = ["ReLU6"]


class ReLU6(ReLU):
    """``torch.ao.nn.quantized.ReLU6`` (``QuantizedReLU6``): ``min(max(x, 0), 6)`` on a quantized tensor."""

    def __init__(self, inplace=False):
        super().__init__(inplace)
        self.inplace = inplace

    def forward(self, input):
        return qF.relu6(input, self.inplace)

    def _get_name(self):
        return "QuantizedReLU6"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ReLU6(mod.inplace)
