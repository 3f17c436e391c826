"""ctc_loss: the CTC forward (alpha) recursion as one ``lax.scan``, gradients by ``jax.vjp``.

torch's CTC backward returns ``exp(log_probs) - occupancy / p``: the gradient with respect to the
logits *assuming* ``log_probs`` came from ``log_softmax``.  A value-neutral term reproduces that
convention exactly (through a log_softmax both conventions give the same logits gradient).

>>> import torchlike as torch
>>> lp = torch.zeros(4, 1, 3).log_softmax(-1) if hasattr(torch.Tensor, 'log_softmax') else None
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ... import _autocast as _amp
from ._loss import _reduced_node

__all__ = ["ctc_loss"]

_NEG = -1e30  # finite "log 0" keeps the recursion and its gradient free of inf - inf


def _lse3(a, b, c):
    m = jnp.maximum(jnp.maximum(a, b), c)
    return m + jnp.log(jnp.exp(a - m) + jnp.exp(b - m) + jnp.exp(c - m))


def _pad_targets(targets, tl, N, S, blank, concat):
    """(N, S) targets, blank past each target length (so padding values never index log_probs)."""
    j = jnp.arange(S)[None, :]
    tl = tl.astype(jnp.int64)
    if concat:  # 1-D concatenation of all sequences: sample n starts at the sum of the earlier lengths
        if targets.shape[0] == 0:
            return jnp.full((N, S), blank, jnp.int64)
        start = jnp.cumsum(tl) - tl
        tg = targets.astype(jnp.int64)[jnp.clip(start[:, None] + j, 0, targets.shape[0] - 1)]
    else:
        tg = targets.astype(jnp.int64).reshape(N, -1)
        w = tg.shape[1]
        tg = tg[:, :S] if w >= S else jnp.pad(tg, ((0, 0), (0, S - w)), constant_values=blank)
    return jnp.where(j < tl[:, None], tg, blank)


def _ctc(lp, targets, il, tl, blank, reduction, zero_infinity, S, concat):
    T, N, C = lp.shape
    il = il.astype(jnp.int64)
    tl = tl.astype(jnp.int64)
    targets = _pad_targets(targets, tl, N, S, blank, concat)
    L = 2 * S + 1
    work = lp.astype(jnp.float32) if lp.dtype in (jnp.float16, jnp.bfloat16) else lp
    dt = work.dtype
    neg = jnp.asarray(_NEG, dt)
    ext = jnp.full((N, L), blank, targets.dtype).at[:, 1::2].set(targets)
    prev2 = jnp.concatenate([jnp.full((N, 2), blank, ext.dtype), ext[:, :-2]], axis=1)
    skip = (jnp.arange(L)[None, :] >= 2) & (ext != blank) & (ext != prev2)
    lpe = jnp.take_along_axis(work, jnp.broadcast_to(ext[None], (T, N, L)), axis=2)  # (T, N, L)
    pos = jnp.arange(L)[None, :]
    alpha0 = jnp.where(pos == 0, lpe[0], jnp.where((pos == 1) & (tl[:, None] > 0), lpe[0], neg))
    alpha0 = jnp.where(il[:, None] > 0, alpha0, jnp.where(pos == 0, 0.0, neg).astype(dt))

    def step(alpha, xs):
        t, lpt = xs
        a1 = jnp.concatenate([jnp.full((N, 1), neg, dt), alpha[:, :-1]], axis=1)
        a2 = jnp.where(skip, jnp.concatenate([jnp.full((N, 2), neg, dt), alpha[:, :-2]], axis=1), neg)
        new = _lse3(alpha, a1, a2) + lpt
        return jnp.where((t < il)[:, None], new, alpha), None

    alpha, _ = jax.lax.scan(step, alpha0, (jnp.arange(1, T), lpe[1:]))
    end = 2 * tl
    a_end = jnp.take_along_axis(alpha, end[:, None], axis=1)[:, 0]
    a_end1 = jnp.where(tl > 0, jnp.take_along_axis(alpha, jnp.maximum(end - 1, 0)[:, None], axis=1)[:, 0], neg)
    ll = jnp.logaddexp(a_end, a_end1)
    impossible = ll < _NEG / 2
    # torch's gradient convention: + exp(log_probs) for every frame inside the input length
    e = jnp.exp(work)
    valid_t = (jnp.arange(T)[:, None] < il[None, :]).astype(dt)  # (T, N)
    corr = jnp.sum((e - jax.lax.stop_gradient(e)) * valid_t[:, :, None], axis=(0, 2))
    loss = -ll + corr
    inf = jnp.asarray(jnp.inf, dt)
    loss = jnp.where(impossible, jnp.zeros((), dt) if zero_infinity else inf, loss)
    if reduction == "mean":
        r = jnp.mean(loss / jnp.maximum(tl, 1).astype(dt))
    elif reduction == "sum":
        r = jnp.sum(loss)
    else:
        r = loss
    return r.astype(lp.dtype)


def _traced(x):
    return isinstance(x, Tensor) and isinstance(x._value, jax.core.Tracer)


def _lengths(x):
    """A length argument as an int64 Tensor, plus its numpy values when they are known (not traced)."""
    if isinstance(x, Tensor):
        t = x.reshape(-1)
        return t, (None if _traced(x) else np.asarray(x._value).astype(np.int64).reshape(-1))
    v = np.asarray(x, dtype=np.int64).reshape(-1)
    return Tensor._wrap(jnp.asarray(v)), v


_CHECKING = " (while checking arguments for ctc_loss_allocate_outputs)"


def _check_lengths(il, tl, T, N, targets_shape, concat):
    """torch's argument checks of the lengths against the targets' and log_probs' shapes, in its order."""
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v}{_CHECKING}")
    want, dim = (int(tl.sum()), 0) if concat else (N, 0)
    if targets_shape[dim] != want:
        raise RuntimeError(f"Expected tensor to have size {want} at dimension {dim}, but got size "
                           f"{targets_shape[dim]} for argument #2 'targets'{_CHECKING}")
    if not concat and len(tl) and targets_shape[1] < int(tl.max()):
        raise RuntimeError(f"Expected tensor to have size at least {int(tl.max())} at dimension 1, but got size "
                           f"{targets_shape[1]} for argument #2 'targets'{_CHECKING}")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{_CHECKING}")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v}{_CHECKING}")


@_functional()
@_amp.fp32
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss of ``log_probs`` (T, N, C) against ``targets``.

    ``targets`` is (N, S) padded or the 1-D concatenation of all target sequences.  Everything runs in
    one jitted function, so the loss also traces under ``torchlike.compile`` (lengths may be tensors).
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
    T, N, C = log_probs.shape
    for name, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if isinstance(v, Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex or v.dtype.name == "bool"):
            raise RuntimeError(f"{name} must be integral")
    if not 0 <= int(blank) < C:
        raise RuntimeError("blank must be in label range")
    il_t, il = _lengths(input_lengths)
    tl_t, tl = _lengths(target_lengths)
    if il_t.shape[0] != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl_t.shape[0] != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not isinstance(targets, Tensor):
        targets = Tensor._wrap(jnp.asarray(np.asarray(targets, dtype=np.int64)), log_probs.device)
    concat = targets.ndim == 1 and not unbatched
    if il is not None and tl is not None:
        _check_lengths(il, tl, T, N, tuple(targets.shape), targets.ndim == 1)  # (unbatched 1-D: concatenated)
    if concat:
        # the padded width: the longest target when lengths are known, else the whole concatenation
        S = int(tl.max()) if tl is not None and tl.size else targets.shape[0]
    else:
        S = targets.shape[-1]
    S = max(S, 1)
    out = dispatch(_ctc, (log_probs, targets, il_t, tl_t),
                   (("blank", int(blank)), ("reduction", reduction), ("zero_infinity", bool(zero_infinity)),
                    ("S", S), ("concat", concat)),
                   name=_reduced_node(reduction, "WhereBackward0" if zero_infinity else "CtcLossBackward0"))
    if unbatched and reduction == "none":
        out = out.squeeze(0)
    return out
