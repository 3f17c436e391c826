"""``torch._higher_order_ops.map``, ``scan`` and ``associative_scan`` (prototypes in torch), run eagerly as the
Python loops their documentation gives as their meaning; pytrees of tensors in and out, as torch's.

>>> import torchlike
>>> from torchlike._higher_order_ops import scan
>>> scan(lambda c, x: (c + x, c * x), torchlike.tensor(0.), torchlike.arange(1., 5.))
(tensor(10.), tensor([ 0.,  2.,  9., 24.]))
"""
from __future__ import annotations

from .._ops.shape import stack
from ..tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten

__all__ = ["map", "scan", "associative_scan"]


def _slices(xs, dim, what):
    leaves, spec = tree_flatten(xs)
    if not leaves or not all(isinstance(t, Tensor) for t in leaves):
        raise RuntimeError(f"{what}: xs must be a tensor or a pytree of tensors with at least one leaf")
    n = leaves[0].shape[dim]
    if any(t.shape[dim] != n for t in leaves):
        raise RuntimeError(f"{what}: all xs leaves must have the same size along the scanned dimension")
    return n, lambda i: tree_unflatten([t.select(dim, i) for t in leaves], spec)


def _stack(outs, dim):
    """Pytrees ``outs`` (one per step, same structure) as one pytree of tensors stacked along ``dim``."""
    flat = [tree_flatten(o) for o in outs]
    spec = flat[0][1]
    return tree_unflatten([stack([f[0][k] for f in flat], dim) for k in range(len(flat[0][0]))], spec)


def map(f, xs, *args):  # noqa: A001 - torch's name
    """``stack([f(x, *args) for x in xs])`` over dim 0 of every leaf of ``xs`` (a pytree of tensors)."""
    n, at = _slices(xs, 0, "map")
    return _stack([f(at(i), *args) for i in range(n)], 0)


def scan(combine_fn, init, xs, *, dim=0, reverse=False):
    """``(final carry, ys)``: ``carry, y = combine_fn(carry, x)`` for each slice ``x`` of ``xs`` along ``dim``
    (from the end if ``reverse``); ``ys`` stacks the ``y``s along ``dim`` at their slices' positions."""
    n, at = _slices(xs, dim, "scan")
    carry, ys = init, [None] * n
    for i in (reversed(range(n)) if reverse else range(n)):
        carry, ys[i] = combine_fn(carry, at(i))
    return carry, _stack(ys, dim)


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """The inclusive scan of ``xs`` along ``dim`` with ``combine_fn`` (``out[i] = combine_fn(out[i-1], x[i])``;
    from the end if ``reverse``). ``combine_mode="pointwise"`` needs a GPU in torch, as here."""
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    leaves = tree_flatten(xs)[0]
    if combine_mode == "pointwise" and not all(t.device.type in ("cuda", "xpu") for t in leaves):
        raise ValueError("For combine_mode='pointwise', all input tensors need to be on CUDA or XPU")
    n, at = _slices(xs, dim, "associative_scan")
    out = [None] * n
    order = list(reversed(range(n))) if reverse else list(range(n))
    prev = None
    for i in order:
        prev = at(i) if prev is None else combine_fn(prev, at(i))
        out[i] = prev
    return _stack(out, dim)
