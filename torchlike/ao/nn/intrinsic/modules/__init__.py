"""torch.ao.nn.intrinsic.modules: the fused-module containers (see ``fused``)."""
from .fused import *  # noqa: F401,F403
from .fused import __all__  # noqa: F401
