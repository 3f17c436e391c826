"""torch.ao.nn.intrinsic.qat.LinearReLU: the QAT Linear followed by ReLU, one fused module."""
from ......nn import functional as F
from ....qat.modules import linear as nnqat_linear
from ...modules import fused as nni

__all__ = ["LinearReLU"]


class LinearReLU(nnqat_linear.Linear, nni._FusedModule):
    """``relu(linear(x, weight_fake_quant(weight), bias))``."""

    _FLOAT_MODULE = nni.LinearReLU

    def forward(self, input):
        return F.relu(F.linear(input, self.weight_fake_quant(self.weight), self.bias))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return super().from_float(mod, use_precomputed_fake_quant)
