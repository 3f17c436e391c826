"""``torch._higher_order_ops.scan`` (a prototype in torch), run eagerly as the Python loop its documentation gives
as its meaning; pytrees of tensors in and out, as torch's.

>>> import torchlike
>>> from torchlike._higher_order_ops.scan import scan
>>> scan(lambda c, x: (c + x, c * x), torchlike.tensor(0.), torchlike.arange(1., 5.))
(tensor(10.), tensor([ 0.,  2.,  9., 24.]))
"""
from __future__ import annotations

from ._loops import slices, stack_trees

__all__ = ["scan"]


def scan(combine_fn, init, xs, *, dim=0, reverse=False):
    """``(final carry, ys)``: ``carry, y = combine_fn(carry, x)`` for each slice ``x`` of ``xs`` along ``dim``
    (from the end if ``reverse``); ``ys`` stacks the ``y``s along ``dim`` at their slices' positions."""
    n, at = slices(xs, dim, "scan")
    carry, ys = init, [None] * n
    for i in (reversed(range(n)) if reverse else range(n)):
        carry, ys[i] = combine_fn(carry, at(i))
    return carry, stack_trees(ys, dim)
