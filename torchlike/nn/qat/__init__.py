"""torch.nn.qat: torch's older path of ``torch.ao.nn.qat`` (the same classes)."""
from ...ao.nn.qat import *  # noqa: F401,F403
from ...ao.nn.qat import __all__, __getattr__, modules  # noqa: F401
