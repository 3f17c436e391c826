"""``torch.distributed._tensor``: torch's backward-compatible alias of ``torch.distributed.tensor`` (its
``experimental`` and ``device_mesh`` submodules are the same module objects, as in torch).

>>> import torchlike.distributed._tensor as old
>>> import torchlike.distributed.tensor as new
>>> old.DTensor is new.DTensor, old.experimental is new.experimental
(True, True)
"""
from __future__ import annotations

import sys

from .. import device_mesh
from ..tensor import (DeviceMesh, DTensor, Partial, Placement, Replicate, Shard, distribute_module,
                      distribute_tensor, empty, full, init_device_mesh, ones, rand, randn, zeros)
from ..tensor import experimental

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard", "distribute_module",
           "distribute_tensor", "empty", "full", "init_device_mesh", "ones", "rand", "randn", "zeros"]

for _name, _mod in (("experimental", experimental), ("device_mesh", device_mesh)):
    sys.modules.setdefault(f"{__name__}.{_name}", _mod)
