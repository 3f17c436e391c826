"""Index and layout utilities: unravel_index, ravel, constant_pad_nd, as_strided_scatter.
"""
from __future__ import annotations

import math
import numbers
import operator

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, _views
from .. import _memory_format as _mfmt
from .._errors import argument_error
from ._util import Tensor, dispatch, register
from .._creation import tensor
from .padding import _pad_impl, pad as _pad
from .._scalar_fit import check_scalar_fits

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
    if isinstance(pad, Tensor):  # (torch's parser takes no Tensor for the int list, whatever its shape)
        raise argument_error(pad, "tuple of ints", "pad", "constant_pad_nd", 2)
    pad = tuple(map(operator.index, pad))  # (ints: torch's parser)
    if isinstance(value, (complex, np.complexfloating)):  # (torch's Scalar value: F.pad's float refuses it)
        check_scalar_fits(value, input.dtype)  # (an imaginary part fits only a complex tensor)
        r = _pad(input, pad, mode="constant", value=value.real)  # (F.pad's checks, and a real fill)
        if not (input.dtype.is_complex and value.imag):
            return r
        n = len(pad) // 2
        pairs = tuple((pad[2 * i], pad[2 * i + 1]) for i in range(n))[::-1]
        return dispatch(_pad_impl, (input, complex(value)), (("pads", pairs), ("mode", "constant")),
                        name="ConstantPadNdBackward0")
    return _pad(input, pad, mode="constant", value=value)


def _ass_impl(x, src, chain, root_shape, step, grad_step):
    n = math.prod(root_shape)
    pos = _views.index_map(chain, root_shape).reshape(-1)  # where x's elements lie in the root (row-major places)
    spos = _views.index_map((step,), root_shape).reshape(-1)  # where the as_strided view's elements lie
    last = np.full(n, -1, np.int64)
    last[spos] = np.arange(spos.size)
    sel = last[pos]  # for each element of x, the src element written over it (-1: none)
    flat = x.reshape(-1)
    s = src.reshape(-1).astype(x.dtype)
    real = jnp.where(sel >= 0, s[np.maximum(sel, 0)], flat)
    if not jnp.issubdtype(flat.dtype, jnp.inexact):
        return real.reshape(x.shape)
    # torch's backward (as_strided_scatter_backward) takes the input as contiguous from 0 and the offset as given
    # (``grad_step``), gives ``input`` the gradient AT those positions and ``src`` the gradient gathered there;
    # reproduced with stop_gradient terms (none where those positions leave the input: torch's backward raises)
    try:
        gpos = _views.index_map((grad_step,), (flat.size,)).reshape(-1)
    except RuntimeError:
        return real.reshape(x.shape)
    xm = flat * jnp.zeros(flat.shape, flat.dtype).at[gpos].set(1)
    sa = jnp.zeros(flat.shape, flat.dtype).at[gpos].add(s)
    sg = lax.stop_gradient
    return (sg(real) + (xm - sg(xm)) + (sa - sg(sa))).reshape(x.shape)


_NONCONTIGUOUS_GRAD = ("!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/"
                       "src/ATen/native/TensorShape.cpp\":4754, please report a bug to PyTorch. as_strided_scatter is "
                       "currently only supported for contiguous inputs")


@register()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its ``as_strided(size, stride, offset)`` view.  As torch's,
    the copy keeps ``input``'s storage geometry: for a view, ``size``/``stride``/``offset`` (default: the view's
    storage offset) count in its root's storage, and only the elements of ``input`` they land on change.

    >>> import torchlike
    >>> torchlike.as_strided_scatter(torchlike.zeros(4), torchlike.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    off = input.storage_offset() if storage_offset is None else int(storage_offset)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    viewed = input._vbase is not None and input._chain[0][0] != "alias"
    root = input._vbase if viewed else input
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError(_NONCONTIGUOUS_GRAD)
    n = root.numel()
    if all(size) and off + sum((k - 1) * st for k, st in zip(size, stride)) >= n:
        b = input.dtype.itemsize  # torch counts the storage in bytes
        need = (off + sum((k - 1) * st for k, st in zip(size, stride)) + 1) * b
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off}, and "
                           f"itemsize {b} requiring a storage size of {need} are out of bounds for storage of size "
                           f"{n * b}")
    step = ("as_strided", size, stride, off) + ((root._st,) if root._st is not None else ())
    grad_step = ("as_strided", size, stride, 0 if storage_offset is None else int(storage_offset))
    out = dispatch(_ass_impl, (input, src), (("chain", input._chain if viewed else ()),
                                             ("root_shape", tuple(root.shape)), ("step", step),
                                             ("grad_step", grad_step)),
                   name="AsStridedScatterBackward0", saves=False)
    return _mfmt.mark(out, None, input)  # (input's strides, where dense)


@register()
def ravel(input):
    """The flattened tensor (a view when possible)."""
    return input.reshape(-1)
