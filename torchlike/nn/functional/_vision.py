"""Vision functionals: pad, interpolate, grid_sample, affine_grid, pixel_(un)shuffle, unfold/fold,
channel_shuffle.

``pad``, ``grid_sample`` and the resampling kernels under ``interpolate`` live with the ops (``_ops/padding.py``,
``_ops/grid_sampler.py``, ``_ops/resample.py``: layer 3, where ops that pad or resample reach them); this module
re-exports them.
"""
from __future__ import annotations

import math
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from ... import _dtype
from ... import _memory_format as _mfmt
from ..._global_settings import get_num_threads
from ..._dispatch import dispatch
from ..._errors import int_arg, warn_at_caller
from ..._ops.registry import functional as _functional
from ..._ops.checks import need_tensors as _need_tensors
from ..._ops.grid_sampler import ALIGN_DEFAULT, grid_sample
from ..._ops.padding import pad
from ..._ops.resample import _NDIM, _interp_impl, half_weights_kernel
from ._conv import _is_index, ntuple
from ._adaptive_pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from ._pooling import _gather_patches, _table_flat

__all__ = ["pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample",
           "affine_grid", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "channel_shuffle",
           "native_channel_shuffle"]

# torch.nn.functional's tables of grid_sample's modes (the numbers its kernels take)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_HI = lax.Precision.HIGHEST


# --- interpolate --------------------------------------------------------------------------------
# (mode, 2-d, antialias) -> the torch kernel that rejects a non-uint8 integer input (torch 2.13's messages)
_INT_KERNEL = {("nearest", True, False): "upsample_nearest2d_channels_last",
               ("nearest-exact", True, False): "upsample_nearest2d_channels_last",
               ("nearest", False, False): "compute_indices_weights_nearest",
               ("nearest-exact", False, False): "compute_indices_weights_nearest",
               ("bilinear", True, False): "upsample_bilinear2d_channels_last",
               ("bicubic", True, False): "compute_indices_weights_cubic",
               ("bilinear", True, True): "compute_index_ranges_weights",
               ("bicubic", True, True): "compute_index_ranges_weights"}


def _rank_error(input, mode):
    return (f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")  # (torch's words)


@_functional()
@_mfmt.channels_last_follows((0, "input"))
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
    if size is not None and scale_factor is not None:  # (torch checks these before the input's rank)
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != n:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                                 f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"output size in (o1, o2, ...,oK) format.")
            if not all(_is_index(s) for s in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            out = tuple(int(s) for s in size)
        else:
            out = (int(size),) * n
        scales = (None,) * n
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != n:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but "
                                 f"got input with spatial dimensions of {list(input.shape[2:])} and scale_factor "
                                 f"of shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, "
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
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if n < 1 or n > 3:
        raise NotImplementedError(_rank_error(input, mode))
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[n - 1](input, out)
    if mode == "bicubic" and input.ndim != 4:  # (torch's catch-all, not the 'needs 4D' of the other modes)
        raise NotImplementedError(_rank_error(input, mode))
    if mode in _NDIM and input.ndim != _NDIM[mode]:
        need = {3: "3D", 4: "4D", 5: "5D"}[_NDIM[mode]]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need} input")
    if mode not in ("nearest", "nearest-exact") and mode not in _NDIM:
        raise NotImplementedError(_rank_error(input, mode))
    if input.shape[1] == 0 and all(input.shape[2:]) and all(out):  # (torch's meta checks: an empty batch only)
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    if min(out) <= 0 or not all(input.shape[2:]):  # (upsample_*d's shape check)
        names = "DHW"[3 - n:]
        ins = ", ".join(f"{c}: {v}" for c, v in zip(names, input.shape[2:]))
        outs = ", ".join(f"{c}: {v}" for c, v in zip(names, out))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}) "
                           f"{'and ' if n == 1 else ''}output ({outs})")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # torch's CPU kernels take integers only for uint8 nearest and 2-d bilinear/bicubic (_u8_resample); the
        # others raise from the kernel that dispatches on the dtype
        kernel = _INT_KERNEL.get((mode, n == 2, bool(antialias)), "compute_indices_weights_linear")
        if input.dtype.name != "uint8" or mode in ("linear", "trilinear"):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    name = "Upsample" + mode.replace("-", "_").title().replace("_", "") + f"{n}DBackward0"
    if antialias:  # _interp_impl takes the anti-aliased weights for a "_aa" mode
        mode, name = mode + "_aa", name.replace("Backward0", "AaBackward0")
    statics = (("out", out), ("mode", mode), ("align_corners", bool(align_corners)), ("scales", scales))
    if input.dtype.name in ("float16", "bfloat16") and not antialias:
        fmt = _mfmt.channels_last if input.ndim == 4 else _mfmt.channels_last_3d
        cl = input.ndim in (4, 5) and input.is_contiguous(memory_format=fmt)
        if half_weights_kernel(mode, input.shape, out, cl, get_num_threads()):
            statics += (("half_weights", True),)
    return dispatch(_interp_impl, (input,), statics, name=name, saves=False)


@_functional()
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate`."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@_functional()
def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode="nearest")``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@_functional()
def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(mode="bilinear", align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- affine_grid ----------------------------------------------------------------------------------
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


@_functional()
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
        warn_at_caller(ALIGN_DEFAULT)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if align_corners and min(size[2:]) == 1:
        warn_at_caller("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                       "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                       "of affine_grid for details.")
    if theta.shape[0] != size[0]:  # (torch's batched matmul of the base grid and theta^T)
        cols = theta.shape[-1]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {cols}] but "
                           f"got: [{theta.shape[0]}, {cols}].")
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


def _check_format(input):
    if _mfmt.SEEN[0] and _mfmt.suggest(input) is _mfmt.channels_last_3d:  # (torch's CPU kernels' check)
        raise RuntimeError("Unsupported memory format. Supports only ChannelsLast, Contiguous")


@_functional(torch=True)
@_mfmt.channels_last_follows((0, "input"))
def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pixel_shuffle(torchlike.ones(1, 4, 2, 3), 2).shape
    torch.Size([1, 1, 4, 6])
    """
    r = int_arg(upscale_factor, "upscale_factor")
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    _check_format(input)
    return dispatch(_pixel_shuffle_impl, (input,), (("r", r), ("inverse", False)), name="PixelShuffleBackward0",
                    saves=False)


@_functional(torch=True)
@_mfmt.channels_last_follows((0, "input"))
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pixel_unshuffle(torchlike.ones(1, 1, 4, 6), 2).shape
    torch.Size([1, 4, 2, 3])
    """
    r = int_arg(downscale_factor, "downscale_factor")
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
    _check_format(input)
    return dispatch(_pixel_shuffle_impl, (input,), (("r", r), ("inverse", True)),
                    name="PixelUnshuffleBackward0", saves=False)


def _channel_shuffle_impl(x, g):
    N, C = x.shape[:2]
    rest = x.shape[2:]
    return x.reshape((N, g, C // g) + rest).swapaxes(1, 2).reshape(x.shape)


@_functional(torch=True)
@_mfmt.channels_last_follows((0, "input"))
def channel_shuffle(input, groups):
    """Interleave channels across ``groups`` (ShuffleNet).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.channel_shuffle(torchlike.arange(4.).view(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    g = int_arg(groups, "groups")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if input.shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{g} groups.")
    return dispatch(_channel_shuffle_impl, (input,), (("g", g),), name="ChannelShuffleBackward0", saves=False)


@_functional(torch=True)
@_mfmt.channels_last_follows((0, "input"))
def native_channel_shuffle(input, groups):
    """``channel_shuffle`` (torch.native_channel_shuffle, F.native_channel_shuffle: one function in torch).

    >>> import torchlike as torch
    >>> torch.native_channel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return channel_shuffle(input, groups)


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


_IM2COL_CHECKS = (("kernel_size", "kernel size should be greater than zero", "kernel", 1),
                  ("dilation", "dilation should be greater than zero", "dilation", 1),
                  ("padding", "padding should be non-negative", "pad", 0),
                  ("stride", "stride should be greater than zero", "stride", 1))


def _im2col_args(**args):
    """im2col/col2im's parameters as pairs, with their checks in torch's order: each one's length, then the
    kernel, dilation, padding and stride values."""
    out = {}
    for name, v in args.items():
        if isinstance(v, (list, tuple)) and len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        out[name] = ntuple(v, 2, name)
    for name, words, short, least in _IM2COL_CHECKS:
        h, w = out[name]
        if h < least or w < least:
            raise RuntimeError(f"{words}, but got {short}_height: {h} {short}_width: {w}")
    return tuple(out.values())


@_functional()
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * kh * kw, L) (im2col).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.unfold(torchlike.ones(1, 2, 4, 4), 2).shape
    torch.Size([1, 8, 9])
    """
    _need_tensors("im2col", input=input)
    k, d, p, s = _im2col_args(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    if input.ndim < 3:  # (im2col's shape check reads input.size(1) and input.size(2))
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], "
                         f"but got {input.ndim})")
    if input.ndim > 4:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
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


@_functional()
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding blocks (N, C * kh * kw, L) into (N, C, H, W), summing overlaps (col2im).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.fold(torchlike.ones(1, 4, 4), (3, 3), 2).sum()
    tensor(16.)
    """
    o, k, d, p, s = _im2col_args(output_size=output_size, kernel_size=kernel_size, dilation=dilation,
                                 padding=padding, stride=stride)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    K = math.prod(k)
    if x.shape[1] % K:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={x.shape[1]} and kernel_size=({k[0]}, {k[1]}).")
    blocks, _ = _im2col_tables(o, k, d, p, s)
    if math.prod(blocks) != x.shape[2]:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {math.prod(blocks)}, but got input.size(2)={x.shape[2]}.")
    r = dispatch(_fold_impl, (x,), (("out_size", o), ("k", k), ("d", d), ("p", p), ("s", s)),
                 name="Col2ImBackward0", saves=False)
    return r if input.ndim == 3 else r.squeeze(0)
