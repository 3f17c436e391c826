"""Sorting and searching: sort/argsort/msort, topk, kthvalue, unique(_consecutive), searchsorted,
bucketize, bincount, histc, histogram.

    >>> import torchlike
    >>> torchlike.tensor([3, 1, 2]).sort()
    torch.return_types.sort(
    values=tensor([1, 2, 3]),
    indices=tensor([1, 2, 0]))
"""
from __future__ import annotations

import builtins as _b
import math
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .. import _memory_format as _mfmt
from .._errors import GraphBreak
from ..return_types import make
from .._dispatch import not_implemented_node
from .._mutation import write_out
from ._util import Tensor, as_tensor_arg, cast, dispatch, register, wrap_dim
from .registry import STRUCTURED_OUT
from .reduction import check_nonempty
from .signatures import Signature
from .._stl_order import REPLAY_LIMIT, quick_select_index, sort_orders, topk_order, uses_introsort
from .._errors import check_alloc, int_arg

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "bincount", "histc", "histogram"]


def _no_complex(input):
    if input.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")


def _order(x, axis, descending):
    """Stable argsort along ``axis`` with torch's order: NaN is the largest value, -0.0 ties 0.0,
    equal elements keep their input order (also when descending)."""
    k = x + jnp.zeros((), x.dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x
    if k.dtype == jnp.bool_:
        k = k.astype(jnp.uint8)
    return jnp.argsort(k, axis=axis, stable=True, descending=descending)


def _sort_impl(x, dim, descending):
    # Values gathered at the sort indices: jax.vjp scatters the gradient back through the indices,
    # as torch's sort backward does.
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = _order(x, dim, descending)
    return jnp.take_along_axis(x, idx, axis=dim), idx.astype(jnp.int64)


# From this many elements a CPU sort runs on the host: XLA's CPU sort costs ~0.2 us an element (4.6 ms for
# 16,384 floats, numpy's stable sort + the gather ~1.4 ms), but below it the host round trip (~100 us) loses.
_HOST_SORT_MIN = 2048


def _cpu_order(input, d, descending, stable):
    """The indices torch's CPU sort gives where XLA's stable sort would not give them or would be slow, as an
    int64 tensor computed on the host (numpy's stable sort; with ``stable=False`` equal keys replayed in
    torch's introsort order, see _stl_order); else None (XLA's stable sort).  Values JAX traces (compile,
    vmap) and other devices keep XLA's stable sort."""
    if input.ndim == 0 or input._dev.type != "cpu":
        return None
    replay = not stable and uses_introsort(tuple(input.shape), d, descending, input.dtype.np)
    small = input.numel() < _HOST_SORT_MIN
    x = input._value
    if small and not replay or isinstance(x, jax.core.Tracer):
        return None
    order = sort_orders(np.moveaxis(np.asarray(x), d, -1), bool(descending), replay, ties_only=small)
    return None if order is None else _wrap_np(np.moveaxis(order, -1, d), input, np.int64)


def _sort_by_impl(x, idx, dim):
    return jnp.take_along_axis(x, idx, axis=dim), idx


@register(out=True, out_overlap="partial")
@_mfmt.preserve_follows((0, "input"))
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along ``dim``; NaN sorts as the largest value; equal keys in torch's CPU
    order (their input order with ``stable=True`` or along at most 16 elements).

    >>> import torchlike
    >>> torchlike.sort(torchlike.tensor([2., float('nan'), 1.]), descending=True).indices
    tensor([1, 0, 2])
    """
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
    _no_complex(input)
    order = _cpu_order(input, d, descending, stable)
    if order is not None:
        v, i = dispatch(_sort_by_impl, (input, order), (("dim", d),), name="SortBackward0")
    else:
        v, i = dispatch(_sort_impl, (input,), (("dim", d), ("descending", bool(descending))), name="SortBackward0")
    return make("sort")(v, i)


def _argsort_impl(x, dim, descending):
    if x.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return _order(x, dim, descending).astype(jnp.int64)


@register(differentiable=False)
@_mfmt.preserve_follows((0, "input"))
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim`` (equal keys in torch's CPU order, as ``sort``).

    >>> import torchlike
    >>> torchlike.argsort(torchlike.tensor([3, 1, 2]))
    tensor([1, 2, 0])
    """
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
    _no_complex(input)
    order = _cpu_order(input, d, descending, stable)
    if order is not None:
        return order
    return dispatch(_argsort_impl, (input,), (("dim", d), ("descending", bool(descending))), diff=False)


@register(out=True, out_same_dtype=STRUCTURED_OUT, out_overlap="partial")
@_mfmt.preserve_follows((0, "input"))
def msort(input):
    """``sort(input, dim=0).values``.

    >>> import torchlike
    >>> torchlike.msort(torchlike.tensor([[3, 1], [1, 2]]))
    tensor([[1, 1],
            [3, 2]])
    """
    return sort(input, 0).values


def _topk_impl(x, k, dim, largest):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    if largest:   # XLA's TopK (~100x a full sort of a 50k-vocabulary row): NaN largest, equal values by index
        v, i = jax.lax.top_k(jnp.moveaxis(x, dim, -1), k)
        return jnp.moveaxis(v, -1, dim), jnp.moveaxis(i, -1, dim).astype(jnp.int64)
    idx = jax.lax.slice_in_dim(_order(x, dim, largest), 0, k, axis=dim)
    return jnp.take_along_axis(x, idx, axis=dim), idx.astype(jnp.int64)


@register(out=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the ``k`` largest (or smallest) elements along ``dim``, in sorted order.

    >>> import torchlike
    >>> torchlike.topk(torchlike.tensor([1., 5., 3.]), 2).values
    tensor([5., 3.])
    """
    k = int_arg(k, "k")
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype checks)
    _no_complex(input)
    if input.dtype is _dtype.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    v, i = dispatch(_topk_impl, (input,), (("k", int(k)), ("dim", d), ("largest", bool(largest))),
                    name="TopkBackward0")
    order = _cpu_topk_order(input, v, i, int(k), d, bool(largest), bool(sorted))
    if order is not None:
        v, i = dispatch(_sort_by_impl, (input, order), (("dim", d),), name="TopkBackward0")
    return make("topk")(v, i)


def host_rows(input, d):
    """``input``'s values on the host as rows along ``d`` (float types as float64), or None where torch's CPU
    order is not replayed (another device, a traced value: compile and vmap keep the stable order)."""
    x = input._value
    if input._dev.type != "cpu" or isinstance(x, jax.core.Tracer):
        return None
    rows = np.moveaxis(np.asarray(x), d, -1).reshape(-1, input.shape[d] if input.ndim else 1)
    return rows.astype(np.float64) if rows.dtype.kind in "fV" else rows


def _equal(a, b):
    """``a == b`` elementwise (broadcast), NaN equal to NaN: ties as torch's comparators see them."""
    eq = a == b
    if a.dtype.kind == "f":
        eq |= np.isnan(a) & np.isnan(b)
    return eq


def _cpu_topk_order(input, values, indices, k, d, largest, sorted):
    """The indices torch's CPU topk gives where they differ from the stable order's (equal values in or at
    the edge of the top k, or ``sorted=False`` when torch selects with nth_element), as an int64 tensor;
    else None.  Traced values (compile, vmap) keep the stable order."""
    n = input.shape[d] if input.ndim else 1
    rows = host_rows(input, d) if n > 3 and k else None
    if rows is None:
        return None
    if not sorted and k * 64 > n:
        todo = np.ones(rows.shape[0], bool)  # nth_element's order, ties or not
    else:
        top = np.moveaxis(np.asarray(values._value), d, -1).reshape(-1, k).astype(rows.dtype)
        kth = top[:, -1:]
        todo = _equal(top[:, 1:], top[:, :-1]).any(axis=1) | \
            (_equal(rows, kth).sum(axis=1) > _equal(top, kth).sum(axis=1))
    if not todo.any() or todo.sum() * n > REPLAY_LIMIT:
        return None
    out = np.moveaxis(np.asarray(indices._value), d, -1).reshape(-1, k).copy()
    for r in np.flatnonzero(todo):
        out[r] = topk_order(rows[r].tolist(), k, largest, sorted)
    shape = tuple(input.shape[:d]) + tuple(input.shape[d + 1:]) + (k,)
    return _wrap_np(np.moveaxis(out.reshape(shape), -1, d), input, np.int64)


def _kth_impl(x, k, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = jax.lax.slice_in_dim(_order(x, dim, False), k - 1, k, axis=dim)
    v = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        v, idx = jnp.squeeze(v, dim), jnp.squeeze(idx, dim)
    return v, idx.astype(jnp.int64)


@register(out=True, out_overlap="any")
def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the ``k``-th smallest element (1-based) along ``dim``.

    >>> import torchlike
    >>> torchlike.kthvalue(torchlike.tensor([4., 1., 3.]), 2).values
    tensor(3.)
    """
    k = int_arg(k, "k")
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype checks)
    if input.dtype is _dtype.bool or input.dtype.is_complex:
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    check_nonempty(input, (d,), "kthvalue")
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    v, i = dispatch(_kth_impl, (input,), (("k", int(k)), ("dim", d), ("keepdim", bool(keepdim))),
                    name="KthvalueBackward0")
    idx = _cpu_kth_indices(input, v, int(k), d)
    if idx is not None:
        v, i = dispatch(select_at_impl, (input, idx), (("dim", d), ("keepdim", bool(keepdim))),
                        name="KthvalueBackward0")
    return make("kthvalue")(v, i)


def _cpu_kth_indices(input, values, k, d):
    """The indices torch's CPU kthvalue picks among values equal to the k-th (its quickselect's, see
    _stl_order), with the reduced dim kept, where the k-th value repeats; else None."""
    n = input.shape[d] if input.ndim else 1
    rows = host_rows(input, d) if n > 2 else None
    if rows is None:
        return None
    same = _equal(rows, np.asarray(values._value).reshape(-1, 1).astype(rows.dtype))
    todo = same.sum(axis=1) > 1
    if not todo.any() or todo.sum() * n > REPLAY_LIMIT:
        return None
    shape = tuple(input.shape[:d]) + tuple(input.shape[d + 1:])
    out = np.argmax(same, axis=1)
    for r in np.flatnonzero(todo):
        out[r] = quick_select_index(rows[r].tolist(), k - 1)
    return _wrap_np(np.expand_dims(out.reshape(shape), d), input, np.int64)


def select_at_impl(x, idx, dim, keepdim):
    """``x``'s values at ``idx`` (the reduced dim kept) and the indices: kthvalue / mode at chosen indices."""
    vals = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx


# --- unique (data-dependent shapes: computed eagerly with numpy) ------------------------------
def _np(t, op=None):
    # ``op`` starts the GraphBreak's text: torchlike.func.vmap turns it into torch's message for that aten op
    if op is not None and isinstance(t._value, jax.core.Tracer):
        raise GraphBreak(f"{op} has a data-dependent output shape and needs concrete values")
    return np.asarray(t._value)


def _wrap_np(a, like, dtype=None):
    return Tensor._wrap(jnp.asarray(a, dtype=dtype if dtype is not None else like.dtype.np), like._dev)


def _unique_result(input, vals, inverse, counts, return_inverse, return_counts, inv_shape):
    out = _wrap_np(vals, input)
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        res.append(_wrap_np(np.asarray(inverse, np.int64).reshape(inv_shape), input, np.int64))
    if return_counts:
        res.append(_wrap_np(np.asarray(counts, np.int64), input, np.int64))
    return tuple(res)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The sorted unique elements (or slices along ``dim``), optionally with inverse indices and counts.

    >>> import torchlike
    >>> torchlike.unique(torchlike.tensor([3, 1, 3, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    a = _np(input, "unique()" if dim is None else "unique(dim=...)")
    if dim is None:
        flat = a.reshape(-1)
        vals, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        return _unique_result(input, vals, inv, cnt, return_inverse, return_counts, a.shape)
    d = wrap_dim(dim, input.ndim)
    moved = np.moveaxis(a, d, 0)
    n = moved.shape[0]
    if n == 0:
        return _unique_result(input, a, np.zeros(0), np.zeros(0), return_inverse, return_counts, (0,))
    rows = moved.reshape(n, -1)
    # lexicographic order of the slices (torch sorts slices the same way), stable
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(n)
    sr = rows[order]
    new = np.ones(n, bool)
    if rows.shape[1]:
        new[1:] = np.any(sr[1:] != sr[:-1], axis=1)
    else:
        new[1:] = False
    grp = np.cumsum(new) - 1
    inv = np.empty(n, np.int64)
    inv[order] = grp
    starts = np.flatnonzero(new)
    cnt = np.diff(np.append(starts, n))
    vals = np.moveaxis(moved[order[starts]], 0, d)
    return _unique_result(input, vals, inv, cnt, return_inverse, return_counts, (n,))


_UNIQUE_FLAGS = "*, bool sorted=True, bool return_inverse=False, bool return_counts=False"
_UNIQUE2 = Signature("_unique2", [f"Tensor self, {_UNIQUE_FLAGS}"])
_UNIQUE_DIM = Signature("unique_dim", [f"Tensor self, int dim, {_UNIQUE_FLAGS}"])


class _UniqueParser:
    """``torch.unique`` (and ``Tensor.unique``) is Python in torch: it passes its flags by keyword to
    ``torch._unique2``, or with a dim to ``unique_dim(input, dim, ...)``, whose parser errors name those (no position
    for a flag); the op table's failure paths consult this as the op's signatures."""

    def error(self, args, kwargs, name=None):
        names = ("input", "sorted", "return_inverse", "return_counts", "dim")
        given = dict(zip(names, args))
        if len(args) > len(names) or set(kwargs) - set(names) or set(given) & set(kwargs):
            return None  # (Python's own arity error stands, as torch's)
        given.update(kwargs)
        input, dim = given.pop("input", None), given.pop("dim", None)
        err = _UNIQUE2.error((input,), given) if dim is None else _UNIQUE_DIM.error((input, dim), given)
        if err is None:
            return None
        err = TypeError(err.as_function)  # (the same words for the method: torch's goes through torch.unique)
        err.as_function = str(err)
        return err


unique.torch_signature = _UniqueParser()
unique = register(differentiable=False)(unique)


@register(differentiable=False)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``).

    >>> import torchlike
    >>> torchlike.unique_consecutive(torchlike.tensor([1, 1, 2, 2, 1]))
    tensor([1, 2, 1])
    """
    a = _np(input, "unique_consecutive()")
    if dim is None:
        moved, inv_shape = a.reshape(-1, 1), a.shape
        d = None
    else:
        d = wrap_dim(dim, input.ndim)
        moved = np.moveaxis(a, d, 0)
        inv_shape = (moved.shape[0],)
    n = moved.shape[0]
    rows = moved.reshape(n, math.prod(moved.shape[1:]))  # not -1: an empty input has no size to infer
    new = np.ones(n, bool)
    if n:
        new[1:] = np.any(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else False
    inv = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    cnt = np.diff(np.append(starts, n))
    vals = a.reshape(-1)[starts] if d is None else np.moveaxis(moved[starts], 0, d)
    return _unique_result(input, vals, inv, cnt, return_inverse, return_counts, inv_shape)


# --- searchsorted / bucketize ------------------------------------------------------------------
def _searchsorted_impl(seq, v, sorter, side, dt, out_dt, nd):
    seq, v = cast(seq, dt), cast(v, dt)
    if sorter is not None:
        seq = jnp.take_along_axis(seq, sorter, axis=-1)
    if nd == 1:
        r = _bsearch(seq[None], v.reshape((1, -1)), side).reshape(v.shape)
    else:
        lead = seq.shape[:-1]
        rows = math.prod(lead)  # (not -1: an empty batch has no size to infer)
        s2 = seq.reshape((rows, seq.shape[-1]))
        v2 = v.reshape((rows, v.shape[-1]))
        r = _bsearch(s2, v2, side).reshape(lead + v.shape[-1:])
    return r.astype(out_dt)


def _bsearch(s2, v2, side):
    """torch's binary search of each row of ``v2`` in the row of ``s2``: left goes right while
    ``!(s[mid] >= v)``, right while ``!(s[mid] > v)``, so a NaN (in either) moves right as in torch's kernel (numpy's
    ordering sorts NaN last instead)."""
    n = s2.shape[-1]
    start = jnp.zeros(v2.shape, jnp.int64)
    if n == 0:
        return start
    end = jnp.full(v2.shape, n, jnp.int64)
    for _ in range(n.bit_length()):  # (enough halvings of a range of n + 1 positions)
        active = start < end
        mid = start + ((end - start) >> 1)
        m = jnp.take_along_axis(s2, jnp.minimum(mid, n - 1), axis=-1)
        go = ~(m > v2) if side == "right" else ~(m >= v2)
        start = jnp.where(active & go, mid + 1, start)
        end = jnp.where(active & ~go, mid, end)
    return start


def _searchsorted_call(seq, values, right, side, sorter, out_int32, name):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(f"{name}(): side and right can't be set to opposites, got side of left while "
                               "right was True")
        right = side == "right"
    if seq.ndim == 0:
        raise RuntimeError(f"{name}(): boundaries tensor should have positive dimension, but got 0 dimension")
    scalar = not isinstance(values, Tensor)
    v = as_tensor_arg(values)
    if seq.ndim > 1 and (scalar or tuple(seq.shape[:-1]) != tuple(v.shape[:-1])):
        raise RuntimeError(f"{name}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                           f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(v.shape)}")
    if sorter is not None:
        if sorter.dtype is not _dtype.int64:
            raise RuntimeError(f"{name}(): sorter must be a tensor of long dtype but got "
                               f"{_dtype._CAP[sorter.dtype.name]}")
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError(f"{name}(): boundary and sorter must have the same size, but got boundary tensor "
                               f"{list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
    dt = _dtype.result_type(seq, values)
    if dt.is_complex or dt is _dtype.bool:  # (torch's kernel dispatches on the common type)
        raise NotImplementedError(f'"searchsorted_out_cpu" not implemented for \'{_dtype._CAP[dt.name]}\'')
    out_dt = np.dtype(np.int32 if out_int32 else np.int64)
    return dispatch(_searchsorted_impl, (seq, v, sorter), (("side", "right" if right else "left"), ("dt", dt.np),
                                                          ("out_dt", out_dt), ("nd", seq.ndim)), diff=False)


def _searchsorted_out(fn):
    def out_form(out, *args, out_int32=False, **kwargs):
        """torch's out= check of searchsorted and bucketize: out is int32 with out_int32, else int64."""
        r = fn(*args, out_int32=out_int32, **kwargs)
        if out.dtype is not (_dtype.int32 if out_int32 else _dtype.int64):
            raise RuntimeError(f"torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
                               f"Long(int64) depending on whether out_int32 flag is True, but we got output "
                               f"tensor's dtype {_dtype._CAP[out.dtype.name]} and out_int32 flag is "
                               f"{bool(out_int32)}")
        return write_out(out, r, fn.__name__)
    return out_form


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion indices of ``input`` into the innermost dim of ``sorted_sequence``.

    >>> import torchlike
    >>> torchlike.searchsorted(torchlike.tensor([1, 3, 5]), torchlike.tensor([3, 6]))
    tensor([1, 3])
    """
    return _searchsorted_call(sorted_sequence, input, right, side, sorter, out_int32, "torch.searchsorted")


register(method=False, differentiable=False, out_form=_searchsorted_out(searchsorted))(searchsorted)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """Bucket index of each element for 1-D ``boundaries`` (``right=False``: b[i-1] < x <= b[i]).

    >>> import torchlike
    >>> torchlike.bucketize(torchlike.tensor([1, 4]), torchlike.tensor([1, 3, 5]))
    tensor([0, 2])
    """
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _searchsorted_call(boundaries, input, right, None, None, out_int32, "torch.bucketize")


register(method=False, differentiable=False, out_form=_searchsorted_out(bucketize))(bucketize)



def _index_dtype_check(t, kernel):
    if t.dtype._kind != 1:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[t.dtype.name]}\'')


@register(method=False, differentiable=False)
def _convert_indices_from_coo_to_csr(input, size, *, out_int32=False):
    """Compressed row pointers of sorted COO row indices: entry ``i`` of the ``size + 1`` counts the indices below
    ``i`` (torch_geometric's ``index2ptr``).

    >>> import torchlike
    >>> torchlike._convert_indices_from_coo_to_csr(torchlike.tensor([0, 0, 2]), 3)
    tensor([0, 2, 2, 3])
    """
    _index_dtype_check(input, "convert_indices_from_coo_to_csr_cpu")
    rows = Tensor._wrap(jnp.arange(int(size) + 1, dtype=input.dtype.np), input._dev)
    return _searchsorted_call(input, rows, False, None, None, out_int32, "torch.searchsorted")


@register(method=False, differentiable=False)
def _convert_indices_from_csr_to_coo(crow_indices, col_indices, *, out_int32=False, transpose=False):
    """The (2, nnz) COO indices of CSR ``crow_indices``/``col_indices`` (rows first; columns first if ``transpose``).

    >>> import torchlike
    >>> torchlike._convert_indices_from_csr_to_coo(torchlike.tensor([0, 2, 3]), torchlike.tensor([1, 0, 1]))
    tensor([[0, 0, 1],
            [1, 0, 1]])
    """
    _index_dtype_check(crow_indices, "convert_indices_from_csr_to_coo_cpu")
    crow = np.asarray(_np(crow_indices, "_convert_indices_from_csr_to_coo()"), np.int64)
    dt = np.int32 if out_int32 else np.int64
    rows = np.repeat(np.arange(len(crow) - 1), np.diff(crow)).astype(dt)
    cols = np.asarray(_np(col_indices), dt)
    return _wrap_np(np.stack([cols, rows] if transpose else [rows, cols]), crow_indices, dt)

# --- bincount / histc / histogram --------------------------------------------------------------
def _bincount_impl(x, w, length, dt):
    return jnp.bincount(x, None if w is None else cast(w, dt), length=length).astype(dt)


@register(differentiable="bincount")
def bincount(input, weights=None, minlength=0):
    """Counts (or summed ``weights``) of each non-negative integer; length max(input) + 1 or ``minlength``.

    >>> import torchlike
    >>> torchlike.bincount(torchlike.tensor([0, 2, 2]))
    tensor([1, 0, 2])
    """
    if input.dtype._kind != 1:
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    a = _np(input)
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    check_alloc((max(int(minlength), int(a.max()) + 1 if a.size else 0),), 8)
    length = _b.max(int(a.max()) + 1 if a.size else 0, int(minlength))
    if weights is None:
        dt = np.dtype(np.int64)
    else:
        dt = np.dtype(np.float32 if weights.dtype is _dtype.float32 else np.float64)
    return dispatch(_bincount_impl, (input, weights), (("length", length), ("dt", dt)), diff="bincount")


def _outer_edges(input, lo, hi, name):
    """torch's select_outer_bin_edges: the data range when lo == hi, widened by 1 when degenerate."""
    lo, hi = float(lo), float(hi)
    if lo > hi:
        raise RuntimeError(f"{name}: max must be larger than min")
    if lo == hi and input.numel():
        a = _np(input)
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"{name}: range of [{lo}, {hi}] is not finite")
    return lo, hi


def _histogram_range(input, rng):
    """torch.histogram's outer edges: ``range`` as given, else the data range ([0, 1] when empty);
    a degenerate range is widened by 0.5 on each side (histc widens by 1)."""
    if rng is None:
        lo, hi = (float(_np(input).min()), float(_np(input).max())) if input.numel() else (0.0, 1.0)
    else:
        lo, hi = float(rng[0]), float(rng[1])
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                               "dimension 0")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _auto_edges_impl(x, d, n):
    """_histogram_range + _linspace_np for range=None, in JAX (no finiteness check: values are traced)."""
    dt = x.dtype
    if x.size:
        lo, hi = jnp.min(x).astype(jnp.float64), jnp.max(x).astype(jnp.float64)
    else:
        lo, hi = jnp.float64(0.0), jnp.float64(1.0)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 0.5, lo).astype(dt), jnp.where(same, hi + 0.5, hi).astype(dt)
    step = (hi - lo) / d.astype(dt) if n > 1 else jnp.asarray(0, dt)
    i = jnp.arange(n)
    # (edges may differ from the eager numpy path by an ulp: torch's own linspace rounding varies too)
    return jnp.where(i < n // 2, lo + step * i.astype(dt), hi - step * (n - 1 - i).astype(dt)).astype(dt)


def _histc_impl(x, lo, hi, bins):
    dt = x.dtype
    x = x.reshape(-1)
    lo, hi = cast(lo, dt), cast(hi, dt)
    inside = (x >= lo) & (x <= hi)
    # torch: pos = (elt - leftmost) * bins / (rightmost - leftmost), in the input dtype
    pos = ((x - lo) * cast(bins, dt) / (hi - lo))
    pos = jnp.where(inside, pos, 0).astype(jnp.int64)
    pos = jnp.where(pos == bins, bins - 1, pos)
    return jnp.zeros(bins, dt).at[pos].add(inside.astype(dt))


def check_histogram_dtypes(input, bins, auto, op="histogramdd", weight=None, shape=None):
    """torch's histogram checks, in its order. ``auto``: int bins without a range (edges from the data), where
    torch's range step dispatches over float32/float64 only ("histogramdd") before any other check; int bins
    make bool's edges through linspace ("linspace_cpu"); then each edge tensor and ``weight`` must have the
    input's dtype, ``weight`` the shape ``shape`` (the input seen as rows) without its last dim; then the kernel
    ("histogram_cpu") takes floating types only. ``op`` "histc": torch's min/max step instead of the range step."""
    dt = input.dtype
    c = _dtype.C_NAMES
    name = None
    if dt not in (_dtype.float32, _dtype.float64) and auto and input.numel():
        name = ("aminmax_cpu" if dt.is_complex else None) if op == "histc" else "histogramdd"
    if name is None and dt is _dtype.bool and any(not isinstance(b, Tensor) for b in bins):
        name = "linspace_cpu"
    if name is not None:
        raise NotImplementedError(f'"{name}" not implemented for \'{_dtype._CAP[dt.name]}\'')
    for d, b in enumerate(bins):
        if isinstance(b, Tensor) and b.dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
                               f"got input with dtype {c[dt.name]} and bins for dimension {d} with dtype "
                               f"{c[b.dtype.name]}")
    if weight is not None:
        if weight.dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                               f"should have the same dtype, but got input({c[dt.name]}), and "
                               f"weight({c[weight.dtype.name]})")
        shape = tuple(input.shape) if shape is None else tuple(shape)
        if tuple(weight.shape) != shape[:-1]:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same shape as "
                               f"the input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(shape)} and weight with shape {list(weight.shape)}")
    if not dt.is_floating_point:
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{_dtype._CAP[dt.name]}\'')


@register(out=True, differentiable=False)
def histc(input, bins=100, min=0, max=0):
    """Histogram with ``bins`` equal bins over [min, max] (the data range when min == max).

    >>> import torchlike
    >>> torchlike.histc(torchlike.tensor([1., 2., 1.]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    check_histogram_dtypes(input, [bins], float(min) == float(max), "histc")
    bins = int_arg(bins, "bins")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    check_alloc((int(bins),), input.dtype)
    lo, hi = _outer_edges(input, min, max, "torch.histc")
    # edges are stored in the input dtype, so the range is rounded to it first
    lo, hi = float(np.asarray(lo, input.dtype.np)), float(np.asarray(hi, input.dtype.np))
    return dispatch(_histc_impl, (input, lo, hi), (("bins", int(bins)),), diff=False)


def _linspace_np(lo, hi, n, dt):
    # torch.linspace's formula: the first half steps up from start, the second half down from end
    step = (np.asarray(hi, dt) - np.asarray(lo, dt)) / np.asarray(n - 1, dt) if n > 1 else np.asarray(0, dt)
    i = np.arange(n)
    half = n // 2
    return np.where(i < half, np.asarray(lo, dt) + step * i.astype(dt),
                    np.asarray(hi, dt) - step * (n - 1 - i).astype(dt)).astype(dt)


def _histogram_impl(x, edges, w, density):
    dt = x.dtype
    x = x.reshape(-1)
    nb = edges.shape[0] - 1
    inside = (x >= edges[0]) & (x <= edges[-1])
    pos = jnp.searchsorted(edges, x, side="right") - 1
    pos = jnp.clip(jnp.where(pos == nb, nb - 1, pos), 0, nb - 1)
    wt = inside.astype(dt) if w is None else jnp.where(inside, cast(w.reshape(-1), dt), 0)
    hist = jnp.zeros(nb, dt).at[pos].add(wt)
    if density:
        hist = hist / (jnp.sum(hist) * (edges[1:] - edges[:-1]))
    return hist


@register(differentiable="histogram", out=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): ``bins`` (100 by default, as torch) equal bins over ``range`` (default: data range), or explicit edges.

    >>> import torchlike
    >>> torchlike.histogram(torchlike.tensor([1., 2., 1.]), bins=2).hist
    tensor([2., 1.])
    """
    check_histogram_dtypes(input, [bins], range is None and not isinstance(bins, Tensor),  # (torch: rows of 1)
                           weight=None if weight is None else weight.reshape(-1), shape=(input.numel(), 1))
    if isinstance(bins, Tensor):
        edges = bins
    else:
        if not isinstance(bins, numbers.Integral) or bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is None and isinstance(input._value, jax.core.Tracer):
            # under compile the data range stays on device: edges are computed in the same program
            edges = dispatch(_auto_edges_impl, (input, int(bins)), (("n", int(bins) + 1),), diff=False)
        else:
            lo, hi = _histogram_range(input, range)
            edges = _wrap_np(_linspace_np(lo, hi, int(bins) + 1, input.dtype.np), input)
    hist = dispatch(_histogram_impl, (input, edges, weight), (("density", bool(density)),), diff=False)
    return make("histogram")(*not_implemented_node("histogram", (input, bins, weight), (hist, edges)))
