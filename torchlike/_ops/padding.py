"""Padding (``torch.nn.functional.pad``): constant, reflect, replicate and circular, negative pads cropping.

It lives with the ops (layer 3) because ops pad too (``torch.constant_pad_nd``, ``stft``'s centring);
``torchlike.nn.functional`` re-exports it.

>>> import torchlike
>>> import torchlike.nn.functional as F
>>> F.pad(torchlike.tensor([[1., 2.]]), (1, 0), mode="replicate")
tensor([[1., 1., 2.]])
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _autocast as _amp
from .. import _memory_format as _mfmt
from .._dispatch import dispatch
from .registry import functional as _functional
from .._errors import check_alloc, tp_name
from .._scalar_fit import check_scalar_fits
from ..tensor import Tensor

__all__ = ["pad"]

def _pad_impl(x, value, pads, mode):
    lead = x.ndim - len(pads)
    out = x.shape[:lead] + tuple(x.shape[lead + i] + a + b for i, (a, b) in enumerate(pads))
    if 0 in out:  # (an empty result: nothing to wrap or reflect around)
        return jnp.zeros(out, x.dtype)
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


def _check_cropping(sizes, pairs):
    """constant_pad_nd crops negative pads with ``narrow`` first, dim by dim: its error where one crops too much."""
    for size, (a, b) in zip(sizes, pairs):
        for p in (a, b):
            if p < 0:
                size += p
                if size < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")


def _check_output_size(shape, pairs, mode):
    """The reflection/replication kernels' check: the output may be empty in some padded dims, not in all."""
    n = len(pairs)
    ins = shape[len(shape) - n:]
    outs = [s + a + b for s, (a, b) in zip(ins, pairs)]
    if all(o < 1 for o in outs):
        names = "DHW"[3 - n:]
        if n == 1:
            sizes = f"W: {ins[0]}"
        elif n == 2:
            sizes = f"H: {ins[0]}, W: {ins[1]}" + (" " if mode == "replicate" else "")
        else:
            sizes = f"D: {ins[0]} H: {ins[1]}, W: {ins[2]}"
        raise RuntimeError(f"input ({sizes}) is too small. Calculated output "
                           + " ".join(f"{c}: {o}" for c, o in zip(names, outs)))
    bad = next((o for o in outs if o < 0), None)
    if bad is not None:
        out = list(shape[:len(shape) - n]) + outs
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {out}")


@_functional()
@_amp.fp32_if(lambda input, pad, mode="constant", value=None: mode == "replicate" or (
    mode == "reflect" and len(pad) <= 4))
@_mfmt.channels_last_follows((0, "input"), unless=((2, "mode"), "circular"))
def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims; ``pad`` lists (left, right) pairs from the last dim backwards.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.pad(torchlike.tensor([[1., 2.]]), (1, 2), value=9.)
    tensor([[9., 1., 2., 9., 9.]])
    """
    if not isinstance(pad, (tuple, list, Tensor)):  # (torch's parser: an int list, never a lone int)
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {tp_name(pad)}")
    bad = next((i for i, p in enumerate(pad) if isinstance(p, (float, np.floating))), None)
    if bad == 0:  # torch's parser: a float element is refused, in words that depend on where it stands
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                        f"{tp_name(pad[0])} at pos 0")
    if bad is not None:
        raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos 2 with error \"type must be "
                        f"tuple of ints,but got {tp_name(pad[bad])}\"")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but "
                           f"got padding length {len(pad)} and input of dimension {input.ndim}")
    n = len(pad) // 2
    pairs = tuple((pad[2 * i], pad[2 * i + 1]) for i in range(n))[::-1]  # first dim .. last dim
    if mode == "constant" and any(a < 0 or b < 0 for a, b in pairs):
        _check_cropping(tuple(input.shape)[input.ndim - n:], pairs)
    check_alloc(tuple(input.shape)[:input.ndim - n] + tuple(s + a + b for s, (a, b) in zip(
        tuple(input.shape)[input.ndim - n:], pairs)), input.dtype)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None:  # torch's signature: float? value; a fill is c10's checked conversion of that float
        if isinstance(value, (complex, np.complexfloating)) or not hasattr(value, "__float__"):
            raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {tp_name(value)}")
        if mode == "constant" and any(p > 0 for p in pad):
            check_scalar_fits(float(value), input.dtype)
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if n > 3 or not n + 1 <= input.ndim <= n + 2:
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                      "Supported combinations for non-constant padding:\n"
                                      "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                                      "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                                      "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        shp = tuple(input.shape)
        if mode != "circular" and 0 in shp[1 if input.ndim == n + 2 else 0:]:
            raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {list(shp)}")
        for k, i in enumerate(reversed(range(len(pairs)))):  # (torch: the last dim first, its pad Argument #4)
            a, b = pairs[i]
            d = input.ndim - n + i
            if mode == "reflect" and (a >= shp[d] or b >= shp[d]):
                raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({a}, {b}) at dimension {d} of input {list(shp)}")
        for i, (a, b) in enumerate(pairs):
            d = input.ndim - n + i
            if mode == "circular" and (a > shp[d] or b > shp[d]):
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if mode == "circular" and shp[d] + a + b < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if mode != "circular":
            _check_output_size(shp, pairs, mode)
    return dispatch(_pad_impl, (input, 0 if value is None else value), (("pads", pairs), ("mode", mode)),
                    name="ConstantPadNdBackward0" if mode == "constant" else
                    {"reflect": "ReflectionPad", "replicate": "ReplicationPad", "circular": "CircularPad"}[mode]
                    + f"{n}DBackward0", saves=False)
