"""torch._vmap_internals: torch's legacy (pre-functorch) vmap, which libraries still import by name (torchmin
builds Hessians and Jacobians as ``_vmap(hvp)(eye)`` with ``hvp`` calling ``autograd.grad``). torch's runs the
function once on BatchedTensors; semantically that is a map, and here it is one: the function runs per slice
of the mapped dimension and the results are stacked along ``out_dims``.

>>> import torchlike
>>> from torchlike._vmap_internals import _vmap
>>> _vmap(lambda a, b: a * b, in_dims=(1, None))(torchlike.arange(6.).view(2, 3), torchlike.tensor(2.)).shape
torch.Size([3, 2])
"""
from __future__ import annotations

import functools
import warnings

from ._ops.shape import stack
from .tensor import Tensor

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    """torch._vmap_internals._vmap: ``func`` mapped over dimension ``in_dims`` of its tensor arguments (an int
    for all, or one int or None per argument), its tensor outputs stacked at ``out_dims``; with
    ``allow_none_pass_through`` a None output (``autograd.grad`` of an unused input) stays None."""
    @functools.wraps(func)
    def wrapped(*args):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible "
                             f"with the structure of `inputs`.")
        sizes = [a.size(d) for a, d in zip(args, dims) if d is not None and isinstance(a, Tensor)]
        if not sizes:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                             f"a Tensor mapped over a dimension (in_dims not None).")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        results = [func(*(a.select(d, i) if d is not None and isinstance(a, Tensor) else a
                          for a, d in zip(args, dims))) for i in range(sizes[0])]
        single = not isinstance(results[0], tuple)
        columns = [[r] if single else list(r) for r in results]
        odims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(columns[0])
        outs = []
        for k, od in enumerate(odims):
            parts = [c[k] for c in columns]
            if parts[0] is None and allow_none_pass_through:
                outs.append(None)
                continue
            for p in parts:
                if not isinstance(p, Tensor):
                    raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got "
                                     f"type {type(p)} as the return.")
            outs.append(stack(parts, dim=od))
        return outs[0] if single else tuple(outs)
    return wrapped


def vmap(func, in_dims=0, out_dims=0):
    """Deprecated torch._vmap_internals.vmap (FutureWarning, as torch's): ``_vmap``."""
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.", FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)
