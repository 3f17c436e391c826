"""torch.ao.nn.intrinsic.quantized.ConvReLU2d: a quantized Conv2d with the ReLU fused (oneDNN's eltwise post-op on
the float result before requantization, as torch's x86 backend)."""
from ....quantized.modules import conv as nnq_conv
from ...modules import fused as nni

__all__ = ["ConvReLU2d"]


class ConvReLU2d(nnq_conv.Conv2d):
    """``QuantizedConvReLU2d``: ``relu(conv2d(x))`` on quantized tensors in one kernel."""

    _FLOAT_MODULE = nni.ConvReLU2d

    def forward(self, input):
        return self._conv(input, relu=True)

    def _get_name(self):
        return "QuantizedConvReLU2d"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized ConvReLU2d of a fused float ConvReLU2d or a QAT ConvReLU2d/ConvBnReLU2d (batch norm
        folded into the weight first)."""
        if type(mod).__name__ == "ConvBnReLU2d" and hasattr(mod, "weight_fake_quant"):
            mod.weight, mod.bias = mod._folded()
        return super().from_float(mod, use_precomputed_fake_quant)
