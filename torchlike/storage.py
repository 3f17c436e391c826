"""``torch.storage``: the storage classes (``UntypedStorage``, the deprecated ``TypedStorage``).

>>> import torchlike
>>> torchlike.storage.TypedStorage is torchlike.TypedStorage
True
"""
from __future__ import annotations

from ._storage import TypedStorage, UntypedStorage, _LegacyStorage, _LegacyStorageMeta
from ._storage import (  # noqa: F401  (torch.storage's private warning hooks, used by torch's own tests)
    _get_always_warn_typed_storage_removal, _set_always_warn_typed_storage_removal, _warn_typed_storage_removal)

__all__ = ["TypedStorage", "UntypedStorage"]

for _c in (TypedStorage, UntypedStorage, _LegacyStorage, _LegacyStorageMeta):
    _c.__module__ = __name__  # torch's home for them (pickles and reprs name torch.storage.X)
del _c
