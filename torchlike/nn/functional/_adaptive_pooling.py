"""Adaptive pooling (torch.nn.functional.adaptive_{avg,max}_pool{1,2,3}d): each output cell pools the input
range ``[floor(i * L / o), ceil((i + 1) * L / o))``, torch's rule; the max pools return torch's flat indices
through ``_pooling``'s window gathering.

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.adaptive_avg_pool1d(torch.tensor([[[1., 2., 3., 4.]]]), 2)
tensor([[[1.5000, 3.5000]]])
"""
from __future__ import annotations

import math
import operator

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._errors import tp_name
from ... import _dtype
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ... import _autocast as _amp
from ..._ops._util import exact_div, opmath, round_to
from ._pooling import _argmax_pool

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices"]

_HI = lax.Precision.HIGHEST


def _adaptive_ranges(L, o):
    i = np.arange(o)
    return (i * L) // o, -((-(i + 1) * L) // o)  # floor(i L / o), ceil((i + 1) L / o)


def _check_ints(output_size, seq, name):
    """torch's parser: ``output_size`` is an int or a sequence of ints (None: keep that dim), never a float."""
    for k, o in enumerate(output_size if seq else (output_size,)):
        if o is None and seq:
            continue
        try:
            operator.index(o)
        except TypeError:
            what = f"but found element of type {tp_name(o)} at pos {k}" if seq else f"not {tp_name(o)}"
            raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, {what}") from None


def _adaptive_out(input, output_size, n, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {tp_name(input)}")
    is_max = "max" in name
    seq = isinstance(output_size, (list, tuple))
    _check_ints(output_size, seq, name)
    if seq and n == 1 and len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(output_size)})")
    if seq and n > 1 and input.ndim <= len(output_size):  # torch's Python wrapper checks this first
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got{':' if is_max and n > 1 else ''} "
                           f"{list(input.shape)}")
    S = tuple(input.shape[-n:])
    if seq:
        if len(output_size) == 1 and n > 1:
            output_size = tuple(output_size) * n
        out = tuple(S[j] if o is None else operator.index(o) for j, o in enumerate(output_size))
    else:
        out = (operator.index(output_size),) * n
    if len(out) != n:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {n}" if is_max else
                           f"{name}: output_size must be {n}")
    if any(o < 0 for o in out):
        # torch runs the 1-d pools as 2-d ones over (..., 1, L), which shows in its messages
        full = out if n > 1 else (1,) + out
        if is_max:
            neg = next(o for o in out if o < 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                               f"{list(input.shape[:-n]) + list(full)}")
        sep = [", "] * (len(full) - 1)
        if len(full) == 3:
            sep[-1] = ","
        body = str(full[0]) + "".join(sp + str(o) for sp, o in zip(sep, full[1:]))
        raise RuntimeError(f"adaptive_avg_pool{len(full)}d: elements of output_size must be greater than or equal "
                           f"to 0 but received {{{body}}}")
    return S, out


def _adaptive_avg_impl(x, S, out):
    # the window sum over [start, end) per dim is separable: one small 0/1 matrix per spatial dim; then, as torch's
    # kernels (sum / kh / kw, sum / kT / kH / kW), a true division by each dim's window length in turn (XLA would
    # multiply by reciprocals: exact_div)
    n = len(S)
    if n == 3 and x.dtype in (jnp.float16, jnp.bfloat16):
        return _adaptive_avg3d_half(x, S, out)
    y = x.astype(opmath(x.dtype))  # (half types in float32, rounded once at the end, as torch's kernels)
    cnts = []
    for j, (L, o) in enumerate(zip(S, out)):
        st, en = _adaptive_ranges(L, o)
        A = np.zeros((o, L))
        for i in range(o):
            A[i, st[i]:en[i]] = 1.0
        ax = x.ndim - n + j
        y = jnp.moveaxis(jnp.tensordot(y, jnp.asarray(A, y.dtype), axes=([ax], [1]), precision=_HI), -1, ax)
        cnts.append(en - st)
    for j, c in enumerate(cnts):
        if j:  # (XLA would fold (s / kh) / kw into s / (kh * kw))
            y = lax.optimization_barrier(y)
        y = exact_div(y, jnp.asarray(c, y.dtype).reshape((-1,) + (1,) * (n - 1 - j)))
    return y.astype(x.dtype)


def _adaptive_avg3d_half(x, S, out):
    """torch's 3-D kernel in a half type: the window's elements added in order (d, h, w) into a half-type
    sum, each addition rounded, then divided by kT, kH and kW in turn, each quotient rounded."""
    y = x.astype(jnp.float32)
    if tuple(out) == (1, 1, 1):  # torch takes mean(-3, -2, -1) here: a float32 sum, one division, one rounding
        return exact_div(jnp.sum(y, axis=(-3, -2, -1), keepdims=True), math.prod(S)).astype(x.dtype)
    cnts = []
    for j, (L, o) in enumerate(zip(S, out)):  # gather each dim's windows: (..., o, k) in place of (..., L)
        st, en = _adaptive_ranges(L, o)
        k = int((en - st).max())
        idx = st[:, None] + np.arange(k)[None, :]
        ax = x.ndim - 3 + 2 * j
        y = jnp.take(y, jnp.asarray(np.clip(idx, 0, L - 1)), axis=ax)
        shape = [1] * y.ndim
        shape[ax], shape[ax + 1] = o, k
        y = jnp.where(jnp.asarray(idx < en[:, None]).reshape(shape), y, 0)
        cnts.append(en - st)
    b = x.ndim - 3  # (..., oT, kT, oH, kH, oW, kW) -> (kT*kH*kW, ..., oT, oH, oW)
    y = jnp.moveaxis(y, (b + 1, b + 3, b + 5), (0, 1, 2))
    y = y.reshape((math.prod(y.shape[:3]),) + y.shape[3:])  # (not -1: an empty batch)
    acc = lax.scan(lambda c, v: (round_to(c + v, x.dtype), None), jnp.zeros(y.shape[1:], jnp.float32), y)[0]
    for j, c in enumerate(cnts):
        acc = round_to(exact_div(acc, jnp.asarray(c, acc.dtype).reshape((-1,) + (1,) * (2 - j))), x.dtype)
    return acc.astype(x.dtype)


def _adaptive_avg(input, output_size, n, name):
    if n > 1 and isinstance(input, Tensor) and (input.ndim not in (n + 1, n + 2) or not (
            input.dtype.is_floating_point or input.dtype.is_complex)) and (
            type(output_size) is int and output_size == 1 or isinstance(output_size, (list, tuple))
            and len(output_size) == n and input.ndim > n and all(type(o) is int and o == 1 for o in output_size)):
        # torch's fast path for an all-ones output, taken before its rank and dtype checks: a mean over the
        # last n dims of any tensor (the failure path only: otherwise the kernel below gives the same)
        return input.mean(tuple(range(-n, 0)), keepdim=True)
    S, out = _adaptive_out(input, output_size, n, name)
    shape = list(input.shape) if n > 1 else list(input.shape[:-1]) + [1, input.shape[-1]]  # (1-d: as torch's 2-d)
    _check_not_empty(f"adaptive_avg_pool{max(n, 2)}d", shape, range(len(shape) - max(n, 2), len(shape)))
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # (1-d pools through torch's 2-d kernel)
        raise NotImplementedError(f'"{"adaptive_avg_pool3d_cpu" if n == 3 else "adaptive_avg_pool2d"}" not '
                                  f"implemented for '{_dtype._CAP[input.dtype.name]}'")
    return dispatch(_adaptive_avg_impl, (input,), (("S", S), ("out", out)),
                    name=f"AdaptiveAvgPool{n}DBackward0", saves=False)


@_functional(torch=True)
def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length (torch's floor/ceil window bounds).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.adaptive_avg_pool1d(torchlike.arange(5.).view(1, 1, 5), 2)
    tensor([[[1., 3.]]])
    """
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def adaptive_avg_pool2d(input, output_size):
    """2-D adaptive average pooling; ``None`` in ``output_size`` keeps that dim."""
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


@_functional()
@_amp.fp32
def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling."""
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max_impl(x, S, out):
    idxs, valids = [], []
    for L, o in zip(S, out):
        st, en = _adaptive_ranges(L, o)
        km = int((en - st).max())
        idx = st[:, None] + np.arange(km)[None, :]
        valids.append(idx < en[:, None])
        idxs.append(np.clip(idx, 0, L - 1))
    return _argmax_pool(x, idxs, valids, S)


def _check_not_empty(name, shape, dims):
    """torch's check that the pooled dims (avg: the spatial ones; max: all but dim 0) are not empty."""
    for i in dims:
        if shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(shape)} with dimension {i} being empty")


def _adaptive_max(input, output_size, return_indices, n, name):
    S, out = _adaptive_out(input, output_size, n, name)
    _check_not_empty(name, input.shape, range(1, input.ndim))
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # (torch's CPU kernels: floating only; 1-d
        kernel = "adaptive_max_pool3d_cpu" if n == 3 else "adaptive_max_pool2d"  # runs as 2-d)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    if math.prod(out) == 0:  # empty output: no windows to reduce (kept differentiable via a slice)
        shape = tuple(input.shape[:-n]) + out
        v = input.reshape(-1)[:0].reshape(shape)
        i = Tensor._wrap(jnp.zeros(shape, jnp.int64), input.device)
        return (v, i) if return_indices else v
    v, i = dispatch(_adaptive_max_impl, (input,), (("S", S), ("out", out)),
                    name=f"AdaptiveMaxPool{n}DBackward0")
    return (v, i) if return_indices else v


@_functional()
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed output length.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.adaptive_max_pool1d(torchlike.arange(5.).view(1, 1, 5), 2)
    tensor([[[2., 4.]]])
    """
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling."""
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


@_functional()
@_amp.fp32
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling."""
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


@_functional()
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, True)


@_functional()
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


@_functional()
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool3d(input, output_size, True)
