"""Gradient clipping: clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_.

Each is one jitted function over all gradients (no per-tensor Python loop of ops).

>>> import torchlike as torch
>>> p = torch.nn.Parameter(torch.ones(4)); p.grad = torch.full((4,), 3.0)
>>> torch.nn.utils.clip_grad_norm_([p], 1.0)
tensor(6.)
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..._dispatch import dispatch
from ...autograd import grad_mode
from ...tensor import Tensor
from ..._creation import tensor
from ..._ops.reduction import norm_kind, vnorm

# The clip for FSDP's sharded gradients (their norm spans all ranks): distributed.fsdp._fully_shard appends
# clip_grad_norm_sharded when it is imported, which it is before any gradient can be sharded.
sharded_clip: list = []

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _vnorm(x, p):
    if p in (float("inf"), float("-inf")) and not x.size:
        return jnp.zeros((), jnp.abs(x).dtype)
    return vnorm(x, p, None, False, norm_kind(p))


def _total_f(*gs, p):
    norms = jnp.stack([_vnorm(g, p).astype(gs[0].dtype) for g in gs])
    return _vnorm(norms, p)


def _clip_f(*args, n):
    gs, total, max_norm = args[:n], args[n], args[n + 1]
    coef = jnp.minimum(max_norm / (total + 1e-6), 1.0)
    return tuple(g * coef.astype(g.dtype) for g in gs)


def _norm_clip_f(*args, p):
    gs = args[:-1]
    total = _total_f(*gs, p=p)
    return (total,) + _clip_f(*gs, total, args[-1], n=len(gs))


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the norms of ``tensors`` (as if concatenated)."""
    ts = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not ts:
        return tensor(0.0)
    total = dispatch(_total_f, tuple(ts), (("p", norm_type),), diff=False)
    if error_if_nonfinite and not bool(np.isfinite(np.asarray(total._value))):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale gradients in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)  # (torch's first step, with or without gradients)
    if not grads:
        return
    with grad_mode.no_grad():
        new = dispatch(_clip_f, tuple(grads) + (total_norm, max_norm), (("n", len(grads)),), diff=False)
        for g, v in zip(grads, new):
            g._set_value(v._value)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradients' total ``norm_type`` norm to ``max_norm`` in place; returns the total norm."""
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if any("_gshape" in g.__dict__ for g in grads):  # FSDP's sharded gradients: the norm spans all ranks
        return sharded_clip[0](grads, max_norm, norm_type)
    if grads and not error_if_nonfinite:  # the norm and the scaling in one program
        with grad_mode.no_grad():
            out = dispatch(_norm_clip_f, tuple(grads) + (float(max_norm),), (("p", float(norm_type)),),
                           diff=False)
        for g, v in zip(grads, out[1:]):
            g._set_value(v._value)
        return out[0]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def _clamp_f(*args, n):
    v = args[n]
    return tuple(jnp.clip(g, -v, v).astype(g.dtype) for g in args[:n])


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to [-clip_value, clip_value] in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:  # torch groups the (empty) gradient list by device first, and its check refuses one
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    with grad_mode.no_grad():
        new = dispatch(_clamp_f, tuple(grads) + (float(clip_value),), (("n", len(grads)),), diff=False)
        for g, v in zip(grads, new):
            g._set_value(v._value)
