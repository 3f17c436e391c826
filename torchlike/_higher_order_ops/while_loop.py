"""``torch.while_loop(cond_fn, body_fn, carried_inputs)``.

>>> import torchlike
>>> torchlike.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2),
...                      (torchlike.tensor(0), torchlike.tensor(1.0)))
(tensor(3), tensor(8.))
"""
from __future__ import annotations

import jax

from .._dispatch import dispatch
from .._grad_mode import is_grad_enabled
from ..tensor import Tensor
from ._flat import array_fn, is_traced

__all__ = ["while_loop"]


def while_loop(cond_fn, body_fn, carried_inputs):
    """``while cond_fn(*carry): carry = body_fn(*carry)``. Eagerly (and while the condition is a concrete
    value under ``torchlike.compile``) a Python loop; once the condition is a traced value, one
    ``jax.lax.while_loop`` over the carried tensors, which keep their shapes and dtypes."""
    if not isinstance(carried_inputs, tuple):
        raise RuntimeError(f"carried_inputs must be a tuple, got {type(carried_inputs)}")
    carry, out = carried_inputs, carried_inputs
    while True:
        pred = cond_fn(*carry)
        if is_traced(pred):
            return _lax_while(cond_fn, body_fn, carry)
        if not bool(pred):
            return out
        out = body_fn(*carry)
        carry = out if isinstance(out, tuple) else (out,)


def _lax_while(cond_fn, body_fn, carry):
    if not all(isinstance(c, Tensor) for c in carry):
        raise RuntimeError("Expected carried_inputs to be a tuple of tensors once the loop condition depends on "
                           f"traced values, but got {carry}.")
    if is_grad_enabled() and any(c.requires_grad for c in carry):
        raise RuntimeError("torch.while_loop: a loop whose condition depends on traced values is not differentiable "
                           "in torchlike (jax.lax.while_loop has no reverse mode; see docs/differences.md); detach "
                           "the carried tensors or use a loop with a fixed trip count")
    device = carry[0].device
    meta = [(tuple(c.shape), c.dtype) for c in carry]
    spec, body_spec = [], []
    cond_arrays = array_fn(cond_fn, device, spec, [])
    body_arrays = array_fn(lambda *ts: _as_tuple(body_fn(*ts)), device, body_spec, [])
    jax.eval_shape(body_arrays, *[c._value for c in carry])
    if body_spec[0][1] != meta:
        raise RuntimeError("Expected body_fn to return tensors with the same shapes and dtypes as carried_inputs, "
                           f"but got {body_spec[0][1]} for {meta}.")

    def lax_while(*arrays):
        return tuple(jax.lax.while_loop(lambda c: cond_arrays(*c)[0].reshape(()).astype(bool),
                                        lambda c: body_arrays(*c), tuple(arrays)))

    out = dispatch(lax_while, carry, name="WhileLoopBackward", jit=False, diff=False)
    return out if isinstance(out, tuple) else (out,)


def _as_tuple(out):
    return out if isinstance(out, tuple) else (out,)
