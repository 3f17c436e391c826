"""torch.utils.hooks.RemovableHandle: the one handle every ``register_*hook`` returns — tensors and autograd
nodes (``Tensor.register_hook``, ``Node.register_hook/register_prehook``), modules, optimizers — as torch's.

A hook table is a dict ``{handle id: hook}``; ``remove()`` pops the handle's id from its table(s). Ids are
unique across all tables, so side tables can share them. Public at ``torchlike.utils.hooks`` (pickles name it).

>>> import torchlike
>>> x = torchlike.ones(2, requires_grad=True)
>>> h = x.register_hook(lambda g: g * 2)
>>> type(h).__module__, type(h).__name__
('torchlike.utils.hooks', 'RemovableHandle')
>>> h.remove()
"""
from __future__ import annotations

import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Returned by every ``register_*hook``: ``remove()`` takes the hook out of the table(s) it is in.

    Works as a context manager (the hook is removed on exit) and survives pickling with its module.

    >>> import torchlike as torch
    >>> m = torch.nn.Identity()
    >>> h = m.register_forward_hook(lambda mod, i, o: None); h.remove(); len(m._forward_hooks)
    0
    """

    id: int
    next_id: int = 0  # ids are unique across all tables, so side tables can share them

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [extra_dict] if isinstance(extra_dict, dict) else (extra_dict or [])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def _tables(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            table = ref()
            if table is not None:
                yield table

    def remove(self):
        for table in self._tables():
            table.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        table, self.id = state[0], state[1]
        self.hooks_dict_ref = weakref.ref(OrderedDict() if table is None else table)
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extras = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


RemovableHandle.__module__ = "torchlike.utils.hooks"  # torch's path (pickles name it); re-exported there


def add_hook(table, hook):
    """Put ``hook`` into ``table`` (an OrderedDict: weakly referenced by the handle) under a new handle's id and return the handle."""
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle
