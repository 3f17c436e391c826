"""Resampling kernels: the separable (out, in) weight matrices ``interpolate`` applies (linear, cubic, nearest,
and the anti-aliased bilinear/bicubic ones), and torch's ``aten._upsample_bilinear2d_aa``.

Interpolation follows torch's source-index conventions exactly.  Linear and cubic resampling are separable
linear maps, so each spatial dim is one small (out, in) matrix built with numpy at trace time (in the input's
precision, as torch computes its weights) and applied with ``tensordot``.

Anti-aliased weights (``interpolate(..., antialias=True)``): each output index averages the input over a window
widened by the downscaling factor, with the triangle (bilinear) or Keys cubic a=-0.5 (bicubic) filter stretched to
that window and normalized to sum 1 — the same separable scheme as torch's (and PIL's) anti-aliased resize.
Upscaling is ordinary interpolation with the same filters.

It lives with the ops (layer 3) because ``torch.ops.aten._upsample_bilinear2d_aa`` is an op;
``torchlike.nn.functional.interpolate`` is built on it.

>>> import numpy as np
>>> from torchlike._ops.resample import aa_matrix
>>> aa_matrix(4, 2, "linear", False, None, np.float32).round(3).tolist()
[[0.429, 0.429, 0.143, 0.0], [0.0, 0.143, 0.429, 0.429]]
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._dispatch import dispatch

__all__ = ["aa_matrix", "u8_matrix", "upsample_aa", "half_weights_kernel"]

_HI = lax.Precision.HIGHEST


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _cubic_a05(x):
    a = -0.5
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def aa_matrix(L, o, mode, align_corners, scale, ft):
    """(o, L) anti-aliased weights for one dim; ``mode`` "linear" or "cubic"; ``scale`` the user's factor.
    Rounded where torch's kernel (``_compute_indices_min_size_weights_aa``) rounds: its center, support and
    1/scale are double expressions stored in the float type, the filter's argument is float."""
    sc = _src_scale(L, o, align_corners, scale, ft)
    size, fn = (2, _triangle) if mode == "linear" else (4, _cubic_a05)
    support = ft(size * 0.5 * float(sc) if sc >= 1.0 else size * 0.5)
    invscale = ft(1.0 / float(sc) if sc >= 1.0 else 1.0)
    W = np.zeros((o, L), np.float64)
    for i in range(o):
        center = ft(float(sc) * (i + 0.5))
        lo = max(int(float(center - support) + 0.5), 0)
        hi = min(int(float(center + support) + 0.5), L)
        j = np.arange(lo, hi)
        arg = ((j.astype(ft) - center).astype(np.float64) + 0.5) * float(invscale)
        w = fn(arg.astype(ft)).astype(ft)
        total = ft(0)
        for v in w:  # (a running float sum, as torch's loop)
            total = ft(total + v)
        W[i, lo:hi] = (w / total).astype(ft) if total != 0 else w
    return W


def _src_scale(L, o, align_corners, scale, ft):
    """torch's ``area_pixel_compute_scale`` in float type ``ft``: a user's factor inverted in double, sizes
    divided in the float type."""
    if align_corners:
        return ft((L - 1) / (o - 1) if o > 1 else 0.0)
    return ft(1.0 / scale) if scale is not None and scale > 0 else ft(L) / ft(o)


def _source_index(sc, dst, ft):
    """torch's ``area_pixel_compute_source_index`` without align_corners, ``scale * (dst + 0.5) - 0.5``: its x86
    build contracts it into one fused multiply-add (one rounding, which the float64 sum of the exact float32
    product gives too), so row 200 of a 345 -> 270 resize reads 255.694443, not float32's 255.694458."""
    if ft is np.float64:
        return sc * (dst + 0.5) - 0.5
    return (sc.astype(np.float64) * (dst + ft(0.5)).astype(np.float64) - 0.5).astype(ft)


def _interp_matrix(L, o, mode, align_corners, scale, ft, wt=None):
    """(o, L) resampling weights for one dim, computed in float type ``ft`` like torch's kernels; ``wt`` a half
    type the weights are stored in (aten's float16/bfloat16 kernels keep their lambdas and cubic coefficients
    in the input's type, ``lambda0 = 1 - lambda1`` rounded from the rounded ``lambda1``)."""
    sc = _src_scale(L, o, align_corners, scale, ft)
    dst = np.arange(o).astype(ft)
    W = np.zeros((o, L), np.float64)
    rows = np.arange(o)
    if mode == "linear":
        src = sc * dst if align_corners else np.maximum(_source_index(sc, dst, ft), ft(0))
        i0 = src.astype(np.int64)
        i1 = i0 + (i0 < L - 1)
        l1 = (src - i0.astype(ft)).astype(ft)
        l0 = ft(1) - l1
        if wt is not None:
            l1 = l1.astype(wt).astype(ft)
            l0 = (ft(1) - l1).astype(wt).astype(ft)
        np.add.at(W, (rows, i0), l0)
        np.add.at(W, (rows, i1), l1)
    else:  # cubic, A = -0.75; taps at floor(src) - 1 .. + 2, clamped to the border
        A = -0.75
        src = sc * dst if align_corners else _source_index(sc, dst, ft)
        i0 = np.floor(src).astype(np.int64)
        t = (src - np.floor(src)).astype(np.float64)

        def c1(x):
            return ((A + 2) * x - (A + 3)) * x * x + 1

        def c2(x):
            return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
        if wt is not None:  # the coefficients in float (aten's opmath), stored in the half type
            t = t.astype(ft)
        for j, c in enumerate((c2(t + 1), c1(t), c1(1 - t), c2(2 - t))):
            np.add.at(W, (rows, np.clip(i0 - 1 + j, 0, L - 1)), c if wt is None else c.astype(wt).astype(ft))
    return W


def _nearest_index(L, o, exact, scale, ft):
    sc = ft(1.0 / scale if scale is not None and scale > 0 else L / o)
    dst = np.arange(o).astype(ft)
    src = np.floor((dst + ft(0.5)) * sc if exact else dst * sc).astype(np.int64)
    return np.minimum(src, L - 1)


def _u8_filter(kind, antialias):
    """The filters of torch's uint8 path: triangle, or Keys cubic with a = -0.5 (antialiased) / -0.75."""
    if kind == "linear":
        return lambda v: max(0.0, 1.0 - abs(v))
    a = -0.5 if antialias else -0.75

    def cubic(v):
        v = abs(v)
        if v < 1:
            return ((a + 2) * v - (a + 3)) * v * v + 1
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a if v < 2 else 0.0
    return cubic


def u8_matrix(L, o, kind, align_corners, scale, antialias):
    """(o, L) int32 weights and their precision (bits) of torch's uint8 resampling of one dim (its
    ``_compute_index_ranges_int16_weights``): double weights, quantized to int16 at the largest precision that
    keeps the largest weight under 2^15.  Without antialias, taps that fall outside the input are folded onto
    the border tap, as torch's ``_compute_indices_min_size_weights`` does."""
    if antialias:
        W = aa_matrix(L, o, kind, align_corners, scale, np.float64)
        wt_max = W.max(initial=0.0)
    else:
        filt, taps = _u8_filter(kind, False), (2 if kind == "linear" else 4)
        sc = float(_src_scale(L, o, align_corners, scale, np.float64))
        W, wt_max, support = np.zeros((o, L), np.float64), 0.0, taps // 2
        for i in range(o):
            src = sc * i if align_corners else sc * (i + 0.5) - 0.5
            src = 0.0 if kind == "linear" and src < 0 else src
            idx = min(int(np.floor(src)), L - 1)
            lam = min(max(src - idx, 0.0), 1.0)
            lo = idx - support + 1
            first = max(lo, 0)
            size = min(max(min(idx + support + 1, L) - first, 0), taps)
            w, k = np.zeros(taps), 0
            for j in range(taps):
                k = 0 if lo + j <= 0 else (size - 1 if lo + j >= L - 1 else k)
                w[k] += filt(j + 1 - support - lam)
                wt_max = max(wt_max, w[k])
                k += 1
            W[i, first:first + size] = w[:size]
    prec = 0
    while prec < 22 and int(0.5 + wt_max * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    v = W * (1 << prec)
    return np.trunc(np.where(v < 0, v - 0.5, v + 0.5)).astype(np.int32), prec


def _u8_resample(x, out, mode, align_corners, scales):
    """torch's uint8 bilinear/bicubic kernel (``upsample_avx_bilinear_bicubic_uint8``): separable integer passes,
    width first, each rounding (``+ 2^(prec-1) >> prec``) and clamping to uint8 before the next; a dim whose size
    does not change is not resampled."""
    kind = "cubic" if mode.startswith("bicubic") else "linear"
    y = x
    for ax in (x.ndim - 1, x.ndim - 2):
        j = ax - (x.ndim - 2)
        if x.shape[ax] == out[j]:
            continue
        W, prec = u8_matrix(x.shape[ax], out[j], kind, align_corners, scales[j], mode.endswith("_aa"))
        acc = jnp.moveaxis(jnp.tensordot(y.astype(jnp.int32), jnp.asarray(W.T), axes=([ax], [0])), -1, ax)
        y = jnp.clip(jnp.right_shift(acc + (1 << (prec - 1)), prec), 0, 255).astype(jnp.uint8)
    return y


def _interp_impl(x, out, mode, align_corners, scales, half_weights=False):
    """``half_weights``: a float16/bfloat16 input takes aten's generic kernel, whose weights are stored in its
    type (``half_weights_kernel``); otherwise (bilinear's channels-last kernel) they stay float."""
    n = len(out)
    S = x.shape[-n:]
    ft = np.float64 if x.dtype == jnp.float64 else np.float32
    y = x
    if x.dtype == jnp.uint8 and mode.startswith(("bilinear", "bicubic")):
        return _u8_resample(x, out, mode, align_corners, scales)
    if mode in ("nearest", "nearest-exact"):
        for j in range(n):
            idx = _nearest_index(S[j], out[j], mode == "nearest-exact", scales[j], ft)
            y = jnp.take(y, jnp.asarray(idx), axis=x.ndim - n + j)
        return y
    acc = jnp.promote_types(x.dtype, jnp.float32)
    y = y.astype(acc)
    # aten's generic kernel nests the dims, the last innermost: with half weights, the last dim is contracted first
    for j in (reversed(range(n)) if half_weights else range(n)):
        kind = "cubic" if mode.startswith("bicubic") else "linear"
        if mode.endswith("_aa"):
            W = aa_matrix(S[j], out[j], kind, align_corners, scales[j], ft)
        else:
            W = _interp_matrix(S[j], out[j], kind, align_corners, scales[j], ft,
                               x.dtype.type if half_weights else None)
        ax = x.ndim - n + j
        y = jnp.moveaxis(jnp.tensordot(y, jnp.asarray(W, acc), axes=([ax], [1]), precision=_HI), -1, ax)
    return y.astype(x.dtype)


_NDIM = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def half_weights_kernel(mode, shape, out, channels_last, threads):
    """Whether aten's CPU upsampling of a float16/bfloat16 input of ``shape`` runs its generic kernel (weights in
    the input's type) rather than the channels-last one (float weights): linear and bicubic always; bilinear
    unless the input is channels-last with C > 3, the output's H + W <= 128, or one thread resizes C == 3;
    trilinear unless the input is channels-last-3d with C > 3."""
    c = shape[1]
    if mode in ("linear", "bicubic"):
        return True
    if mode == "bilinear":
        return not ((channels_last and c > 3) or sum(out) <= 128 or (threads == 1 and c == 3))
    if mode == "trilinear":
        return not (channels_last and c > 3)
    return False


def upsample_aa(input, out, align_corners, scales):
    """torch's ``aten._upsample_bilinear2d_aa``: anti-aliased bilinear resize of (N, C, H, W) to ``out`` (H', W'),
    each scale (None: from the sizes) used for the coordinate mapping as torch's kernel does."""
    if input.ndim != 4:
        raise RuntimeError(f"Expected 4D tensor for input, but got {input.ndim}D")
    if len(out) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(out)}")
    if min(out) <= 0 or min(input.shape[2:]) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {input.shape[2]}, "
                           f"W: {input.shape[3]}) output (H: {out[0]}, W: {out[1]})")
    scales = tuple(None if s is None else float(s) for s in scales)
    return dispatch(_interp_impl, (input,), (("out", tuple(out)), ("mode", "bilinear_aa"),
                                             ("align_corners", bool(align_corners)), ("scales", scales)),
                    name="UpsampleBilinear2DAaBackward0", saves=False)
