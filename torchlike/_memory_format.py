"""torch.memory_format values.  XLA chooses physical layouts itself, so these are accepted everywhere torch
takes them (``.to``, ``.contiguous``, ``clone``, ``*_like``, ``Module.to``) and do not change a tensor:
``stride()`` always describes the row-major layout (docs/differences.md).

>>> import torchlike as torch
>>> torch.channels_last, torch.randn(1, 2, 3, 3).contiguous(memory_format=torch.channels_last).shape
(torch.channels_last, torch.Size([1, 2, 3, 3]))
"""
from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    return globals()[name]


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
