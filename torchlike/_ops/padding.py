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

__all__ = ["pad"]

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
    if value is not None:  # torch's signature: float? value; a fill is c10's checked conversion of that float
        if isinstance(value, (complex, np.complexfloating)) or not hasattr(value, "__float__"):
            raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {tp_name(value)}")
        if mode == "constant" and any(p > 0 for p in pad):
            check_scalar_fits(float(value), input.dtype)
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
