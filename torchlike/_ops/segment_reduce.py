"""``torch.segment_reduce`` (``torch._segment_reduce``): reduce consecutive segments of ``data`` along ``axis``.

Segments are given by ``lengths`` or ``offsets`` of shape ``data.shape[:axis] + (S,)`` (``S + 1`` for offsets),
so each leading row may be cut differently. Segment ids are computed on the device from the lengths' running
sums, so the op also traces under ``torchlike.compile``; the checks that need values (negative lengths, lengths
that do not sum to the axis when not ``unsafe``) run when the lengths are concrete.

    >>> import torchlike as torch
    >>> torch.segment_reduce(torch.tensor([1., 2., 3., 4., 5.]), "sum", lengths=torch.tensor([0, 1, 2, 2]))
    tensor([0., 1., 5., 9.])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import _is_tracer
from ._util import Tensor, dispatch, register

__all__ = ["segment_reduce"]

_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "max", "amax": "max", "min": "min", "amin": "min"}


def _segment_impl(data, lengths, *, axis, reduce, initial):
    lead = data.shape[:axis]
    B, L = int(np.prod(lead, dtype=np.int64)), data.shape[axis]
    rest = data.shape[axis + 1:]
    S = lengths.shape[-1]
    x = data.reshape((B, L) + rest)
    ln = lengths.reshape(B, S).astype(jnp.int64)
    ends = jnp.cumsum(ln, axis=-1)                                        # (B, S)
    pos = jnp.arange(L, dtype=jnp.int64)
    seg = jnp.sum(ends[:, None, :] <= pos[None, :, None], axis=-1)        # (B, L): S where past the last end
    opmath = jnp.float32 if data.dtype in (jnp.float16, jnp.bfloat16) else data.dtype
    if reduce in ("sum", "mean"):
        gid = (jnp.arange(B, dtype=jnp.int64)[:, None] * (S + 1) + seg).reshape(-1)  # id S: past the last end
        flat = x.reshape((B * L,) + rest).astype(opmath)
        r = jax.ops.segment_sum(flat, gid, B * (S + 1)).reshape((B, S + 1) + rest)[:, :S]
    else:
        # prod/max/min over a (B, S, L) membership mask: differentiable as jnp's reductions are (ties share
        # a max's gradient; a zero's gradient is the product of the others), which scatter-mul is not
        member = (seg[:, None, :] == jnp.arange(S, dtype=jnp.int64)[None, :, None])   # (B, S, L)
        member = member.reshape((B, S, L) + (1,) * len(rest))
        xs = x.astype(opmath)[:, None]                                                # (B, 1, L, *rest)
        if reduce == "prod":
            r = jnp.prod(jnp.where(member, xs, 1), axis=2)
        elif reduce == "max":
            r = jnp.max(jnp.where(member, xs, -jnp.inf), axis=2)
        else:
            r = jnp.min(jnp.where(member, xs, jnp.inf), axis=2)
    cnt = ln.reshape((B, S) + (1,) * len(rest)).astype(opmath)
    if initial is not None:
        init = jnp.asarray(initial, opmath)
        if reduce == "sum":
            r = r + init
        elif reduce == "prod":
            r = r * init
        elif reduce == "max":
            r = jnp.where((cnt > 0) & (r >= init), r, init)  # a tie with initial: the data's gradient, as torch
        elif reduce == "min":
            r = jnp.where((cnt > 0) & (r <= init), r, init)
        else:
            r = jnp.where(cnt > 0, (r + init) / jnp.where(cnt > 0, cnt, 1), init)
    elif reduce == "mean":
        r = r / cnt  # an empty segment: 0 / 0 = nan, as torch
    return r.reshape(lead + (S,) + rest).astype(data.dtype)


def _check_lengths(lengths, data, axis, unsafe):
    x = lengths._value
    if _is_tracer(x):  # traced lengths: torch's value checks need values
        return
    v = np.asarray(x)
    if (v < 0).any():
        raise RuntimeError("lengths contains negative value!")
    if not unsafe and (v.sum(axis=-1) != data.shape[axis]).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")


@register("_segment_reduce", method=False, aliases=("segment_reduce",), aten="segment_reduce")
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduce (``sum``, ``prod``, ``mean``, ``max``/``amax``, ``min``/``amin``) consecutive segments of ``data``
    along ``axis``; ``initial`` starts every segment (and is an empty segment's value).

    >>> import torchlike as torch
    >>> torch.segment_reduce(torch.tensor([1., 2., 3.]), "max", lengths=torch.tensor([2, 0, 1]), initial=0)
    tensor([2., 0., 3.])
    """
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    ax = int(axis) + (data.ndim if int(axis) < 0 else 0)
    if lengths is None:
        if not isinstance(offsets, Tensor):
            raise TypeError("segment_reduce(): offsets must be a Tensor")
        lengths = offsets.narrow(-1, 1, offsets.shape[-1] - 1) - offsets.narrow(-1, 0, offsets.shape[-1] - 1)
    if lengths.ndim != ax + 1:
        raise RuntimeError("segment_reduce(): Expected lengths.dim() == axis + 1 (the segment axis is the last "
                           f"dim of lengths), but got lengths.dim() = {lengths.ndim} and axis = {ax}")
    if tuple(lengths.shape[:ax]) != tuple(data.shape[:ax]):
        raise RuntimeError("segment_reduce(): Expected data and lengths to have the same shape up to axis, but "
                           f"got {list(data.shape)} and {list(lengths.shape)}")
    _check_lengths(lengths, data, ax, bool(unsafe))
    init = None if initial is None else float(initial)
    return dispatch(_segment_impl, (data, lengths),
                    (("axis", ax), ("reduce", _REDUCE[reduce]), ("initial", init)), name="SegmentReduceBackward0")
