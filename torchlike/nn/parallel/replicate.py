"""``torch.nn.parallel.replicate``: one replica of a module per device.

On torchlike's single device the replicas are the module itself, so gradients reach the original
parameters as they do through torch's broadcast replicas.

>>> import torchlike as torch
>>> from torchlike.nn.parallel.replicate import replicate
>>> m = torch.nn.Linear(2, 2)
>>> all(r is m for r in replicate(m, [0, 1]))
True
"""
from __future__ import annotations

__all__ = ["replicate"]


def replicate(network, devices, detach=False):
    """``[network] * len(devices)`` (one device); ``detach`` is accepted for torch's signature."""
    return [network for _ in devices]
