"""torch.nn.quantized: torch's older path of ``torch.ao.nn.quantized`` (the same classes)."""
from ...ao.nn.quantized import *  # noqa: F401,F403
from ...ao.nn.quantized import __all__, __getattr__, modules  # noqa: F401
from . import dynamic  # noqa: F401
from . import functional  # noqa: F401,E402  (torch.nn.quantized.functional)
