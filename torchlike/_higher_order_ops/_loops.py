"""What ``map``, ``scan`` and ``associative_scan`` share: a pytree of tensors sliced along a dimension, and the
per-step pytrees stacked back."""
from __future__ import annotations

from .._ops.shape import stack
from ..tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten

__all__ = ["slices", "stack_trees"]


def slices(xs, dim, what):
    leaves, spec = tree_flatten(xs)
    if not leaves or not all(isinstance(t, Tensor) for t in leaves):
        raise RuntimeError(f"{what}: xs must be a tensor or a pytree of tensors with at least one leaf")
    n = leaves[0].shape[dim]
    if any(t.shape[dim] != n for t in leaves):
        raise RuntimeError(f"{what}: all xs leaves must have the same size along the scanned dimension")
    return n, lambda i: tree_unflatten([t.select(dim, i) for t in leaves], spec)


def stack_trees(outs, dim):
    """Pytrees ``outs`` (one per step, same structure) as one pytree of tensors stacked along ``dim``."""
    flat = [tree_flatten(o) for o in outs]
    spec = flat[0][1]
    return tree_unflatten([stack([f[0][k] for f in flat], dim) for k in range(len(flat[0][0]))], spec)
