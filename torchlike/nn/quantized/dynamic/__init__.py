"""torch.nn.quantized.dynamic: torch's older path of ``torch.ao.nn.quantized.dynamic`` (the same classes)."""
from ....ao.nn.quantized.dynamic import *  # noqa: F401,F403
from ....ao.nn.quantized.dynamic import __all__, __getattr__, modules  # noqa: F401
