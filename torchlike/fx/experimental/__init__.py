"""torch.fx.experimental: the module paths library code imports (``proxy_tensor.get_proxy_mode``).

>>> from torchlike.fx.experimental import proxy_tensor
>>> proxy_tensor.get_proxy_mode() is None
True
"""
from . import proxy_tensor

__all__ = ["proxy_tensor"]
