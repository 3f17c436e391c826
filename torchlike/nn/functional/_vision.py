"""Vision functionals: pad, interpolate, grid_sample, affine_grid, pixel_(un)shuffle, unfold/fold,
channel_shuffle.

Interpolation follows torch's source-index conventions exactly.  Linear and cubic resampling are
separable linear maps, so each spatial dim is one small (out, in) matrix built with numpy at trace
time (in the input's precision, as torch computes its weights) and applied with ``tensordot``.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._dispatch import dispatch
from ._conv import ntuple
from ._interp_aa import aa_matrix
from ._pooling import _gather_patches, _table_flat, adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from ... import _autocast as _amp
from ..._errors import check_alloc

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample",
           "affine_grid", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "channel_shuffle",
           "native_channel_shuffle"]

_HI = lax.Precision.HIGHEST


# --- pad ----------------------------------------------------------------------------------------
def _pad_impl(x, value, pads, mode):
    if mode == "constant":
        cfg = [(0, 0, 0)] * (x.ndim - len(pads)) + [(a, b, 0) for a, b in pads]
        return lax.pad(x, jnp.asarray(value, x.dtype), cfg)
    jmode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    lead = x.ndim - len(pads)
    if mode == "circular" and any(a < 0 or b < 0 for a, b in pads):
        # torch crops first and then wraps around the cropped tensor
        x = x[(slice(None),) * lead + tuple(slice(-min(a, 0), x.shape[lead + i] + min(b, 0))
                                            for i, (a, b) in enumerate(pads))]
        pads = tuple((max(a, 0), max(b, 0)) for a, b in pads)
    full = [(0, 0)] * (x.ndim - len(pads)) + [(max(a, 0), max(b, 0)) for a, b in pads]
    y = jnp.pad(x, full, mode=jmode)
    # negative pads crop (torch allows them for circular/replicate)
    sl = [slice(None)] * (x.ndim - len(pads)) + [slice(-min(a, 0), y.shape[x.ndim - len(pads) + i] + min(b, 0))
                                                  for i, (a, b) in enumerate(pads)]
    return y[tuple(sl)]


@_amp.fp32_if(lambda input, pad, mode="constant", value=None: mode == "replicate" or (
    mode == "reflect" and len(pad) <= 4))
def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims; ``pad`` lists (left, right) pairs from the last dim backwards.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pad(torchlike.tensor([[1., 2.]]), (1, 2), value=9.)
    tensor([[9., 1., 2., 9., 9.]])
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but "
                           f"got padding length {len(pad)} and input of dimension {input.ndim}")
    n = len(pad) // 2
    pairs = tuple((pad[2 * i], pad[2 * i + 1]) for i in range(n))[::-1]  # first dim .. last dim
    check_alloc(tuple(input.shape)[:input.ndim - n] + tuple(s + a + b for s, (a, b) in zip(
        tuple(input.shape)[input.ndim - n:], pairs)), input.dtype)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if n > 3 or input.ndim < n + 1:
            raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                                      "now")
        shp = tuple(input.shape)
        for i, (a, b) in enumerate(pairs):
            d = input.ndim - n + i
            if mode == "reflect" and (a >= shp[d] or b >= shp[d]):
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({a}, {b}) at dimension {d} of input {list(shp)}")
            if mode == "circular" and (a > shp[d] or b > shp[d]):
                raise RuntimeError("Padding value causes wrapping around more than once.")
    return dispatch(_pad_impl, (input, 0 if value is None else value), (("pads", pairs), ("mode", mode)),
                    name="ConstantPadNdBackward0" if mode == "constant" else
                    {"reflect": "ReflectionPad", "replicate": "ReplicationPad", "circular": "CircularPad"}[mode]
                    + f"{n}DBackward0", saves=False)


# --- interpolate --------------------------------------------------------------------------------
def _src_scale(L, o, align_corners, scale):
    if align_corners:
        return (L - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else L / o


def _interp_matrix(L, o, mode, align_corners, scale, ft):
    """(o, L) resampling weights for one dim, computed in float type ``ft`` like torch's kernels."""
    sc = ft(_src_scale(L, o, align_corners, scale))
    dst = np.arange(o).astype(ft)
    W = np.zeros((o, L), np.float64)
    rows = np.arange(o)
    if mode == "linear":
        src = sc * dst if align_corners else np.maximum(sc * (dst + ft(0.5)) - ft(0.5), ft(0))
        i0 = src.astype(np.int64)
        i1 = i0 + (i0 < L - 1)
        l1 = (src - i0.astype(ft)).astype(ft)
        np.add.at(W, (rows, i0), ft(1) - l1)
        np.add.at(W, (rows, i1), l1)
    else:  # cubic, A = -0.75; taps at floor(src) - 1 .. + 2, clamped to the border
        A = -0.75
        src = sc * dst if align_corners else sc * (dst + ft(0.5)) - ft(0.5)
        i0 = np.floor(src).astype(np.int64)
        t = (src - np.floor(src)).astype(np.float64)

        def c1(x):
            return ((A + 2) * x - (A + 3)) * x * x + 1

        def c2(x):
            return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
        for j, c in enumerate((c2(t + 1), c1(t), c1(1 - t), c2(2 - t))):
            np.add.at(W, (rows, np.clip(i0 - 1 + j, 0, L - 1)), c)
    return W


def _nearest_index(L, o, exact, scale, ft):
    sc = ft(1.0 / scale if scale is not None and scale > 0 else L / o)
    dst = np.arange(o).astype(ft)
    src = np.floor((dst + ft(0.5)) * sc if exact else dst * sc).astype(np.int64)
    return np.minimum(src, L - 1)


def _interp_impl(x, out, mode, align_corners, scales):
    n = len(out)
    S = x.shape[-n:]
    ft = np.float64 if x.dtype == jnp.float64 else np.float32
    y = x
    if mode in ("nearest", "nearest-exact"):
        for j in range(n):
            idx = _nearest_index(S[j], out[j], mode == "nearest-exact", scales[j], ft)
            y = jnp.take(y, jnp.asarray(idx), axis=x.ndim - n + j)
        return y
    acc = jnp.promote_types(x.dtype, jnp.float32)
    y = y.astype(acc)
    for j in range(n):
        kind = "cubic" if mode.startswith("bicubic") else "linear"
        W = (aa_matrix if mode.endswith("_aa") else _interp_matrix)(S[j], out[j], kind, align_corners, scales[j], ft)
        ax = x.ndim - n + j
        y = jnp.moveaxis(jnp.tensordot(y, jnp.asarray(W, acc), axes=([ax], [1]), precision=_HI), -1, ax)
    return y.astype(x.dtype)


_NDIM = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (modes nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.interpolate(torchlike.tensor([[[1., 2.]]]), scale_factor=2, mode='linear')
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    n = input.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if n < 1 or n > 3:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                  f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != n:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                                 f"{list(size)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"output size in (o1, o2, ...,oK) format.")
            out = tuple(int(s) for s in size)
        else:
            out = (int(size),) * n
        scales = (None,) * n
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != n:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but "
                                 f"got input with spatial dimensions of {list(input.shape[2:])} and scale_factor "
                                 f"of shape {list(scale_factor)}. Please provide input tensor in (N, C, d1, d2, "
                                 f"...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = tuple(float(s) for s in scale_factor)
        else:
            scales = (float(scale_factor),) * n
        out = tuple(int(math.floor(float(L) * s)) for L, s in zip(input.shape[2:], scales))
        if recompute_scale_factor:
            scales = (None,) * n
    else:
        raise ValueError("either size or scale_factor should be defined")
    if antialias and not (mode in ("bilinear", "bicubic") and n == 2):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor "
                         "as input")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[n - 1](input, out)
    if mode in _NDIM and input.ndim != _NDIM[mode]:
        need = {3: "3D", 4: "4D", 5: "5D"}[_NDIM[mode]]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need} input")
    if mode not in ("nearest", "nearest-exact") and mode not in _NDIM:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) "
                                  f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    name = "Upsample" + mode.replace("-", "_").title().replace("_", "") + f"{n}DBackward0"
    if antialias:  # _interp_impl takes the anti-aliased weights for a "_aa" mode
        mode, name = mode + "_aa", name.replace("Backward0", "AaBackward0")
    return dispatch(_interp_impl, (input,), (("out", out), ("mode", mode), ("align_corners", bool(align_corners)),
                                             ("scales", scales)), name=name, saves=False)


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


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- grid_sample / affine_grid --------------------------------------------------------------------
def _unnormalize(c, size, align):
    return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(x)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = jnp.abs(x - mn)
    extra = jnp.fmod(x, span)
    flips = jnp.floor(x / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + mn, span - extra + mn)


def _compute_coords(x, size, padding, align):
    if padding == "border":
        return jnp.clip(x, 0, size - 1)
    if padding == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
        return jnp.clip(x, 0, size - 1)
    return x


def _gather2d(flat, W, H, yi, xi):
    """flat: (N, C, H*W); yi, xi: (N, P) int; zero where out of bounds -> (N, C, P)."""
    ok = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    idx = jnp.where(ok, yi * W + xi, 0)
    v = jnp.take_along_axis(flat, jnp.broadcast_to(idx[:, None, :], flat.shape[:2] + idx.shape[1:]), axis=2)
    return jnp.where(ok[:, None, :], v, 0)


def _taps(flat, W, H, yy, xx, wts):
    """Sum over taps of value(yy, xx) * wts; yy/xx/wts: (N, P, T) -> (N, C, P). One gather for all taps."""
    N, C = flat.shape[:2]
    P, T = yy.shape[1], yy.shape[2]
    v = _gather2d(flat, W, H, yy.reshape(N, P * T).astype(jnp.int64), xx.reshape(N, P * T).astype(jnp.int64))
    return jnp.sum(v.reshape(N, C, P, T) * wts[:, None], axis=-1)


def _cubic_coeffs(t):
    A = -0.75
    c1 = lambda z: ((A + 2) * z - (A + 3)) * z * z + 1  # noqa: E731
    c2 = lambda z: ((A * z - 5 * A) * z + 8 * A) * z - 4 * A  # noqa: E731
    return jnp.stack([c2(t + 1), c1(t), c1(1 - t), c2(2 - t)], -1)


def _grid_sample_impl(x, grid, mode, padding, align):
    N, C, H, W = x.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    g = grid.reshape(N, -1, 2).astype(x.dtype)
    gx, gy = g[..., 0], g[..., 1]
    flat = x.reshape(N, C, H * W)
    if mode == "bicubic":
        ix, iy = _unnormalize(gx, W, align), _unnormalize(gy, H, align)
        x0, y0 = jnp.floor(ix), jnp.floor(iy)
        off = jnp.arange(-1, 3, dtype=x.dtype)
        # padding is applied to each tap's integer coordinate (torch's get_value_bounded)
        yy = _compute_coords(y0[..., None] + off, H, padding, align)[..., :, None]
        xx = _compute_coords(x0[..., None] + off, W, padding, align)[..., None, :]
        wts = _cubic_coeffs(iy - y0)[..., :, None] * _cubic_coeffs(ix - x0)[..., None, :]
        shp = yy.shape[:2] + (16,)
        out = _taps(flat, W, H, jnp.broadcast_to(yy, yy.shape[:2] + (4, 4)).reshape(shp),
                    jnp.broadcast_to(xx, xx.shape[:2] + (4, 4)).reshape(shp), wts.reshape(shp))
        return out.reshape(N, C, Ho, Wo)
    ix = _compute_coords(_unnormalize(gx, W, align), W, padding, align)
    iy = _compute_coords(_unnormalize(gy, H, align), H, padding, align)
    if mode == "nearest":
        v = _gather2d(flat, W, H, jnp.round(iy).astype(jnp.int64), jnp.round(ix).astype(jnp.int64))
        return v.reshape(N, C, Ho, Wo)
    x0, y0 = jnp.floor(ix), jnp.floor(iy)
    x1, y1 = x0 + 1, y0 + 1
    yy = jnp.stack([y0, y0, y1, y1], -1)
    xx = jnp.stack([x0, x1, x0, x1], -1)
    wts = jnp.stack([(x1 - ix) * (y1 - iy), (ix - x0) * (y1 - iy), (x1 - ix) * (iy - y0), (ix - x0) * (iy - y0)], -1)
    return _taps(flat, W, H, yy, xx, wts).reshape(N, C, Ho, Wo)


def _grid_sample3d_impl(x, grid, mode, padding, align):
    N, C, D, H, W = x.shape
    out_sp = grid.shape[1:4]
    g = grid.reshape(N, -1, 3).astype(x.dtype)
    ix = _compute_coords(_unnormalize(g[..., 0], W, align), W, padding, align)
    iy = _compute_coords(_unnormalize(g[..., 1], H, align), H, padding, align)
    iz = _compute_coords(_unnormalize(g[..., 2], D, align), D, padding, align)
    flat = x.reshape(N, C, D * H * W)

    def gather(zi, yi, xi):  # (N, P) int each -> (N, C, P), zero out of bounds
        ok = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H) & (zi >= 0) & (zi < D)
        idx = jnp.where(ok, (zi * H + yi) * W + xi, 0)
        v = jax.vmap(lambda f, i: f[:, i])(flat, idx)  # a column gather: its transpose is a cheap scatter-add
        return jnp.where(ok[:, None, :], v, 0)

    if mode == "nearest":
        r = lambda c: jnp.round(c).astype(jnp.int64)  # noqa: E731  (round half to even, as nearbyint)
        return gather(r(iz), r(iy), r(ix)).reshape((N, C) + out_sp)
    x0, y0, z0 = jnp.floor(ix), jnp.floor(iy), jnp.floor(iz)
    P = ix.shape[1]
    zz, yy, xx, ww = [], [], [], []
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                zz.append(z0 + dz)
                yy.append(y0 + dy)
                xx.append(x0 + dx)
                ww.append((ix - x0 if dx else x0 + 1 - ix) * (iy - y0 if dy else y0 + 1 - iy)
                          * (iz - z0 if dz else z0 + 1 - iz))
    cat = lambda t: jnp.stack(t, -1).reshape(N, P * 8).astype(jnp.int64)  # noqa: E731
    v = gather(cat(zz), cat(yy), cat(xx)).reshape(N, C, P, 8)
    return jnp.sum(v * jnp.stack(ww, -1)[:, None], axis=-1).reshape((N, C) + out_sp)


def _check_grid(input, grid, mode):
    k = input.ndim - 2
    if input.ndim not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected grid to have size {k} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected {input.ndim}D input and grid with same number of dimensions, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != k:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {k} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and k == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


@_amp.fp32
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) at normalized ``grid`` (N, Ho, Wo, 2) locations (x first); a 5-D ``input``
    (N, C, D, H, W) with a (N, Do, Ho, Wo, 3) ``grid`` samples trilinearly (modes bilinear and nearest).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.grid_sample(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 3, 3, 2), align_corners=False).shape
    torch.Size([1, 1, 3, 3])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    _check_grid(input, grid, mode)
    if input.ndim == 5:
        return dispatch(_grid_sample3d_impl, (input, grid), (("mode", mode), ("padding", padding_mode),
                                                             ("align", bool(align_corners))),
                        name="GridSampler3DBackward0")
    return dispatch(_grid_sample_impl, (input, grid), (("mode", mode), ("padding", padding_mode),
                                                       ("align", bool(align_corners))),
                    name="GridSampler2DBackward0")


def _base_coords(n, align, dt):
    if n <= 1:
        return np.zeros((n,), dt)
    v = np.linspace(-1, 1, n, dtype=np.float64)
    return (v if align else v * (n - 1) / n).astype(dt)


def _affine_grid_impl(theta, size, align):
    dt = np.dtype(theta.dtype)
    if len(size) == 4:
        N, _, H, W = size
        xs, ys = _base_coords(W, align, dt), _base_coords(H, align, dt)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((1, 1), dt)), -1).reshape(-1, 3)
        out = jnp.einsum("pk,nck->npc", jnp.asarray(base), theta, precision=_HI)
        return out.reshape(N, H, W, 2)
    N, _, D, H, W = size
    xs, ys, zs = _base_coords(W, align, dt), _base_coords(H, align, dt), _base_coords(D, align, dt)
    base = np.stack(np.broadcast_arrays(xs[None, None, :], ys[None, :, None], zs[:, None, None],
                                        np.ones((1, 1, 1), dt)), -1).reshape(-1, 4)
    out = jnp.einsum("pk,nck->npc", jnp.asarray(base), theta, precision=_HI)
    return out.reshape(N, D, H, W, 3)


def affine_grid(theta, size, align_corners=None):
    """Sampling grid for ``grid_sample`` from a batch of affine matrices (N, 2, 3) or (N, 3, 4).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.affine_grid(torchlike.tensor([[[1., 0., 0.], [0., 1., 0.]]]), (1, 1, 2, 2), align_corners=False)
    tensor([[[[-0.5000, -0.5000],
              [ 0.5000, -0.5000]],
    <BLANKLINE>
             [[-0.5000,  0.5000],
              [ 0.5000,  0.5000]]]])
    """
    if align_corners is None:
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return dispatch(_affine_grid_impl, (theta,), (("size", size), ("align", bool(align_corners))),
                    name="AffineGridGeneratorBackward0", saves=False)


# --- pixel shuffle, channel shuffle -------------------------------------------------------------
def _pixel_shuffle_impl(x, r, inverse):
    lead = x.shape[:-3]
    C, H, W = x.shape[-3:]
    if not inverse:
        y = x.reshape(lead + (C // (r * r), r, r, H, W))
        k = len(lead)
        y = y.transpose(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
        return y.reshape(lead + (C // (r * r), H * r, W * r))
    y = x.reshape(lead + (C, H // r, r, W // r, r))
    k = len(lead)
    y = y.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return y.reshape(lead + (C * r * r, H // r, W // r))


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pixel_shuffle(torchlike.ones(1, 4, 2, 3), 2).shape
    torch.Size([1, 1, 4, 6])
    """
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return dispatch(_pixel_shuffle_impl, (input,), (("r", r), ("inverse", False)), name="PixelShuffleBackward0",
                    saves=False)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pixel_unshuffle(torchlike.ones(1, 1, 4, 6), 2).shape
    torch.Size([1, 4, 2, 3])
    """
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    if input.shape[-2] % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={input.shape[-2]} is not divisible by {r}")
    if input.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={input.shape[-1]} is not divisible by {r}")
    return dispatch(_pixel_shuffle_impl, (input,), (("r", r), ("inverse", True)),
                    name="PixelUnshuffleBackward0", saves=False)


def _channel_shuffle_impl(x, g):
    N, C = x.shape[:2]
    rest = x.shape[2:]
    return x.reshape((N, g, C // g) + rest).swapaxes(1, 2).reshape(x.shape)


def channel_shuffle(input, groups):
    """Interleave channels across ``groups`` (ShuffleNet).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.channel_shuffle(torchlike.arange(4.).view(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if input.shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{g} groups.")
    return dispatch(_channel_shuffle_impl, (input,), (("g", g),), name="ChannelShuffleBackward0", saves=False)


native_channel_shuffle = channel_shuffle


# --- unfold / fold (im2col / col2im) ------------------------------------------------------------
def _im2col_tables(S, k, d, p, s):
    out = tuple((L + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for L, kk, dd, pp, ss in zip(S, k, d, p, s))
    idxs = [(np.arange(o) * ss)[:, None] + np.arange(kk)[None, :] * dd for o, ss, kk, dd in zip(out, s, k, d)]
    return out, idxs


def _unfold_impl(x, k, d, p, s):
    N, C = x.shape[:2]
    xp = jnp.pad(x, ((0, 0), (0, 0)) + tuple((pp, pp) for pp in p))
    out, idxs = _im2col_tables(xp.shape[2:], k, d, (0, 0), s)
    pt = _gather_patches(xp.reshape((N * C,) + xp.shape[2:]), idxs)  # (N C, oh, ow, K)
    K = pt.shape[-1]
    L = math.prod(out)  # explicit sizes: a -1 cannot be inferred when the batch is empty
    return pt.reshape(N, C, L, K).transpose(0, 1, 3, 2).reshape(N, C * K, L)


def _fold_impl(x, out_size, k, d, p, s):
    N = x.shape[0]
    K = math.prod(k)
    C = x.shape[1] // K
    Sp = tuple(o + 2 * pp for o, pp in zip(out_size, p))
    out, idxs = _im2col_tables(Sp, k, d, (0, 0), s)
    flat, _ = _table_flat(idxs, [np.ones(i.shape, bool) for i in idxs], Sp)  # (oh, ow, K)
    L = math.prod(out)
    v = x.reshape(N, C, K, L).transpose(0, 1, 3, 2).reshape(N, C, L * K)
    y = jnp.zeros((N, C, math.prod(Sp)), x.dtype).at[:, :, jnp.asarray(flat.reshape(-1))].add(v)
    y = y.reshape((N, C) + Sp)
    return y[(Ellipsis,) + tuple(slice(pp, pp + o) for pp, o in zip(p, out_size))]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * kh * kw, L) (im2col).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.unfold(torchlike.ones(1, 2, 4, 4), 2).shape
    torch.Size([1, 8, 9])
    """
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    k, d, p, s = (ntuple(v, 2, nm) for v, nm in ((kernel_size, "kernel_size"), (dilation, "dilation"),
                                                 (padding, "padding"), (stride, "stride")))
    x = input if input.ndim == 4 else input.unsqueeze(0)
    out, _ = _im2col_tables(tuple(x.shape[2:]), k, d, p, s)
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input with spatial size ({', '.join(map(str, x.shape[2:]))}), kernel_size="
                           f"({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated "
                           f"shape of the array of sliding blocks as ({out[0]}, {out[1]}), but its components "
                           f"must be at least one.")
    r = dispatch(_unfold_impl, (x,), (("k", k), ("d", d), ("p", p), ("s", s)), name="Im2ColBackward0",
                 saves=False)
    return r if input.ndim == 4 else r.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding blocks (N, C * kh * kw, L) into (N, C, H, W), summing overlaps (col2im).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.fold(torchlike.ones(1, 4, 4), (3, 3), 2).sum()
    tensor(16.)
    """
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.ndim}D)")
    o, k, d, p, s = (ntuple(v, 2, nm) for v, nm in ((output_size, "output_size"), (kernel_size, "kernel_size"),
                                                    (dilation, "dilation"), (padding, "padding"),
                                                    (stride, "stride")))
    x = input if input.ndim == 3 else input.unsqueeze(0)
    K = math.prod(k)
    if x.shape[1] % K:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={x.shape[1]} and kernel_size=({k[0]}, {k[1]})")
    blocks, _ = _im2col_tables(o, k, d, p, s)
    if math.prod(blocks) != x.shape[2]:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {math.prod(blocks)}, but got input.size(2)={x.shape[2]}.")
    r = dispatch(_fold_impl, (x,), (("out_size", o), ("k", k), ("d", d), ("p", p), ("s", s)),
                 name="Col2ImBackward0", saves=False)
    return r if input.ndim == 3 else r.squeeze(0)
