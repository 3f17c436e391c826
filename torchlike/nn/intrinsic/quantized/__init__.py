"""torch.nn.intrinsic.quantized: torch's older path of ``torch.ao.nn.intrinsic.quantized`` (the same classes)."""
from ....ao.nn.intrinsic.quantized import *  # noqa: F401,F403
from ....ao.nn.intrinsic.quantized import __all__, __getattr__, modules  # noqa: F401
