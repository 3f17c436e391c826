"""torch.distributed's error classes (all RuntimeErrors, as in torch).

>>> import torchlike.distributed as dist
>>> issubclass(dist.QueueEmptyError, dist.DistStoreError), issubclass(dist.DistError, RuntimeError)
(True, True)
"""
from __future__ import annotations

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError", "QueueEmptyError"]


class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library."""


class DistBackendError(DistError):
    """Raised when a backend error occurs in distributed."""


class DistNetworkError(DistError):
    """Raised when a network error occurs in distributed."""


class DistStoreError(DistError):
    """Raised when an error occurs in the distributed store."""


class QueueEmptyError(DistStoreError):
    """Raised when a store queue is empty."""


for _c in (DistError, DistBackendError, DistNetworkError, DistStoreError, QueueEmptyError):
    _c.__module__ = "torch.distributed"
