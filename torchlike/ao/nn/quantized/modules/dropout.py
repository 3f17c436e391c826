"""torch.ao.nn.quantized.Dropout: dropout of a quantized model (the identity in eval mode, as torch's)."""
from .....nn.modules.dropout import Dropout as _FloatDropout

__all__ = ["Dropout"]


class Dropout(_FloatDropout):
    """``torch.ao.nn.quantized.Dropout``: returns its input (a converted model runs in eval mode)."""

    def forward(self, input):
        return input

    def _get_name(self):
        return "QuantizedDropout"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.p, mod.inplace)
