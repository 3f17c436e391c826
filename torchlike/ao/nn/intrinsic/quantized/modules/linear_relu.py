"""torch.ao.nn.intrinsic.quantized.LinearReLU: a quantized Linear whose output is clamped at its zero point (the
fused ReLU), as fbgemm's ``linear_relu``."""
from ....quantized.modules import linear as nnq_linear
from ...modules import fused as nni

__all__ = ["LinearReLU"]


class LinearReLU(nnq_linear.Linear):
    """``QuantizedLinearReLU``: ``relu(linear(x))`` on quantized tensors in one kernel."""

    _FLOAT_MODULE = nni.LinearReLU
    _RELU = True

    def _get_name(self):
        return "QuantizedLinearReLU"
