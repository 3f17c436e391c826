"""OptimizedModule: what ``torchlike.compile(module)`` returns."""
from __future__ import annotations

__all__ = ["OptimizedModule"]


class OptimizedModule:
    """Delegates everything to the original module (``_orig_mod``); calls run compiled."""

    def __init__(self, mod, compiled):
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    forward = __call__

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        setattr(self._orig_mod, name, value)

    def __repr__(self):
        return f"OptimizedModule(\n  (_orig_mod): {repr(self._orig_mod)}\n)" if False else repr(self._orig_mod)

    def state_dict(self, *a, **k):
        return self._orig_mod.state_dict(*a, **k)

    def __iter__(self):
        return iter(self._orig_mod)
