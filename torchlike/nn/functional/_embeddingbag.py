"""embedding_bag: sums / means / maxes of embedding rows per bag, as one segment reduction."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ... import _grad_mode as grad_mode
from ..._creation_ranges import arange
from ._embedding import SPARSE_GRAD, checked_type_name
from ..._ops._util import exact_div
from ... import _views

__all__ = ["embedding_bag"]


@jax.custom_vjp
def _grad_scaled(rows, scale):
    return rows


def _grad_scaled_fwd(rows, scale):
    return rows, scale


def _grad_scaled_bwd(scale, g):
    return g * scale[:, None].astype(g.dtype), None


_grad_scaled.defvjp(_grad_scaled_fwd, _grad_scaled_bwd)


def _freq_scale(idx, num_weights):
    """The factor torch's CPU kernel gives each entry's gradient under ``scale_grad_by_freq``: it walks the sorted
    indices by unique value and divides the k-th value's gradients by the count of ``sorted[k]`` (not of the value
    itself: the k-th smallest index, duplicates included)."""
    srt = jnp.sort(idx)
    counts = jnp.zeros((num_weights,), jnp.int32).at[idx].add(1)
    first = jnp.concatenate([jnp.ones((1,), bool), srt[1:] != srt[:-1]])
    group = jnp.cumsum(first) - 1  # unique-value number of each sorted position
    k = group[jnp.searchsorted(srt, idx)]
    return 1.0 / counts[srt[k]]


def _bag_impl(idx, weight, offsets, psw, mode, num_bags, padding_idx, include_last, freq=False):
    n = idx.shape[0]
    seg = jnp.searchsorted(offsets, jnp.arange(n), side="right") - 1
    keep = jnp.ones((n,), bool) if padding_idx is None else idx != padding_idx
    seg = jnp.where(keep, seg, num_bags)  # padding entries go to a dropped segment
    cnt_seg = jnp.minimum(seg, num_bags)  # torch's mean divides the last bag by the count up to the end
    if include_last:
        seg = jnp.where(jnp.arange(n) >= offsets[-1], num_bags, seg)
    rows = jnp.take(weight, idx, axis=0)
    if freq:
        rows = _grad_scaled(rows, jax.lax.stop_gradient(_freq_scale(idx, weight.shape[0])))
    if mode != "max" and rows.dtype in (jnp.float16, jnp.bfloat16):
        rows = rows.astype(jnp.float32)  # torch weighs and sums half rows in float32, rounding once
    if psw is not None:
        rows = rows * psw[:, None].astype(rows.dtype)
    if mode == "max":
        m = jax.ops.segment_max(rows, seg, num_segments=num_bags)
        cnt = jax.ops.segment_sum(keep.astype(jnp.int32), seg, num_segments=num_bags)
        return jnp.where((cnt > 0)[:, None], m, 0).astype(weight.dtype)
    s = jax.ops.segment_sum(rows, seg, num_segments=num_bags)
    if mode == "mean":
        if s.dtype != weight.dtype:  # half: torch divides the sum rounded to half (XLA would skip the rounding)
            fi = jnp.finfo(weight.dtype)
            s = jax.lax.reduce_precision(s, exponent_bits=fi.nexp, mantissa_bits=fi.nmant)
        cnt = jax.ops.segment_sum(keep.astype(s.dtype), cnt_seg, num_segments=num_bags)
        s = exact_div(s, jnp.maximum(cnt, 1)[:, None])
    return s.astype(weight.dtype)


def _renorm_impl(weight, idx, max_norm, norm_type):
    rows = jnp.take(weight, idx, axis=0)
    norms = jnp.sum(jnp.abs(rows) ** norm_type, axis=-1) ** (1.0 / norm_type)
    scale = jnp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    return weight.at[idx].set((rows * scale[:, None]).astype(weight.dtype))


def _check_index_range(input, n):
    """torch's kernel check of the indices' values (where known: not while traced): the first one outside [0, n)."""
    v = _views.checked_host_values(input) if input.numel() else None
    if v is None:
        return
    v = v.reshape(-1)
    bad = ((v < 0) | (v >= n)).nonzero()[0]
    if bad.size:
        i = int(bad[0])
        raise RuntimeError(f"Index {i} of input takes value {int(v[i])} which is not in the valid range [0, {n})")


def _check_offsets(offsets, n):
    """torch's kernel checks of a 1-D input's offsets (where their values are known: not while traced)."""
    o = _views.checked_host_values(offsets) if offsets.numel() else None
    if o is None:
        return
    if o[0] != 0:
        kind = {"int64": "Long", "int32": "Int"}.get(offsets.dtype.name, "Long")
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(o[0])}\n[ torch.{kind}Tensor{{}} ]")
    if o[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{int(o[-1])}")


@_functional()
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Reduce bags of embedding rows (mode 'sum', 'mean' or 'max') without materialising them.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> w = torchlike.arange(6.).view(3, 2)
    >>> F.embedding_bag(torchlike.tensor([0, 2, 1]), w, torchlike.tensor([0, 1]), mode='sum')
    tensor([[0., 1.],
            [6., 8.]])
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {checked_type_name(input)} instead (while checking arguments for "
                           f"embedding_bag)")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        B, L = input.shape
        offsets = arange(0, B * L, max(L, 1), dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        if offsets.dtype.is_floating_point or offsets.dtype.is_complex:  # (torch's kernel: the indices argument)
            raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                               f"types: Long, Int; but got {checked_type_name(offsets)} instead (while checking "
                               f"arguments for embedding_bag)")
        _check_offsets(offsets, input.shape[0])
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type {weight.type()} does not equal "
                           f"{per_sample_weights.type()} (while checking arguments for embedding_bag)")
    _check_index_range(input, weight.shape[0])
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
    num_bags = offsets.shape[0] - (1 if include_last_offset else 0)
    if max_norm is not None:
        with grad_mode.no_grad():
            new = dispatch(_renorm_impl, (weight, input, float(max_norm), float(norm_type)), (), diff=False)
            weight._set_value(new._value)
    freq = bool(scale_grad_by_freq) and not sparse and input.numel() > 0  # (the sparse path refuses it itself)

    def bag(i, w, o, psw):
        return dispatch(_bag_impl, (i, w, o, psw), (("mode", mode), ("num_bags", int(num_bags)),
                        ("padding_idx", padding_idx), ("include_last", bool(include_last_offset)), ("freq", freq)),
                        name="EmbeddingBagBackward0")
    if sparse:
        return SPARSE_GRAD["embedding_bag"](input, weight, offsets, per_sample_weights, bag, mode, int(num_bags),
                                            padding_idx, bool(include_last_offset), bool(scale_grad_by_freq))
    return bag(input, weight, offsets, per_sample_weights)
