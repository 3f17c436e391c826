"""torch.onnx.symbolic_helper: ``parse_args``, the decorator ONNX symbolic functions are written with.

torchlike exports no ONNX graph, so the decorator returns the symbolic function unchanged.

>>> from torchlike.onnx.symbolic_helper import parse_args
>>> parse_args("v", "f")(lambda g, x, y: y)(None, 1, 2)
2
"""
from __future__ import annotations

from .._missing import module_getattr

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    """Decorator for a symbolic function taking arguments described by ``arg_descriptors``."""
    def decorator(fn):
        return fn
    return decorator


__getattr__ = module_getattr("torch.onnx.symbolic_helper")
