"""Pooling: max/avg/lp/fractional pools and max_unpool, torch's NC* layout and index rules (the adaptive
pools are in ``_adaptive_pooling``, which shares this file's window gathering).

Plain max and average pools use ``lax.reduce_window``.  Pools that return indices gather each
window's elements (static index tables built with numpy at trace time), take the argmax and read the
value back through that argmax, so the gradient goes to the one element torch picks.
"""
from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._errors import tp_name
from ... import _dtype
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ._conv import ntuple
from ... import _autocast as _amp
from ..._random import draw
from ..._ops._util import exact_div, opmath

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_unpool1d", "max_unpool2d",
           "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]


def _neg_inf(dt):
    return -jnp.inf if jnp.issubdtype(dt, jnp.floating) else jnp.iinfo(dt).min


def _out_size(L, k, s, p, d, ceil):
    num = L + 2 * p - d * (k - 1) - 1
    o = (num + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= L + p:
        o -= 1
    return o


def _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, n, name, kind="max", native1d=False):
    """Validate a pooling call the way torch does and return (k, s, p, d, S, out).

    torch runs 1-d avg pooling and 1-d max pooling with indices as 2-d pools over (..., 1, L), so their
    error messages show a leading unit kernel/stride dim and the unsqueezed shape; plain max_pool1d has
    its own checks (``native1d``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {tp_name(input)}")
    shape = list(input.shape)
    if native1d and (input.ndim not in (2, 3) or any(v == 0 for v in shape[-2:])):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape}")
    if input.ndim not in (n + 1, n + 2):
        if n == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {name})")
        if kind == "avg" and n == 2:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim}, "
                             f"{input.ndim - 1}], but got -3)")
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")
    k = ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else \
        ntuple(stride, n, "stride")
    p, d = ntuple(padding, n, "padding"), ntuple(dilation, n, "dilation")
    S = tuple(input.shape[-n:])
    if native1d:
        for what, v, ok in (("kernel_size", k[0], k[0] > 0), ("stride", s[0], s[0] > 0)):
            if not ok:
                raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {v}")
        if p[0] < 0:
            raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
        if d[0] <= 0:
            raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[0]}")
        if p[0] > k[0] // 2:
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding="
                               f"{p[0]} and kernel_size={k[0]}")
        out = (_out_size(S[0], k[0], s[0], p[0], d[0], ceil_mode),)
        if out[0] <= 0:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {out[0]}")
        return k, s, p, d, S, out
    m = max(n, 2)
    lead = (1,) * (m - n)
    names = ("T", "H", "W")[3 - m:]
    k2, d2 = lead + k, lead + d
    shp = shape[:-n] + list(lead) + shape[-n:]  # the shape torch's 2-d path reports for a 1-d pool
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got " +
                           " ".join(f"k{c}: {v}" for c, v in zip(names, k2)))
    if any(v <= 0 for v in d):
        raise RuntimeError("dilation should be greater than zero, but got " +
                           " ".join(f"dilation{c}: {v}" for c, v in zip(names, d2)))
    for pp in p:
        if pp < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
    for kk, pp, dd in zip(k, p, d):
        if pp > (dd * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pp}, "
                               f"kernel_size={kk} and dilation={dd}")
    nonbatch = shp[1:] if len(shp) == m + 2 else shp
    if any(v == 0 for v in nonbatch):
        if m == 3:
            fn = "max_pool3d_with_indices_out_cpu_template" if kind == "max" else "avg_pool3d"
            raise RuntimeError(f"{fn}(): Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {shp} and non-batch dimension {nonbatch.index(0)} has length zero!")
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{shp}")
    if kind == "avg" and m == 3 and any(L + 2 * pp < kk for L, kk, pp in zip(S, k, p)):
        raise RuntimeError(f"input image (T: {S[0]} H: {S[1]} W: {S[2]}) smaller than kernel size (kT: {k[0]} "
                           f"kH: {k[1]} kW: {k[2]})")
    out = tuple(_out_size(L, kk, ss, pp, dd, ceil_mode) for L, kk, ss, pp, dd in zip(S, k, s, p, d))
    if any(o <= 0 for o in out):
        c = shp[-m - 1]
        sz = shp[-m:]
        o2 = list(lead) + list(out)
        raise RuntimeError(f"Given input size: ({c}x{'x'.join(map(str, sz))}). Calculated output size: "
                           f"({c}x{'x'.join(map(str, o2))}). Output size is too small")
    return k, s, p, d, S, out


def _windows(S, out, k, s, p, d):
    """Per spatial dim: clipped input indices (o, k) of each window element and their validity."""
    idxs, valids = [], []
    for L, o, kk, ss, pp, dd in zip(S, out, k, s, p, d):
        idx = (np.arange(o) * ss - pp)[:, None] + np.arange(kk)[None, :] * dd
        valids.append((idx >= 0) & (idx < L))
        idxs.append(np.clip(idx, 0, L - 1))
    return idxs, valids


def _gather_patches(x, idxs):
    """x: (B, *S) -> (B, *out, K) window elements; idxs: per-dim (o, k) index tables."""
    n = len(idxs)
    for j, idx in enumerate(idxs):
        ax = 1 + 2 * j
        x = jnp.take(x, jnp.asarray(idx.reshape(-1)), axis=ax)
        x = x.reshape(x.shape[:ax] + idx.shape + x.shape[ax + 1:])
    perm = [0] + [1 + 2 * j for j in range(n)] + [2 + 2 * j for j in range(n)]
    x = x.transpose(perm)
    return x.reshape(x.shape[:1 + n] + (math.prod(i.shape[1] for i in idxs),))  # no -1: B may be 0


def _table_flat(idxs, valids, S):
    """(*out, K) flat input index and validity of each window element (numpy)."""
    n = len(idxs)
    strides = [int(np.prod(S[j + 1:])) for j in range(n)]
    flat = np.zeros((), np.int64)
    ok = np.ones((), bool)
    for j, (idx, v) in enumerate(zip(idxs, valids)):
        shp = [1] * (2 * n)
        shp[j], shp[n + j] = idx.shape
        flat = flat + idx.reshape(shp) * strides[j]
        ok = ok & v.reshape(shp)
    outs = tuple(i.shape[0] for i in idxs)
    full = outs + tuple(i.shape[1] for i in idxs)
    flat = np.broadcast_to(flat, full).reshape(outs + (-1,))
    ok = np.broadcast_to(ok, full).reshape(outs + (-1,))
    return flat, ok


def _argmax_pool(x, idxs, valids, S):
    lead = x.shape[:-len(S)]
    xb = x.reshape((-1,) + tuple(S))
    pt = _gather_patches(xb, idxs)
    flat, ok = _table_flat(idxs, valids, S)
    pt = jnp.where(jnp.asarray(ok), pt, _neg_inf(x.dtype))
    am = _pick(pt)
    val = jnp.take_along_axis(pt, am[..., None], axis=-1)[..., 0]
    ind = jnp.take_along_axis(jnp.broadcast_to(jnp.asarray(flat), pt.shape), am[..., None], axis=-1)[..., 0]
    outs = pt.shape[1:-1]
    return val.reshape(lead + outs), ind.reshape(lead + outs).astype(jnp.int64)


def _pick(windows):
    """The element torch's max-pool loop keeps along the last axis, ``if (val > maxval || isnan(val))``: the
    first maximum, or the last NaN (the gradient goes to that one element)."""
    if not jnp.issubdtype(windows.dtype, jnp.floating):
        return jnp.argmax(windows, axis=-1)
    nan = jnp.isnan(windows)
    last_nan = windows.shape[-1] - 1 - jnp.argmax(nan[..., ::-1], axis=-1)
    return jnp.where(nan.any(-1), last_nan, jnp.argmax(windows, axis=-1))


def _first_max(windows):
    return jnp.take_along_axis(windows, _pick(windows)[..., None], axis=-1)[..., 0]


def _max_pool_tiles(x, k, p, S, out):
    """A max pool whose windows tile the input (stride == kernel, no dilation): the input padded (or cropped) to
    ``out * k`` and reshaped to (..., *out, prod(k)).  XLA's CPU ``reduce_window`` and its select-and-scatter
    gradient ran 2-7x slower than this (MaxPool2d(2) of 64x32x32x32: 58 vs 13 ms forward + backward)."""
    n = len(k)
    lead = x.ndim - n
    cfg = [(0, 0, 0)] * lead + [(pp, o * kk - L - pp, 0) for L, o, kk, pp in zip(S, out, k, p)]
    xp = lax.pad(x, np.array(_neg_inf(x.dtype), x.dtype), cfg)
    y = xp.reshape(x.shape[:lead] + tuple(v for o, kk in zip(out, k) for v in (o, kk)))
    perm = tuple(range(lead)) + tuple(lead + 2 * i for i in range(n)) + tuple(lead + 2 * i + 1 for i in range(n))
    return _first_max(y.transpose(perm).reshape(x.shape[:lead] + tuple(out) + (math.prod(k),)))


def _max_pool_impl(x, k, s, p, d, S, out, indices):
    n = len(k)
    if indices or any(dd != 1 for dd in d):  # XLA has no max-pool VJP with window dilation
        idxs, valids = _windows(S, out, k, s, p, d)
        v, i = _argmax_pool(x, idxs, valids, S)
        return (v, i) if indices else v
    if k == s:
        return _max_pool_tiles(x, k, p, S, out)
    lead = x.ndim - n
    pads = [(0, 0)] * lead
    for L, o, kk, ss, pp, dd in zip(S, out, k, s, p, d):
        need = (o - 1) * ss + dd * (kk - 1) + 1
        pads.append((pp, max(0, need - L - pp)))
    y = lax.reduce_window(x, np.array(_neg_inf(x.dtype), x.dtype), lax.max, (1,) * lead + k, (1,) * lead + s,
                          pads, window_dilation=(1,) * lead + d)
    return y[(Ellipsis,) + tuple(slice(0, o) for o in out)]


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, name):
    k, s, p, d, S, out = _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, n, name,
                                    native1d=n == 1 and not return_indices)
    dt = input.dtype
    if dt is _dtype.bool or dt.is_complex or (n == 1 and not return_indices and not dt.is_floating_point):
        kernel = "max_pool1d_impl" if n == 1 and not return_indices else f"max_pool{max(n, 2)}d"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[dt.name]}\'')
    r = dispatch(_max_pool_impl, (input,), (("k", k), ("s", s), ("p", p), ("d", d), ("S", S), ("out", out),
                                            ("indices", bool(return_indices))),
                 name=f"MaxPool{n}DWithIndicesBackward0")
    return r


@_functional()
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling over (N, C, L).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.max_pool1d(torchlike.arange(6.).view(1, 1, 6), 2)
    tensor([[[1., 3., 5.]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling over (N, C, H, W); ``return_indices`` gives flat ``h * W + w`` indices.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.max_pool2d(torchlike.arange(16.).view(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


@_functional()
@_amp.fp32
@_mfmt.channels_last_follows((0, "input"))
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling over (N, C, D, H, W).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.max_pool3d(torchlike.ones(1, 1, 4, 4, 4), 2).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3, "max_pool3d")


@_functional()
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@_functional()
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# --- average pooling ----------------------------------------------------------------------------
def _avg_divisor(S, out, k, s, p, count_include_pad):
    div = np.ones((), np.float64)
    for j, (L, o, kk, ss, pp) in enumerate(zip(S, out, k, s, p)):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, L + pp)
        pool = end - start
        cnt = np.minimum(end, L) - np.maximum(start, 0)
        v = pool if count_include_pad else cnt
        shp = [1] * len(S)
        shp[j] = o
        div = div * v.reshape(shp)
    return div


def _avg_pool_impl(x, divisor_override, k, s, p, S, out, count_include_pad):
    n = len(k)
    lead = x.ndim - n
    pads = [(0, 0)] * lead
    for L, o, kk, ss, pp in zip(S, out, k, s, p):
        pads.append((pp, max(0, (o - 1) * ss + kk - L - pp)))
    # (half types sum and divide in float32 and round once, as torch's CPU kernels: their opmath type)
    acc = opmath(x.dtype) if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.int64
    tot = lax.reduce_window(x.astype(acc), np.array(0, acc), lax.add, (1,) * lead + k, (1,) * lead + s, pads)
    tot = tot[(Ellipsis,) + tuple(slice(0, o) for o in out)]
    if divisor_override is not None:
        div = divisor_override
    else:
        div = jnp.asarray(_avg_divisor(S, out, k, s, p, count_include_pad))
    if jnp.issubdtype(x.dtype, jnp.inexact):
        return exact_div(tot, jnp.asarray(div, acc)).astype(x.dtype)  # torch divides (no reciprocal)
    # torch divides integer sums in C: truncation toward zero, not floor
    return lax.div(tot, jnp.broadcast_to(jnp.asarray(div, jnp.int64), tot.shape)).astype(x.dtype)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n, name):
    k, s, p, _, S, out = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode, n, name, kind="avg")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return dispatch(_avg_pool_impl, (input, divisor_override),
                    (("k", k), ("s", s), ("p", p), ("S", S), ("out", out),
                     ("count_include_pad", bool(count_include_pad))), name=f"AvgPool{n}DBackward0", saves=False)


@_functional(torch=True)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.avg_pool1d(torchlike.arange(4.).view(1, 1, 4), 2)
    tensor([[[0.5000, 2.5000]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


@_functional(out=True)
@_mfmt.channels_last_follows((0, "input"))
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling (``count_include_pad``, ``divisor_override`` as in torch).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.avg_pool2d(torchlike.ones(1, 1, 4, 4), 2, padding=1, count_include_pad=False).shape
    torch.Size([1, 1, 3, 3])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


@_functional(out=True)
@_amp.fp32
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.avg_pool3d(torchlike.ones(1, 1, 4, 4, 4), 2).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3,
                     "avg_pool3d")


# --- lp pooling ---------------------------------------------------------------------------------
def _lp_impl(x, norm_type, k, s, S, out, ceil_mode):
    # torch: avg_pool(x^p) * prod(k), then sign(out) * relu(|out|) ^ (1/p)
    y = _avg_pool_impl(x ** norm_type, None, k, s, (0,) * len(k), S, out, True)
    a = jnp.abs(y)  # torch's relu backward passes NaN gradients through (jax.nn.relu's masks them to 0)
    y = jnp.sign(y) * jnp.where(a <= 0, jnp.zeros_like(a), a) * math.prod(k)
    return (y ** (1.0 / norm_type)).astype(x.dtype)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, name):
    k, s, _, _, S, out = _pool_args(input, kernel_size, stride, 0, 1, ceil_mode, n, name, kind="avg")
    return dispatch(_lp_impl, (input, float(norm_type)),
                    (("k", k), ("s", s), ("S", S), ("out", out), ("ceil_mode", bool(ceil_mode))),
                    name="PowBackward0")


@_functional()
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum x^p)^(1/p)`` over windows.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.lp_pool1d(torchlike.ones(1, 1, 4), 2, 2)
    tensor([[[1.4142, 1.4142]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, "lp_pool1d")


@_functional()
@_mfmt.channels_last_follows((0, "input"))
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-D power-average pooling."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, "lp_pool2d")


@_functional()
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, "lp_pool3d")


# --- fractional max pooling ---------------------------------------------------------------------
def _frac_impl(x, samples, k, S, out):
    # torch's generate_intervals: start_i = int((i + u) * alpha) - int(u * alpha), last = L - k
    n = len(k)
    lead = x.shape[:-n]
    xb = x.reshape((-1, math.prod(S)))
    u = samples.reshape((-1, n))[: xb.shape[0]].astype(x.dtype)  # torch reads samples[b, c]: extra rows unused
    strides = [math.prod(S[j + 1:]) for j in range(n)]
    flat = jnp.zeros((xb.shape[0],) + (1,) * (2 * n), jnp.int64)
    for j in range(n):
        L, o, kk = S[j], out[j], k[j]
        uj = u[:, 1 - j if n == 2 else j][:, None]  # 2d: samples[..., 0] is width; 3d: (T, H, W) order
        i = jnp.arange(o, dtype=x.dtype)[None, :]
        if o > 1:
            alpha = jnp.asarray((L - kk) / (o - 1), x.dtype)
            st = (jnp.floor((i + uj) * alpha) - jnp.floor(uj * alpha)).astype(jnp.int64)
            st = st.at[:, o - 1].set(L - kk)
        else:
            st = jnp.full((xb.shape[0], o), L - kk, jnp.int64)
        idx = st[:, :, None] + jnp.arange(kk)[None, None, :]
        shp = [xb.shape[0]] + [1] * (2 * n)
        shp[1 + j], shp[1 + n + j] = o, kk
        flat = flat + idx.reshape(shp) * strides[j]
    flat = jnp.broadcast_to(flat, (xb.shape[0],) + tuple(out) + tuple(k)).reshape(xb.shape[0], -1)
    pt = jnp.take_along_axis(xb, flat, axis=1).reshape((xb.shape[0], math.prod(out), math.prod(k)))
    fl = flat.reshape(pt.shape)
    am = jnp.argmax(jnp.where(jnp.isnan(pt), jnp.inf, pt), axis=-1)[..., None]
    val = jnp.take_along_axis(pt, am, axis=-1)[..., 0]
    ind = jnp.take_along_axis(fl, am, axis=-1)[..., 0]
    return val.reshape(lead + tuple(out)), ind.reshape(lead + tuple(out))


def _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, n, name):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    k = ntuple(kernel_size, n, "kernel_size")
    S = tuple(input.shape[-n:])
    if output_size is None:
        ratio = ntuple_f(output_ratio, n)
        out = tuple(int(L * r) for L, r in zip(S, ratio))
    else:
        out = ntuple(output_size, n, "output_size")
    for L, o, kk in zip(S, out, k):
        if o + kk - 1 > L:
            raise RuntimeError(f"{name}(): pool size {kk} too large relative to input size {L} and output "
                               f"size {o}")
    batch = input.shape[0] if input.ndim == n + 2 else 1
    C = input.shape[-n - 1]
    if _random_samples is None:
        samples = draw("uniform", (batch, C, n), input.dtype.np, None, (0.0, 1.0))
    else:
        samples = _random_samples
    v, i = dispatch(_frac_impl, (input, samples), (("k", k), ("S", S), ("out", out)),
                    name=f"FractionalMaxPool{n}DBackward0")
    return (v, i) if return_indices else v


def ntuple_f(v, n):
    return tuple(float(a) for a in v) * (n if len(v) == 1 else 1) if isinstance(v, (list, tuple)) else \
        (float(v),) * n


@_functional()
@_amp.fp32
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling (Graham, 2014) with torch's pseudo-random window starts.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.fractional_max_pool2d(torchlike.ones(1, 1, 8, 8), 2, output_size=5).shape
    torch.Size([1, 1, 5, 5])
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2,
                       "fractional_max_pool2d")


@_functional()
@_amp.fp32
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-D fractional max pooling."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3,
                       "fractional_max_pool3d")


@_functional()
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


@_functional()
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


# --- max_unpool ---------------------------------------------------------------------------------
@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _unpool_scatter(xb, ib, size):
    rows = jnp.arange(xb.shape[0])[:, None]
    return jnp.zeros((xb.shape[0], size), xb.dtype).at[rows, ib].set(xb, mode="drop")


def _unpool_scatter_fwd(xb, ib, size):
    return _unpool_scatter(xb, ib, size), ib


def _unpool_scatter_bwd(size, ib, g):
    # torch's backward gathers grad_output at every index, so inputs that share an index (the losers of
    # the forward write too) all receive that position's gradient; JAX's scatter-set VJP would zero them
    return jnp.take_along_axis(g, ib, axis=1, mode="fill", fill_value=0), None


_unpool_scatter.defvjp(_unpool_scatter_fwd, _unpool_scatter_bwd)


def _unpool_impl(x, ind, out):
    n = len(out)
    lead = x.shape[:-n]
    xb = x.reshape((math.prod(x.shape[:-n]), math.prod(x.shape[-n:])))
    ib = ind.reshape(xb.shape).astype(jnp.int64)
    return _unpool_scatter(xb, ib, math.prod(out)).reshape(lead + tuple(out))


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n, name):
    k = ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None else ntuple(stride, n, "stride")
    p = ntuple(padding, n, "padding")
    # torch runs the 1-d case as 2-d with a trailing unit dim, and its messages show that
    nd, extra = max(n, 2), [1] * (2 - n) if n < 2 else []
    if input.ndim + len(extra) not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a "
                           f"tensor with {input.ndim + len(extra)} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape) + extra}) but got indices tensor with shape: "
                           f"{list(indices.shape) + extra}")
    if indices.dtype is not _dtype.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dtype._CAP.get(indices.dtype.name, indices.dtype.name)}")
    S = tuple(input.shape[-n:])
    default = tuple((L - 1) * ss - 2 * pp + kk for L, ss, pp, kk in zip(S, s, p, k))
    if output_size is None:
        out = default
    else:
        given = output_size[-n:] if len(output_size) in (n + 1, n + 2) else output_size  # (shown as given)
        out = tuple(int(o) for o in given)
        if len(out) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(out)}'")
        for d, (o, dflt, ss) in enumerate(zip(out, default, s)):
            if not dflt - ss < o < dflt + ss:
                raise ValueError(f"invalid output_size \"{given}\" (dim {d} must be between {dflt - ss} and "
                                 f"{dflt + ss})")
    return dispatch(_unpool_impl, (input, indices), (("out", out),), name=f"MaxUnpool{n}DBackward0", saves=False)


@_functional()
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool1d: scatter values back to their argmax positions.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> v, i = F.max_pool1d(torchlike.tensor([[[1., 3., 2., 0.]]]), 2, return_indices=True)
    >>> F.max_unpool1d(v, i, 2)
    tensor([[[0., 3., 2., 0.]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


@_functional()
@_amp.fp32
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool2d."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


@_functional()
@_amp.fp32
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool3d."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")
