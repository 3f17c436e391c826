"""Reading a tensor at the positions in an index tensor: index_select, take, take_along_dim.

(Index expressions, ``t[idx]``, are indexing.py's; gather and scatter along a dim: scatter.py.)

    >>> import torchlike
    >>> torchlike.tensor([[4, 3], [5, 6]]).take(torchlike.tensor([0, -1]))
    tensor([4, 6])
"""
from __future__ import annotations

import jax.numpy as jnp

from .. import _dtype
from . import checks as C
from .._errors import broadcast_shape
from ._util import Tensor, dispatch, register, wrap_dim
from .indexing import concrete_index
from .registry import STRUCTURED_OUT, check_no_overlap, write_out
from .scatter import gather

__all__ = ["index_select", "take", "take_along_dim"]


# --- index_select / take / take_along_dim -------------------------------------------------------
def _take_axis_impl(x, idx, dim):
    return jnp.take(x, idx, axis=dim, mode="clip") if x.ndim else jnp.take(x.reshape(1), idx)


@register(out=True, promote="none", out_overlap="any",
          out_same_dtype=lambda args, rd, od: "index_select(): self and result must have the same scalar type")
def index_select(input, dim, index):
    """Entries of ``input`` along ``dim`` at the positions in the 1-D ``index``.

    >>> import torchlike
    >>> torchlike.arange(6).reshape(2, 3).index_select(1, torchlike.tensor([2, 0]))
    tensor([[2, 0],
            [5, 3]])
    """
    d = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = input.shape[d] if input.ndim else 1
    v = concrete_index(index)
    if v is not None and v.size and (v.min() < 0 or v.max() >= n):
        if d == 0 or input.ndim <= 1:
            raise IndexError("index out of range in self")
        bad = v[(v < 0) | (v >= n)].reshape(-1)[0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad)} axis_dim={n}")
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    out = dispatch(_take_axis_impl, (input, index.reshape(-1)), (("dim", d),), name="IndexSelectBackward0",
                   saves=False)
    return out.reshape(()) if input.ndim == 0 else out   # a scalar stays a scalar


def _take_impl(x, idx):
    n = x.size
    return x.reshape(-1).at[jnp.where(idx < 0, idx + n, idx)].get(mode="promise_in_bounds")


def _take_out(out, input, index):
    if isinstance(input, Tensor) and isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_dtype._CAP[input.dtype.name]} and out.dtype = {_dtype._CAP[out.dtype.name]}")
    r = take(input, index)
    check_no_overlap(out, (input, index), r.shape)
    return write_out(out, r, "take")


@register(promote="none", out_form=_take_out)
def take(input, index):
    """``input`` treated as 1-D, read at ``index`` (negative indices count from the end).

    >>> import torchlike
    >>> torchlike.tensor([[4, 3], [5, 6]]).take(torchlike.tensor([0, -1]))
    tensor([4, 6])
    """
    try:
        dt = index.dtype
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("take", (index, "Tensor", "index", 1))
        raise
    if dt is not _dtype.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_dtype._CAP[index.dtype.name]}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    v = concrete_index(index)
    if v is not None and v.size:
        bad = (v < -n) | (v >= n)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {int(v[bad][0])} on a tensor of {n} elements.")
    return dispatch(_take_impl, (input, index), (), name="TakeBackward0", saves=False)


@register(out=True, out_same_dtype=STRUCTURED_OUT, promote="none", out_overlap="any")
def take_along_dim(input, indices, dim=None):
    """Gather along ``dim`` with ``indices`` broadcast against ``input`` (flattened when dim is None).

    >>> import torchlike
    >>> x = torchlike.tensor([[10, 30, 20], [60, 40, 50]])
    >>> torchlike.take_along_dim(x, x.argmax(1, keepdim=True), 1)
    tensor([[30],
            [60]])
    """
    if dim is None:  # (torch checks no dtype here: gather's check, which an empty index passes)
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices.dtype is not _dtype.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_dtype._CAP[indices.dtype.name]}")
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = wrap_dim(dim, input.ndim)
    si, sx = list(indices.shape), list(input.shape)
    si[d] = sx[d] = 1
    b = list(broadcast_shape(tuple(sx), tuple(si)))
    bi, bx = list(b), list(b)
    bi[d], bx[d] = indices.shape[d], input.shape[d]
    if input.shape[d]:   # with a dim, torch wraps every index modulo the size (negative ones included)
        indices = indices.remainder(input.shape[d])
    return gather(input.expand(tuple(bx)), d, indices.expand(tuple(bi)))
