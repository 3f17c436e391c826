"""Flattening a branch's Tensor outputs to arrays and back (the form ``jax.lax`` control flow takes)."""
from __future__ import annotations

import jax

from ..tensor import Tensor


def is_traced(t) -> bool:
    """Whether ``t`` (a Tensor or Python value) holds a traced, not a concrete, value."""
    return isinstance(t, Tensor) and isinstance(t._value, jax.core.Tracer)


def flatten(out):
    """(leaves, rebuild): ``out`` is a Tensor or a tuple/list of Tensors, as torch.cond requires."""
    if isinstance(out, Tensor):
        return [out], lambda leaves: leaves[0]
    if isinstance(out, (tuple, list)) and all(isinstance(o, Tensor) for o in out):
        kind = type(out)
        return list(out), lambda leaves: kind(leaves)
    raise RuntimeError(f"Expected branches to return a possibly nested pytree of tensors or constant ints but got "
                       f"{out!r}")


def array_fn(fn, device, spec, needs_grad):
    """``fn`` over Tensors as a function over arrays: records its output structure in ``spec`` and, in
    ``needs_grad``, whether an output depends on a tensor the function closes over that requires grad."""
    def run(*arrays):
        out = fn(*[Tensor._wrap(a, device) for a in arrays])
        leaves, rebuild = flatten(out)
        spec.append((rebuild, [(tuple(o.shape), o.dtype) for o in leaves]))
        if any(o._grad_fn is not None or o._rg for o in leaves):
            needs_grad.append(True)
        return tuple(o._value for o in leaves)
    return run
