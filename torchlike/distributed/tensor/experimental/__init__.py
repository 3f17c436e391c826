"""``torch.distributed.tensor.experimental``: ``implicit_replication``.

>>> import torchlike
>>> from torchlike.distributed.tensor import distribute_tensor, init_device_mesh
>>> from torchlike.distributed.tensor.experimental import implicit_replication
>>> d = distribute_tensor(torchlike.ones(2), init_device_mesh("cpu", (1,)))
>>> with implicit_replication():
...     (d + torchlike.ones(2)).tolist()
[2.0, 2.0]
"""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["implicit_replication"]


@contextmanager
def implicit_replication():
    """Within the block, ops mixing a DTensor with plain tensors treat the plain ones as replicated.

    torchlike's DTensor ops already take a plain tensor as replicated everywhere (torch raises outside this
    block), so the context manager only marks the region, as torch's does for code that needs it."""
    yield
