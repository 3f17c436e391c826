"""``torch.distributed.GradBucket``: what a DDP communication hook receives.

>>> import torchlike
>>> from torchlike.distributed import GradBucket
>>> b = GradBucket(0, torchlike.arange(3.), [torchlike.zeros(3)], True)
>>> b.index(), b.is_last(), b.gradients()[0].tolist()
(0, True, [0.0, 1.0, 2.0])
"""
from __future__ import annotations

__all__ = ["GradBucket"]


class GradBucket:
    """What a comm hook receives: the flattened gradients of one bucket (``buffer()``)."""

    def __init__(self, index, buffer, params, is_last):
        self._index, self._buffer, self._params, self._last = index, buffer, params, is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def gradients(self):
        out, off = [], 0
        for p in self._params:
            n = p.numel()
            out.append(self._buffer[off:off + n].view(p.shape))
            off += n
        return out

    def parameters(self):
        return list(self._params)

    def is_last(self):
        return self._last

    def set_buffer(self, buffer):
        self._buffer = buffer
