"""Grid sampling: ``torch.nn.functional.grid_sample`` (bilinear, nearest, bicubic; zeros, border, reflection
padding; 4-D and 5-D inputs) and torch's positional entry points (``torch.grid_sampler``,
``torch.grid_sampler_2d``, ``torch.grid_sampler_3d``), its integer-coded forms.

It lives with the ops (layer 3) because the positional forms are ops; ``torchlike.nn.functional`` re-exports
``grid_sample``.

>>> import torchlike
>>> torchlike.grid_sampler(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 1, 1, 2), 0, 0, False).tolist()
[[[[1.0]]]]
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _autocast as _amp, _dtype
from .._dispatch import dispatch
from .._errors import warn_at_caller
from .checks import need_tensors
from .registry import functional, register

__all__ = ["grid_sample"]

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


# what F.grid_sample and F.affine_grid warn when align_corners is not given
ALIGN_DEFAULT = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                 "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample "
                 "for details.")


@functional()
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
    if align_corners is None:  # (torch's F.grid_sample warns, after its mode checks)
        warn_at_caller(ALIGN_DEFAULT)
    need_tensors("grid_sampler", input=input, grid=grid)
    _check_grid(input, grid, mode)
    if not input.dtype.is_floating_point:  # (torch's CPU kernels dispatch on floating types only)
        kernel = "grid_sampler3d_cpu" if input.ndim == 5 else "grid_sampler_2d_cpu_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._CAP[input.dtype.name]} but found "
                           f"{_dtype._CAP[grid.dtype.name]}")
    if input.ndim == 5:
        return dispatch(_grid_sample3d_impl, (input, grid), (("mode", mode), ("padding", padding_mode),
                                                             ("align", bool(align_corners))),
                        name="GridSampler3DBackward0")
    return dispatch(_grid_sample_impl, (input, grid), (("mode", mode), ("padding", padding_mode),
                                                       ("align", bool(align_corners))),
                    name="GridSampler2DBackward0")

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _sample(input, grid, interpolation_mode, padding_mode, align_corners):
    return grid_sample(input, grid, mode=_MODES[int(interpolation_mode)], padding_mode=_PADDING[int(padding_mode)],
                       align_corners=bool(align_corners))


@register(method=False)
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` with torch's integer codes: mode 0/1/2 = bilinear/nearest/bicubic, padding 0/1/2 =
    zeros/border/reflection.

    >>> import torchlike
    >>> torchlike.grid_sampler_2d(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 3, 3, 2), 0, 0, False).shape
    torch.Size([1, 1, 3, 3])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` of a 5-D input with torch's integer codes (mode 0/1 = bilinear/nearest).

    >>> import torchlike
    >>> torchlike.grid_sampler_3d(torchlike.ones(1, 1, 2, 2, 2), torchlike.zeros(1, 1, 1, 1, 3), 0, 0, False).shape
    torch.Size([1, 1, 1, 1, 1])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)


@register(method=False)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sample`` with torch's integer codes (see :func:`grid_sampler_2d`).

    >>> import torchlike
    >>> torchlike.grid_sampler(torchlike.ones(1, 1, 2, 2), torchlike.zeros(1, 3, 3, 2), 1, 1, True).shape
    torch.Size([1, 1, 3, 3])
    """
    return _sample(input, grid, interpolation_mode, padding_mode, align_corners)
