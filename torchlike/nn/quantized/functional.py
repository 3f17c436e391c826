"""torch.nn.quantized.functional: torch's older path of ``torch.ao.nn.quantized.functional`` (the same functions)."""
from ...ao.nn.quantized.functional import *  # noqa: F401,F403
from ...ao.nn.quantized.functional import __all__  # noqa: F401
