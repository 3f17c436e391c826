"""Dropout family (dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout).

As in torch's CPU kernel, the noise is ``empty_like(input).bernoulli_(1 - p)`` (so in eager CPU code the
mask is torch's for the same seed) divided by ``1 - p`` in the input's dtype, then multiplied in; the
gradient is mask * scale.

It lives with the ops (layer 3) because torch's dropout ops (``torch.feature_dropout``, ``torch.dropout_``, ...)
are built on it; the family's entries are in the op table's ``nn.functional`` namespace.

>>> import torchlike as torch
>>> x = torch.ones(4)
>>> torch.nn.functional.dropout(x, 0.5, training=False) is x
True
"""
from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype, _random
from .. import _memory_format as _mfmt
from .._dispatch import dispatch
from .._errors import bool_arg
from .registry import functional as _functional
from ..tensor import Tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

_ALPHA = 1.7580993408473766


def _apply_mask(x, mask, scale):
    return x * (mask.astype(x.dtype) * jnp.asarray(scale).astype(x.dtype))


def _alpha_terms(mask, a, c, b):
    """torch's alpha-dropout tensors: noise = mask * a and b = (mask - 1) * (alpha * a) + alpha * a * p."""
    return mask * a, (mask - 1) * c + b


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@_mfmt.pointwise_follows((0, "input"))
def _impl(input, p, training, inplace, feature, alpha):
    if not isinstance(input, Tensor):
        raise TypeError(f"dropout(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if training is not True and training is not False:  # (torch's F.X hands it to _VF.X's parser)
        bool_arg(training, "train", f"{'feature_' if feature else ''}{'alpha_' if alpha else ''}dropout"
                 f"{'_' if inplace else ''}", 3)
    if p == 0 or not training or input.numel() == 0:
        return input
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    else:
        shape = tuple(input.shape)
    dt = input._value.dtype
    if p == 1:  # torch multiplies by zero without drawing
        out = dispatch(_apply_mask, (input, np.zeros((), bool), 0.0), name="MulBackward0", saves=False)
        return input._inplace_update(out) if inplace else out
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # torch's noise of the input's dtype is
        # divided by (1 - p) in place (alpha: a bool's noise - 1 is Long first)
        to = "Long" if alpha and input.dtype is _dtype.bool else _dtype._CAP[input.dtype.name]
        raise RuntimeError(f"result type Float can't be cast to the desired output type {to}")
    mask = _random.draw("bernoulli", shape, dt, None, args=(1.0 - p,))
    if not feature:  # torch's noise is empty_like(input): filled in the input's stride order
        mask = _random.in_fill_order(mask, _random.like_order(input))
    mask = Tensor._wrap(mask, input.device)
    if alpha:
        a = 1.0 / np.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p)) if p < 1 else 0.0
        dtv = mask._value.dtype
        noise, shift = _alpha_terms(mask._value, *(jnp.asarray(v, dtv) for v in (a, _ALPHA * a, _ALPHA * a * p)))
        # two ops, as in torch: input * noise, then + b (a fused multiply-add would round differently)
        out = input * Tensor._wrap(noise, input.device) + Tensor._wrap(shift, input.device)
    else:
        work = np.float64 if dt == np.float64 else np.float32
        scale = work(1) / work(1.0 - p)  # torch: noise.div_(1 - p) with the divisor in the noise's dtype
        out = dispatch(_apply_mask, (input, mask, scale), name="MulBackward0", saves=False)
    return input._inplace_update(out) if inplace else out


@_functional()
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` (scaling the rest by 1/(1-p)) when ``training``."""
    _check_p(p)
    return _impl(input, p, training, inplace, False, False)


@_functional()
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps the self-normalising property (for SELU networks)."""
    _check_p(p)
    return _impl(input, p, training, inplace, False, True)


@_functional()
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _impl(input, p, training, inplace, True, True)


@_functional(torch=True)
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, L) or (C, L) input."""
    _check_p(p)
    d = input.dim()
    if d not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {d}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _batched(input, p, training, inplace, d == 3)


def _batched(input, p, training, inplace, is_batched):
    if is_batched:
        return _impl(input, p, training, inplace, True, False)
    if not training or p == 0:
        return input
    r = _impl(input.unsqueeze(0), p, training, False, True, False).squeeze(0)
    return input._inplace_update(r) if inplace else r


@_functional(torch=True)
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, H, W) input."""
    _check_p(p)
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with "
                      "2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _impl(input, p, training, inplace, True, False)


@_functional(torch=True)
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with "
                      "3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    return _batched(input, p, training, inplace, d == 5)
