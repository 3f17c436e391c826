"""``functional_ref("name")``: a module class's kernel, ``torch.nn.functional.<name>`` looked up at each call.

torch's modules call ``F.<name>(...)`` in ``forward``, reading the name off ``torch.nn.functional`` every time, so
a library that replaces ``torch.nn.functional.<name>`` (a profiler counting the calls, as ptflops does; a test's
monkeypatch) sees every module call. A class attribute bound to the function when the class was made would keep
calling the original.

>>> import torchlike as torch
>>> F = torch.nn.functional
>>> calls, original = [], F.max_pool2d
>>> F.max_pool2d = lambda *a, **k: calls.append("max_pool2d") or original(*a, **k)
>>> torch.nn.MaxPool2d(2)(torch.zeros(1, 1, 2, 2)).shape
torch.Size([1, 1, 1, 1])
>>> F.max_pool2d = original
>>> calls
['max_pool2d']
"""
from __future__ import annotations

from .. import functional as F

__all__ = ["functional_ref"]


class functional_ref:
    """A class attribute whose value is ``nn.functional.<name>`` as it is when read."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        return getattr(F, self.name)
