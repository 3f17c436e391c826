"""torch.nn.intrinsic: torch's older path of ``torch.ao.nn.intrinsic`` (the same classes)."""
from ...ao.nn.intrinsic import *  # noqa: F401,F403
from ...ao.nn.intrinsic import __all__  # noqa: F401
from ...ao.nn.intrinsic import modules  # noqa: F401
from . import qat, quantized  # noqa: F401,E402  (torch.nn.intrinsic.qat / .quantized)
