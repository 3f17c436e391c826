"""torch.jit.annotations: the type names TorchScript-annotated code imports (``BroadcastingList2``, typing's
``List``/``Tuple``/``Dict``/``Optional``...). torchlike runs such code as Python, so they only need to exist.

>>> from torchlike.jit.annotations import BroadcastingList2, List
>>> BroadcastingList2[int] is None, List[int]
(True, typing.List[int])
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: F401 - re-exported as torch does

__all__ = ["Any", "BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "Dict", "List", "Optional",
           "Tuple", "Union"]


class _BroadcastingListCls:
    """``BroadcastingListN[T]``: TorchScript's "T or N-tuple of T"; subscripting gives ``None`` as in torch."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingListCls()
