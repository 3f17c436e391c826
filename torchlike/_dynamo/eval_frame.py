"""``torch._dynamo.eval_frame``: ``OptimizedModule``, the class of what ``torch.compile(module)`` returns.

>>> import torchlike as torch
>>> from torchlike._dynamo.eval_frame import OptimizedModule
>>> isinstance(torch.compile(torch.nn.Linear(2, 2)), OptimizedModule)
True
"""
from __future__ import annotations
from ..compile._module import OptimizedModule

__all__ = ["OptimizedModule"]  # noqa: F822 - resolved by __getattr__


def __getattr__(name):
    if name == "OptimizedModule":
        return OptimizedModule
    raise AttributeError(f"module 'torch._dynamo.eval_frame' has no attribute '{name}'")
