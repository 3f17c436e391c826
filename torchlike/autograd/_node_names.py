"""Old home of the backward-node names; they live in ``torchlike._node_names`` (layer 0)."""
from __future__ import annotations

from .._tape import TORCH_NAMES, WRAPS_SCALARS, edges, relabel, torch_name  # noqa: F401

__all__ = ["edges", "torch_name", "relabel", "WRAPS_SCALARS", "TORCH_NAMES"]
