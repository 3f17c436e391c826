"""``torch._higher_order_ops.map`` (a prototype in torch), run eagerly as the Python loop its documentation gives
as its meaning; pytrees of tensors in and out, as torch's.

>>> import torchlike
>>> from torchlike._higher_order_ops.map import map
>>> map(lambda x, y: x * y, torchlike.arange(3.), torchlike.tensor(2.))
tensor([0., 2., 4.])
"""
from __future__ import annotations

from ._loops import slices, stack_trees

__all__ = ["map"]


def map(f, xs, *args):  # noqa: A001 - torch's name
    """``stack([f(x, *args) for x in xs])`` over dim 0 of every leaf of ``xs`` (a pytree of tensors)."""
    n, at = slices(xs, 0, "map")
    return stack_trees([f(at(i), *args) for i in range(n)], 0)
