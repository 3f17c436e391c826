"""``TransformGetItemToIndex``: the mode under which torch lets ``A[q_idx]`` index with a 0-d tensor inside
vmapped mask functions.  torchlike's indexing already takes 0-d integer tensors as indices without
converting them to Python numbers, so the mode has nothing to change."""
from __future__ import annotations

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex:
    """Context manager (a no-op in torchlike: indexing with 0-d tensors already stays traceable)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
