"""OptimizedModule: what ``torchlike.compile(module)`` returns (an nn.Module wrapping ``_orig_mod``,
so, as in torch, its state_dict keys carry the ``_orig_mod.`` prefix)."""
from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """Calls run the compiled ``_orig_mod``; every other attribute is the original module's."""

    def __init__(self, mod, compiled):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


OptimizedModule.__module__ = "torch._dynamo.eval_frame"   # torch's path (pickles name it)
