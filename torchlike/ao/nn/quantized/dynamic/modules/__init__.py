"""torch.ao.nn.quantized.dynamic.modules: dynamically quantized modules (Linear, LSTM)."""
from .linear import Linear
from .rnn import LSTM, PackedParameter  # noqa: F401

__all__ = ["Linear", "LSTM"]
