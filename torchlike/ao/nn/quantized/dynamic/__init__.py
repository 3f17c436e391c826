"""torch.ao.nn.quantized.dynamic: the modules ``quantize_dynamic`` swaps in (``Linear``, ``LSTM``; GRU and the
RNN cells are not supported: any other name raises a NotImplementedError naming it, see docs/differences.md)."""
from ....._missing import module_getattr
from . import modules  # noqa: F401
from .modules import LSTM, Linear

__all__ = ["Linear", "LSTM"]

__getattr__ = module_getattr("torch.ao.nn.quantized.dynamic")
