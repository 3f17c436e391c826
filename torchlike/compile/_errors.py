"""Errors the compile path recognises (``GraphBreak`` is defined in layer 0, where Tensor raises it)."""
from .._errors import GraphBreak
from .._torch_paths import home as _home

__all__ = ["GraphBreak"]
_home(globals(), GraphBreak)
