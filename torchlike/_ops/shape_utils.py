"""Index and layout utilities: unravel_index, ravel, constant_pad_nd, as_strided_scatter.
"""
from __future__ import annotations

import numbers
import jax.numpy as jnp
from jax import lax

from .. import _dtype, _views
from ._util import Tensor, dispatch, register
from .._creation import tensor
from .padding import pad as _pad

__all__ = ["unravel_index", "constant_pad_nd", "as_strided_scatter"]


# --- unravel_index ----------------------------------------------------------------------------------
def _unravel_impl(idx, shape):
    out = []
    rem = idx
    for n in reversed(shape):
        out.append(jnp.remainder(rem, n) if n else rem * 0)
        rem = jnp.floor_divide(rem, n) if n else rem
    return tuple(reversed(out))


@register(method=False, differentiable=False, promote="none")
def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in a tensor of ``shape`` (tuple of int64 tensors).

    >>> import torchlike
    >>> torchlike.unravel_index(torchlike.tensor(5), (2, 4))
    (tensor(1), tensor(1))
    """
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    idx = indices.to(_dtype.int64)
    return dispatch(_unravel_impl, (idx,), (("shape", shape),), diff=False)


# --- padding / scatter --------------------------------------------------------------------------------
@register(method=False)
def constant_pad_nd(input, pad, value=0):
    """Pad the last dims with a constant (torch.constant_pad_nd; negative pads crop).

    >>> import torchlike
    >>> torchlike.constant_pad_nd(torchlike.tensor([1, 2]), (1, 0), 7).tolist()
    [7, 1, 2]
    """
    return _pad(input, tuple(pad), mode="constant", value=value)


def _ass_impl(x, src, size, stride, offset):
    idx = _views.index_map((("as_strided", size, stride, offset),), tuple(x.shape)).reshape(-1)
    flat = x.reshape(-1)
    real = flat.at[idx].set(src.reshape(-1).astype(x.dtype))
    if not jnp.issubdtype(flat.dtype, jnp.inexact):
        return real.reshape(x.shape)
    # torch's backward (as_strided_scatter_backward) gives ``input`` the gradient AT the written
    # positions and ``src`` the gradient gathered there; reproduce it with stop_gradient terms.
    pos = jnp.zeros(flat.shape, flat.dtype).at[idx].set(1)
    xm = flat * pos
    sa = jnp.zeros(flat.shape, flat.dtype).at[idx].add(src.reshape(-1).astype(x.dtype))
    sg = lax.stop_gradient
    return (sg(real) + (xm - sg(xm)) + (sa - sg(sa))).reshape(x.shape)


@register()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its ``as_strided(size, stride, offset)`` view.

    >>> import torchlike
    >>> torchlike.as_strided_scatter(torchlike.zeros(4), torchlike.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    off = 0 if storage_offset is None else int(storage_offset)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    if all(size) and off + sum((n - 1) * st for n, st in zip(size, stride)) >= input.numel():
        n = input.dtype.itemsize  # torch counts the storage in bytes
        need = (off + sum((k - 1) * st for k, st in zip(size, stride)) + 1) * n
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                           f"itemsize {n} requiring a storage size of {need} are out of bounds for storage of size "
                           f"{input.numel() * n}")
    x = input.contiguous() if input._vbase is not None else input
    return dispatch(_ass_impl, (x, src), (("size", size), ("stride", stride), ("offset", off)),
                    name="AsStridedScatterBackward0", saves=False)


@register()
def ravel(input):
    """The flattened tensor (a view when possible)."""
    return input.reshape(-1)
