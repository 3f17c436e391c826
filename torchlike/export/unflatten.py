"""``torch.export.unflatten``: the module of that name, and its function (``torch.export.unflatten(ep)``).

>>> import torchlike
>>> from torchlike.export.unflatten import unflatten
>>> class M(torchlike.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.lin = torchlike.nn.Linear(2, 2)
...     def forward(self, x):
...         return self.lin(x)
>>> ep = torchlike.export.export(M(), (torchlike.ones(1, 2),))
>>> isinstance(unflatten(ep).lin, torchlike.nn.Linear)
True
"""
from __future__ import annotations

import copy

__all__ = ["unflatten"]


def unflatten(ep, flat_args_adapter=None):
    """The exported module with its submodule hierarchy (torch's ``UnflattenedModule``): here a copy of the
    module that was exported, holding the program's parameters and buffers, so ``unflat.sub(x)`` runs that
    submodule. A program loaded from a file has no module code to rebuild, so it raises."""
    if getattr(ep, "_module", None) is None:
        raise NotImplementedError("torchlike.export.unflatten needs the exported module's code: it works on a "
                                  "program exported in this process, not on one loaded from a file")
    mod = copy.deepcopy(ep._module)
    mod.load_state_dict(ep.state_dict, strict=False)
    return mod
