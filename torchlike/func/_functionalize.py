"""``torch.func.functionalize`` and ``debug_unwrap``.

torch's functionalize rewrites a function's in-place and view ops into out-of-place ones while keeping what
the caller sees: the same outputs, and the inputs mutated as the function mutates them. torchlike's
transforms already run on functional JAX values (a mutation is a new value written back to its tensor), so
the function itself already has those semantics: ``functionalize`` checks its arguments and returns it wrapped.

>>> import torchlike
>>> from torchlike.func import functionalize
>>> def f(x):
...     x.view(-1).add_(1)
...     return x * 2
>>> x = torchlike.zeros(2)
>>> functionalize(f)(x), x
(tensor([2., 2.]), tensor([1., 1.]))
"""
from __future__ import annotations

import functools

__all__ = ["functionalize", "debug_unwrap"]

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """``func`` with torch.func.functionalize's observable behaviour (see the module doc)."""
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
            "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
            "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a transform's wrappers: torchlike's transforms wrap no tensors, so ``tensor`` itself.

    >>> import torchlike
    >>> torchlike.func.debug_unwrap(torchlike.ones(1))
    tensor([1.])
    """
    return tensor
