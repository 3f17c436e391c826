"""``torch._higher_order_ops.associative_scan`` (a prototype in torch), run eagerly as the Python loop its
documentation gives as its meaning; pytrees of tensors in and out, as torch's.

>>> import torchlike
>>> from torchlike._higher_order_ops.associative_scan import associative_scan
>>> associative_scan(lambda a, b: a + b, torchlike.arange(1., 5.), 0, combine_mode="generic")
tensor([ 1.,  3.,  6., 10.])
"""
from __future__ import annotations

from ..utils._pytree import tree_flatten
from ._loops import slices, stack_trees

__all__ = ["associative_scan"]


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """The inclusive scan of ``xs`` along ``dim`` with ``combine_fn`` (``out[i] = combine_fn(out[i-1], x[i])``;
    from the end if ``reverse``). ``combine_mode="pointwise"`` needs a GPU in torch, as here."""
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    leaves = tree_flatten(xs)[0]
    if combine_mode == "pointwise" and not all(t.device.type in ("cuda", "xpu") for t in leaves):
        raise ValueError("For combine_mode='pointwise', all input tensors need to be on CUDA or XPU")
    n, at = slices(xs, dim, "associative_scan")
    out = [None] * n
    order = list(reversed(range(n))) if reverse else list(range(n))
    prev = None
    for i in order:
        prev = at(i) if prev is None else combine_fn(prev, at(i))
        out[i] = prev
    return stack_trees(out, dim)
