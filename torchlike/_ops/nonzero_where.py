"""nonzero / nonzero_static / argwhere (data-dependent shapes, computed eagerly with numpy) and where.

    >>> import torchlike
    >>> torchlike.nonzero(torchlike.tensor([0, 3, 0, 4])).flatten().tolist()
    [1, 3]
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.interpreters import batching as _batching

from .. import _dtype
from .. import _memory_format as _mfmt
from .._errors import GraphBreak, torch_warn, tp_name
from ._util import Tensor, cast, dispatch, register
from .indexing import concrete_index
from .._scalar_fit import check_numbers_fit
from .._mutation import write_out
from .._dispatch import HOST_DTYPES, host_number, host_operand

__all__ = ["nonzero", "nonzero_static", "argwhere", "where"]


# --- nonzero / argwhere / where ------------------------------------------------------------------
def _nonzero_np(input, op="nonzero()"):
    # ``op`` starts the GraphBreak's text: torchlike.func.vmap turns it into torch's message for that aten op
    x = concrete_index(input)
    if x is None:
        raise GraphBreak(f"{op} has a data-dependent output shape and needs concrete values")
    return np.argwhere(x).astype(np.int64)


def _per_example(a, n):
    """torch's batched fallback over the ``n`` leading batch dims of ``a`` (outermost first): argwhere per
    example, stacked level by level from the innermost vmap out, with torch's stack error on a size mismatch."""
    if n == 0:
        return np.argwhere(a).astype(np.int64)
    parts = [_per_example(a[(slice(None),) * (n - 1) + (j,)], n - 1) for j in range(a.shape[n - 1])]
    for i, p in enumerate(parts):
        if p.shape != parts[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(parts[0].shape)} "
                               f"at entry 0 and {list(p.shape)} at entry {i}")
    return np.stack(parts, axis=n - 1)


def _argwhere_per_example(input):
    """torch.func.vmap's fallback for argwhere (no batching rule): run it per example and stack; None unless
    ``input`` is batched by (possibly nested) vmaps over concrete values."""
    x, traces = input._value, []
    while isinstance(x, _batching.BatchTracer):
        if not isinstance(x.batch_dim, int):
            return None
        traces.append((x._trace, x.batch_dim))
        x = x.val
    if not traces or isinstance(x, jax.core.Tracer):
        return None
    a = np.asarray(x)
    for k, (_, bd) in enumerate(reversed(traces)):  # batch dims to the front, outermost vmap first
        a = np.moveaxis(a, k + bd, k)
    r = jnp.asarray(_per_example(a, len(traces)))
    for tr, _ in reversed(traces):
        r = _batching.BatchTracer(tr, r, 0)
    return Tensor._wrap(r, input._dev)


def _wrap_np(a, like):
    return Tensor._wrap(jnp.asarray(a), like._dev)


def _nonzero_out(out, input, *, as_tuple=False):
    if as_tuple is True:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    if out.dtype is not _dtype.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{_dtype._CAP[out.dtype.name]}")
    return write_out(out, nonzero(input, as_tuple=as_tuple), "nonzero")


@register(differentiable=False, promote="none", out_form=_nonzero_out)
def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero entries: an (n, ndim) int64 tensor, or one 1-D tensor per dim.

    >>> import torchlike
    >>> torchlike.tensor([0, 3, 0, 4]).nonzero()
    tensor([[1],
            [3]])
    """
    if as_tuple is not False and as_tuple is not True:
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {tp_name(as_tuple)}")
    if as_tuple:
        return _nonzero_tuple(input, "nonzero(as_tuple=True)")
    return _index_matrix(_wrap_np(_nonzero_np(input), input))


def _index_matrix(r):
    """torch's CPU nonzero writes the (n, ndim) indices column by column: strides (1, n)."""
    return _mfmt.set_strides(r, (1, r.shape[0]))


def _nonzero_tuple(input, op):
    nz = _nonzero_np(input, op)
    if input.ndim == 0:
        return (_wrap_np(nz[:, :1].reshape(-1) if nz.shape[0] == 0 else np.zeros(1, np.int64), input),)
    return tuple(_wrap_np(np.ascontiguousarray(nz[:, d]), input) for d in range(input.ndim))


def _nonzero_static_impl(x, fill, size):
    nd = max(x.ndim, 1)
    idx = jnp.nonzero(x.reshape(x.shape or (1,)), size=size, fill_value=-1)
    out = jnp.stack(idx, axis=1).astype(jnp.int64) if size else jnp.zeros((0, nd), jnp.int64)
    valid = jnp.arange(size) < jnp.count_nonzero(x)
    out = jnp.where(valid[:, None], out, jnp.asarray(fill, jnp.int64))
    return out if x.ndim else out[:, :0]


@register(differentiable=False, promote="none")
def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows; traceable.

    >>> import torchlike
    >>> torchlike.tensor([0, 3, 4]).nonzero_static(size=3)
    tensor([[ 1],
            [ 2],
            [-1]])
    """
    if int(size) < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return dispatch(_nonzero_static_impl, (input, int(fill_value)), (("size", int(size)),), name="NonzeroStatic",
                    diff=False)


@register(differentiable=False, promote="none")
def argwhere(input):
    """Same as ``nonzero(input)``: an (n, ndim) tensor of the indices of non-zero entries.

    >>> import torchlike
    >>> torchlike.argwhere(torchlike.tensor([1, 0, 1]))
    tensor([[0],
            [2]])
    """
    r = _argwhere_per_example(input)
    return r if r is not None else _index_matrix(_wrap_np(_nonzero_np(input), input))


def _where_impl(c, x, y, dt):
    return jnp.where(c, cast(x, dt), cast(y, dt))


_BOOL = np.dtype(bool)


def _host_where(c, input, other, dev):
    """``where`` of a host-resident bool condition ``c`` when ``input`` is a host-resident tensor of c's shape and
    ``other`` one of the same dtype and shape, or a Python number that keeps ``input``'s dtype
    (``_dispatch.host_number``): numpy's ``where``, a host tensor.  None otherwise (the general path)."""
    x = host_operand(input)
    if x is None or x.shape != c.shape or x.dtype not in HOST_DTYPES:
        return None
    if type(other) is Tensor:
        y = host_operand(other)
        if y is None or y.dtype is not x.dtype or y.shape != c.shape or other._dev != dev:
            return None
    else:
        y = host_number(x.dtype, other)
        if y is None:
            return None
    if input._dev != dev:
        return None
    r = np.where(c, x, y)
    return Tensor._from_host(r if type(r) is np.ndarray else np.asarray(r), dev)


@register(method=False, out=True, promote="result_type", out_overlap="partial",
          out_same_dtype=lambda args, rd, od: f"Expected out type to be {_dtype._CAP[rd.name]} but got "
                                              f"{_dtype._CAP[od.name]}")
@_mfmt.pointwise_follows((0, "condition"), (1, "input"), (2, "other"))
def where(condition, input=None, other=None):
    """``input`` where ``condition`` else ``other`` (broadcast, torch promotion); one argument ->
    ``nonzero(condition, as_tuple=True)``.

    >>> import torchlike
    >>> torchlike.where(torchlike.tensor([True, False]), torchlike.tensor([1, 2]), 0.5)
    tensor([1.0000, 0.5000])
    """
    if input is None and other is None:
        return _nonzero_tuple(condition, "where(condition)")
    c = host_operand(condition)
    if c is not None and c.dtype is _BOOL:  # host tensors: numpy's where (see _host_where)
        r = _host_where(c, input, other, condition._dev)
        if r is not None:
            return r
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, Tensor)")
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                        f"{type(condition).__name__}")
    if condition.dtype is not _dtype.bool and condition.dtype is not _dtype.uint8:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_dtype._CAP[condition.dtype.name]}")
    if condition.dtype is _dtype.uint8:
        torch_warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                   "future version of PyTorch. Use a boolean condition instead.",
                   "aten/src/ATen/native/TensorCompare.cpp:621", once=True)
    dt = _dtype.result_type(input, other)
    check_numbers_fit(dt, input, other)
    return dispatch(_where_impl, (condition, input, other), (("dt", dt.np),), name="WhereBackward0", saves=False)


@register("where", namespaces=(), promote="none")
def _where_method(self, condition, other):
    return where(condition, self, other)

