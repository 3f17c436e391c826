"""torch.fx._symbolic_trace's ``_Patcher``: the attributes a tracer replaces while it runs (``nn.Module.__call__``,
a module's global functions), put back in reverse order when the block ends.  torch's own tracer and libraries that
write their own ``Tracer.trace`` (torch_geometric's) use it; inside the block the ``__torch_function__`` protocol is
on, so torchlike functions called on Proxies record nodes.

    >>> import math
    >>> from torchlike.fx._symbolic_trace import _Patcher
    >>> with _Patcher() as p:
    ...     p.patch(vars(math), "floor", lambda x: "patched")
    ...     math.floor(1.5)
    'patched'
    >>> math.floor(1.5)
    1
"""
from __future__ import annotations

import builtins

from .. import _torch_function

__all__ = ["_Patcher", "compatibility"]

_MISSING = object()


def compatibility(is_backward_compatible):
    """torch.fx._compatibility.compatibility: a decorator that marks an API's stability; returns it unchanged."""
    return lambda fn: fn


class _Patcher:
    """Replace ``dict[name]`` (``patch``) or ``cls.name`` (``patch_method``) until the block ends."""

    def __init__(self):
        self.patches_made = []  # (undo function) in the order made
        self.visited = set()
        self._protocol = None

    def patch(self, frame_dict, name, new_fn, deduplicate=True):
        new_fn.__fx_already_patched = deduplicate
        if name not in frame_dict and hasattr(builtins, name):  # a builtin: shadowed by a global until the end
            frame_dict[name] = new_fn
            self.patches_made.append(lambda: frame_dict.pop(name, None))
            return
        old = frame_dict[name]
        if getattr(old, "__fx_already_patched", False):
            return
        frame_dict[name] = new_fn
        self.patches_made.append(lambda: frame_dict.__setitem__(name, old))

    def patch_method(self, cls, name, new_fn, deduplicate=True):
        new_fn.__fx_already_patched = deduplicate
        if getattr(getattr(cls, name), "__fx_already_patched", False):
            return
        own = vars(cls).get(name, _MISSING)  # an inherited method is deleted again, not copied onto cls
        setattr(cls, name, new_fn)
        self.patches_made.append(lambda: delattr(cls, name) if own is _MISSING else setattr(cls, name, own))

    def visit_once(self, thing):
        """True the first time ``thing`` is seen in this block."""
        if id(thing) in self.visited:
            return False
        self.visited.add(id(thing))
        return True

    def __enter__(self):
        self._protocol = _torch_function.enabled_while()
        self._protocol.__enter__()
        return self

    def __exit__(self, *exc):
        try:
            while self.patches_made:
                self.patches_made.pop()()
            self.visited.clear()
        finally:
            self._protocol.__exit__(*exc)
