"""torch.nn.intrinsic.qat: torch's older path of ``torch.ao.nn.intrinsic.qat`` (the same classes)."""
from ....ao.nn.intrinsic.qat import *  # noqa: F401,F403
from ....ao.nn.intrinsic.qat import __all__, __getattr__, modules  # noqa: F401
