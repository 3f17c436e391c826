"""Sparse kernels: construction, coalesce, to_dense, sparse @ dense, sum, softmax, elementwise with scalars.

Each kernel is a dense JAX function of the values (and of the dense operand) with the indices passed as
constant integer arrays, run through the eager dispatcher, so autograd differentiates it like any dense op.
``sparse @ dense`` is a gather of the dense rows and a ``segment_sum`` into the output rows.
"""
from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .. import _creation, _dtype
from .._dispatch import dispatch
from .._ops.signatures import parses
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csr
from ..tensor import Tensor
from ._tensor import (SparseTensor, _gather, _idx_tensor, _linear, first_per_position,  # noqa: F401
                      implicit_invariant_checks, make_sparse, unsupported, values_at)  # (_gather, first_per_position, values_at: re-exported)
from .._ops.matmul import mm as dense_mm
from .._ops.shape import cat as _dense_cat
from .._ops.special import log_softmax as _dense_log_softmax, softmax as _dense_softmax

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "to_sparse", "to_sparse_csr", "to_dense", "coalesce",
           "mm", "sum", "softmax", "log_softmax", "transpose", "add", "mul", "div", "first_per_position",
           "values_at"]


# ---- pure JAX kernels (indices are int arrays, sizes are static) ----------------------------------------
def _scatter_dense(idx, vals, *, shape):
    return jnp.zeros(shape, vals.dtype).at[tuple(idx)].add(vals)


def _segsum(vals, seg, *, n):
    return jax.ops.segment_sum(vals, seg, num_segments=n)


def _spmm(vals, d, rows, cols, *, m):
    v = vals.reshape(vals.shape + (1,) * (d.ndim - 1))
    return jax.ops.segment_sum(v * d[cols], rows, num_segments=m)


def _dsmm(d, vals, rows, cols, *, n):
    out = jax.ops.segment_sum(vals[:, None] * d.T[rows], cols, num_segments=n)
    return out.T


def _seg_softmax(vals, seg, *, n, log):
    m = jax.ops.segment_max(vals, seg, num_segments=n)
    z = vals - jax.lax.stop_gradient(m)[seg]
    s = jax.ops.segment_sum(jnp.exp(z), seg, num_segments=n)
    return z - jnp.log(s)[seg] if log else jnp.exp(z) / s[seg]


# ---- the compressed layouts' conversions, filled by sparse._compressed when it loads (it is built on this
# module, so this one cannot import it): layout -> to_layout(x, blocksize, dense_dim) for CSC/BSR/BSC, and
# layout -> densify(x) for the blocked layouts
to_layout = {}
densify = {}


# ---- helpers --------------------------------------------------------------------------------------------
def _identity(v):
    return v


def _own_values(v, node_name):
    """Values for a new sparse tensor: shared with the caller's tensor (a detached alias, so flags such as
    requires_grad stay separate), or, when they carry gradient, behind a node named as torch's."""
    if v.requires_grad:
        return dispatch(_identity, (v,), name=node_name, saves=False)
    return v.detach()


def _as_tensor(x, dtype=None, device=None):
    if isinstance(x, Tensor):
        return x if dtype is None else x.to(dtype)
    return _creation.tensor(x, dtype=dtype, device=device)


# ---- construction ---------------------------------------------------------------------------------------
_COO_KEYWORDS = ("*, ScalarType? dtype=None, Device? device=None, bool pin_memory=False, bool requires_grad=False, "
                 "bool? check_invariants=None, bool? is_coalesced=None")


@parses(f"object indices, object values, {_COO_KEYWORDS}", f"object indices, object values, int[] size, {_COO_KEYWORDS}",
        "int[] size, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, "
        "bool? check_invariants=None")
def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values`` at ``indices`` (torch.sparse_coo_tensor); duplicates are summed by
    ``coalesce()``.

    >>> import torchlike as torch
    >>> s = torch.sparse_coo_tensor([[0, 1, 0], [1, 0, 1]], [1., 2., 3.], (2, 2))
    >>> s.coalesce().values()
    tensor([4., 2.])
    """
    implicit_invariant_checks(check_invariants)
    if indices is None and values is None:
        if size is None:
            raise TypeError("sparse_coo_tensor() missing required argument 'size'")
        indices = np.zeros((len(size), 0), np.int64)
        values = _creation.zeros(0, dtype=dtype or _dtype.get_default_dtype(), device=device)
    elif values is None:
        if size is None and isinstance(indices, (tuple, list)) and all(isinstance(n, int) for n in indices):
            return sparse_coo_tensor(None, None, tuple(indices), dtype=dtype, device=device,
                                     requires_grad=requires_grad, check_invariants=check_invariants)  # (size)
        raise RuntimeError("Could not infer dtype of NoneType")  # (torch's: values=None met as data)
    v = _as_tensor(values, dtype, device)
    if dtype is not None and v.dtype is not dtype:
        v = v.to(dtype)
    if device is not None:
        v = v.to(device)
    i = _as_tensor(indices, device=v.device)
    if i.dtype is not _dtype.int64:
        i = i.to(_dtype.int64)
    if i.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(i.shape)}")
    sd, nnz = i.shape
    if v.ndim == 0:  # torch reads a 0-d value as one value
        v = v.reshape(1)
    if v.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {v.shape[0]}")
    ii = np.asarray(i._value)
    if size is None:
        if nnz == 0:
            raise RuntimeError("sparse_coo_tensor() needs an explicit size when there are no values")
        size = tuple(int(m) + 1 for m in ii.max(axis=1)) + tuple(v.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sd + v.ndim - 1:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sd}, dense_dim = {v.ndim - 1}")
    if tuple(v.shape[1:]) != size[sd:]:
        raise RuntimeError(f"values has incorrect size, expected {list((nnz,) + size[sd:])}, got "
                           f"{list(v.shape)}")
    if nnz:
        lo, hi = ii.min(axis=1), ii.max(axis=1)
        for d in range(sd):
            if lo[d] < 0:
                raise RuntimeError(f"found negative index {lo[d]} for dim {d}")
            if hi[d] >= size[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but "
                                   f"found index {hi[d]}")
    v = _own_values(v, "SparseCooTensorWithDimsAndTensorsBackward0")
    if requires_grad:
        v = v.detach().requires_grad_()
    t = make_sparse(i, v, size, sparse_coo, bool(is_coalesced) if is_coalesced is not None else nnz <= 1)
    t._np_idx = ii
    return t


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """A sparse CSR tensor (torch.sparse_csr_tensor): row ``r``'s values are
    ``values[crow_indices[r]:crow_indices[r + 1]]`` in the columns ``col_indices`` of that range.

    >>> import torchlike as torch
    >>> torch.sparse_csr_tensor([0, 1, 2], [1, 0], [5., 6.], (2, 2)).to_dense()
    tensor([[0., 5.],
            [6., 0.]])
    """
    implicit_invariant_checks(check_invariants)
    v = _as_tensor(values, dtype, device)
    if device is not None:
        v = v.to(device)
    crow = _as_tensor(crow_indices, device=v.device).to(_dtype.int64)
    col = _as_tensor(col_indices, device=v.device).to(_dtype.int64)
    c, k = np.asarray(crow._value), np.asarray(col._value)
    if c.ndim != 1 or k.ndim != 1:
        raise RuntimeError("crow_indices and col_indices must be 1-D (batched CSR is not supported in "
                           "torchlike; see docs/differences.md)")
    if v.ndim != 1:
        raise RuntimeError("values must be 1-D: hybrid CSR tensors are not supported in torchlike "
                           "(see docs/differences.md)")
    if c.shape[0] == 0 or c[0] != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if c[-1] != k.shape[0]:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    if k.shape[0] != v.shape[0]:
        raise RuntimeError(f"col_indices and values must have the same nnz, but got {k.shape[0]} and "
                           f"{v.shape[0]}")
    if np.any(np.diff(c) < 0):
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if size is None:
        size = (c.shape[0] - 1, int(k.max()) + 1 if k.size else 0)
    size = tuple(int(s) for s in size)
    if len(size) != 2 or size[0] != c.shape[0] - 1:
        raise RuntimeError(f"crow_indices.size(-1) must be equal to size[-2] + 1 (that is {size[0] + 1}), but "
                           f"got: {c.shape[0]}" if len(size) == 2 else "size must be 2-D (torchlike supports 2-D "
                           "CSR only; see docs/differences.md)")
    if k.size and (k.min() < 0 or k.max() >= size[1]):
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    rows = np.repeat(np.arange(size[0], dtype=np.int64), np.diff(c))
    ii = np.stack([rows, k])
    v = _own_values(v, "SparseCompressedTensorBackward0")
    if requires_grad:
        v = v.detach().requires_grad_()
    t = make_sparse(_idx_tensor(ii, v.device), v, size, sparse_csr, True, crow)
    t._np_idx = ii
    return t


def to_sparse(x, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse: the COO (or ``layout=``) form of ``x``; a dense ``x`` keeps its nonzeros."""
    if layout is not None and layout is not sparse_coo:
        if layout is sparse_csr:
            return to_sparse_csr(x, dense_dim)
        conv = to_layout.get(layout)
        if conv is not None:
            return conv(x, blocksize, dense_dim)
        raise unsupported(f"to_sparse (layout={layout})", "CPU")
    if blocksize is not None:
        raise RuntimeError("to_sparse for Strided to Sparse conversion does not use specified blocksize")
    if isinstance(x, SparseTensor):
        if x._lay is sparse_coo:
            if sparse_dim is not None and sparse_dim != x.sparse_dim():
                raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument != "
                                   "self.sparse_dim() is not supported")
            return x
        if x._lay is sparse_csr:
            return make_sparse(x._idx, x._vals, x._size, sparse_coo, True)
        return to_sparse(to_dense(x))  # CSC, BSR, BSC
    n = x.ndim
    sd = n if sparse_dim is None else sparse_dim
    if not 0 <= sd <= n:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{n}] range, but {sd} is given")
    a = np.asarray(x.detach()._value)
    flat = a.reshape(a.shape[:sd] + (-1,)) if sd < n else a[..., None]
    nz = np.nonzero(np.any(flat != 0, axis=-1))
    ii = np.stack(nz).astype(np.int64) if sd else np.zeros((0, 1 if a.size and np.any(a != 0) else 0),
                                                            np.int64)
    it = _idx_tensor(ii.reshape(sd, -1), x.device)
    vals = dispatch(_gather, (x, it), name="ToSparseBackward0") if sd else x.unsqueeze(0)[:ii.shape[1]]
    t = make_sparse(it, vals, tuple(x.shape), sparse_coo, True)
    t._np_idx = ii.reshape(sd, -1)
    return t


def to_sparse_csr(x, dense_dim=None):
    """Tensor.to_sparse_csr for 2-D tensors (dense or COO)."""
    if dense_dim:
        raise unsupported("to_sparse_csr (dense_dim)", "CPU")
    if isinstance(x, SparseTensor) and x._lay is sparse_csr:
        return x
    if x.ndim != 2:
        raise RuntimeError(f"to_sparse_csr: expected a 2-D tensor (torchlike has no batched CSR), got "
                           f"{x.ndim}-D (see docs/differences.md)")
    c = coalesce(to_sparse(x)) if isinstance(x, SparseTensor) else to_sparse(x)
    ii = c._host_indices()
    crow = np.concatenate([[0], np.cumsum(np.bincount(ii[0], minlength=x.shape[0]))]).astype(np.int64)
    t = make_sparse(c._idx, c._vals, c._size, sparse_csr, True, _idx_tensor(crow, c.device))
    t._np_idx = ii
    return t


def to_dense(x, dtype=None, *, masked_grad=None):
    """The strided tensor equal to ``x`` (a dense ``x`` is returned as is)."""
    if not isinstance(x, SparseTensor):
        return x if dtype is None else x.to(dtype)
    if x._lay in (sparse_bsr, sparse_bsc):
        d = densify[x._lay](x)
        return d if dtype is None else d.to(dtype)
    v = x._vals if dtype is None else x._vals.to(dtype)
    if v.dtype is _dtype.bool:  # duplicates of a bool tensor combine with "or"
        return to_dense(_with_values(x, v.to(_dtype.int64))) != 0
    return dispatch(_scatter_dense, (x._idx, v), (("shape", tuple(x._size)),), name="ToDenseBackward0")


def coalesce(x):
    """Duplicate indices summed, indices sorted (row-major): torch's Tensor.coalesce()."""
    if x._lay is not sparse_coo:
        raise RuntimeError(f"coalesce expected sparse coordinate tensor layout but got {x._lay}")
    if x._co:
        return x
    ii = x._host_indices()
    sd = ii.shape[0]
    key = _linear(ii, x._size[:sd])
    uniq, inv = np.unique(key, return_inverse=True)
    new_idx = np.stack(np.unravel_index(uniq, x._size[:sd])).astype(np.int64).reshape(sd, -1) if sd else \
        np.zeros((0, min(len(uniq), 1)), np.int64)
    vals = dispatch(_segsum, (x._vals, _idx_tensor(inv.reshape(-1), x.device)), (("n", len(uniq)),),
                    name="CoalesceBackward0")
    t = make_sparse(_idx_tensor(new_idx, x.device), vals, x._size, sparse_coo, True)
    t._np_idx = new_idx
    return t


# ---- products ---------------------------------------------------------------------------------------------
def _check_mm(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._CAP[a.dtype.name]} but found "
                           f"{_dtype._CAP[b.dtype.name]}")


def mm(a, b):
    """``a @ b`` where either operand may be sparse (2-D); a sparse @ dense product is dense."""
    sa, sb = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if sa and sb:
        return to_sparse(mm(a, b.to_dense()))
    if not sa and not sb:
        return dense_mm(a, b)
    if sa and a._lay in (sparse_bsr, sparse_bsc):
        if a._lay is sparse_bsc:
            raise RuntimeError("addmm: computation on CPU is not implemented for Strided + SparseBsc @ Strided")
        return mm(to_dense(a), b)
    if sa:
        if a.ndim != 2 or b.ndim != 2:
            raise RuntimeError(f"addmm: matrices expected, got {a.ndim if a.ndim != 2 else b.ndim}D tensor")
        if a.sparse_dim() != 2:
            raise unsupported("mm (of a hybrid sparse matrix)")
        if b.shape[0] != a.shape[1]:
            raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got {b.shape[0]}")
        _check_mm(a, b)
        rows, cols = a._rows_cols()
        return dispatch(_spmm, (a._vals, b, rows, cols), (("m", a.shape[0]),), name="SparseAddmmBackward0")
    if b.ndim != 2 or b.sparse_dim() != 2:
        raise RuntimeError(f"mm: expected a 2-D sparse matrix with two sparse dimensions, got size "
                           f"{tuple(b.shape)}")
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    _check_mm(a, b)
    rows, cols = b._rows_cols()
    return dispatch(_dsmm, (a, b._vals, rows, cols), (("n", b.shape[1]),), name="MmBackward0")


def transpose(x, d0, d1):
    """Swap two sparse dimensions (torch's Tensor.transpose / t() on a COO tensor)."""
    if x._lay is not sparse_coo:
        raise unsupported("transpose (of a CSR tensor)", "SparseCsrCPU")
    n, sd = x.ndim, x.sparse_dim()
    d0, d1 = _wrap(d0, n), _wrap(d1, n)
    if d0 == d1:
        return x
    if d0 >= sd or d1 >= sd:
        raise unsupported("transpose (of a dense dimension of a hybrid sparse tensor)")
    order = list(range(sd))
    order[d0], order[d1] = order[d1], order[d0]
    ii = x._host_indices()[order]
    size = list(x._size)
    size[d0], size[d1] = size[d1], size[d0]
    t = make_sparse(_idx_tensor(ii, x.device), x._vals, size, sparse_coo, False)
    t._np_idx = ii
    return t


def _wrap(d, n):
    if not -max(n, 1) <= d < max(n, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, {max(n, 1) - 1}], "
                         f"but got {d})")
    return d % max(n, 1)


# ---- reductions and softmax ----------------------------------------------------------------------------------
def sum(x, dim=None, dtype=None):
    """torch.sparse.sum: a dense scalar for ``dim=None`` or when every sparse dim is reduced, else sparse."""
    if not isinstance(x, SparseTensor):
        return x.sum() if dim is None else x.sum(dim)
    v = x._vals if dtype is None else x._vals.to(dtype)
    if dim is None:
        return v.sum()
    x = coalesce(x) if x._lay is sparse_coo else x  # torch reduces the coalesced tensor
    v = x._vals if dtype is None else x._vals.to(dtype)
    dims = sorted({_wrap(d, x.ndim) for d in ((dim,) if isinstance(dim, numbers.Integral) else dim)})
    sd = x.sparse_dim()
    dense_axes = [d - sd + 1 for d in dims if d >= sd]
    if dense_axes:
        v = v.sum(tuple(dense_axes))
    sparse_red = [d for d in dims if d < sd]
    if not sparse_red:
        return make_sparse(x._idx, v, [s for k, s in enumerate(x._size) if k not in dims], sparse_coo, x._co)
    if len(sparse_red) == sd:
        return v.sum(0)
    keep = [d for d in range(sd) if d not in sparse_red]
    ii = x._host_indices()[keep]
    size = [s for k, s in enumerate(x._size) if k not in dims]
    t = make_sparse(_idx_tensor(ii, x.device), v, size, sparse_coo, False)
    t._np_idx = ii
    return coalesce(t)


def _softmax(x, dim, dtype, log):
    if not isinstance(x, SparseTensor) or x._lay is not sparse_coo:
        raise unsupported("_sparse_log_softmax" if log else "_sparse_softmax",
                          "CPU" if not isinstance(x, SparseTensor) else "SparseCsrCPU")
    if dtype is not None:
        x = x.to(dtype)
    c = coalesce(x)
    dim = _wrap(dim, x.ndim)
    sd = c.sparse_dim()
    name = "LogSoftmaxBackward0" if log else "SoftmaxBackward0"
    if dim >= sd:
        v = (_dense_log_softmax if log else _dense_softmax)(c._vals, dim - sd + 1)
    else:
        ii = c._host_indices()
        keep = [d for d in range(sd) if d != dim]
        key = _linear(ii[keep], [c._size[d] for d in keep])
        uniq, inv = np.unique(key, return_inverse=True)
        v = dispatch(_seg_softmax, (c._vals, _idx_tensor(inv.reshape(-1), c.device)),
                     (("n", len(uniq)), ("log", bool(log))), name=name)
    t = make_sparse(c._idx, v, c._size, sparse_coo, True)
    t._np_idx, t._rc = c._np_idx, c._rc
    return t


def softmax(x, dim, dtype=None):
    """torch.sparse.softmax: softmax over the specified entries along ``dim`` (unspecified ones count as
    -inf), on the coalesced pattern.

    >>> import torchlike as torch
    >>> s = torch.sparse_coo_tensor([[0, 0, 1], [0, 2, 1]], [1., 1., 5.], (2, 3))
    >>> torch.sparse.softmax(s, 1).to_dense()
    tensor([[0.5000, 0.0000, 0.5000],
            [0.0000, 1.0000, 0.0000]])
    """
    return _softmax(x, dim, dtype, False)


def log_softmax(x, dim, dtype=None):
    """torch.sparse.log_softmax (see :func:`softmax`)."""
    return _softmax(x, dim, dtype, True)


# ---- elementwise -------------------------------------------------------------------------------------------
def _with_values(x, v, coalesced=None):
    t = make_sparse(x._idx, v, x._size, x._lay, x._co if coalesced is None else coalesced, x._crow)
    t._np_idx, t._rc = x._np_idx, x._rc
    return t


def add(a, b, alpha=1):
    """``a + alpha * b`` with torch's sparse rules: dense + sparse is dense, sparse + sparse is sparse,
    sparse + dense is an error."""
    sa, sb = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if sa and not sb:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if not sa:
        if not isinstance(a, Tensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                               f"{list(a.shape)} while other has size {list(b.shape)} (FYI: dense-sparse "
                               f"addition does not currently support broadcasting)")
        bd = to_dense(b)
        return a + (bd if alpha == 1 else bd * alpha)
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    if a._lay is not sparse_coo or b._lay is not sparse_coo:
        raise unsupported("add (of CSR tensors)", "SparseCsrCPU")
    bv = b._vals if alpha == 1 else b._vals * alpha
    ai, bi = a._host_indices(), b._host_indices()
    ii = np.concatenate([ai, bi], axis=1)
    vals = _dense_cat([a._vals, bv.to(a.dtype) if bv.dtype is not a.dtype else bv])
    if not (a._co and b._co) and ai.shape[1] and bi.shape[1]:
        pos, ii = _merge_positions(ai, bi)
        vals = dispatch(_segsum, (vals, _idx_tensor(pos, a.device)), (("n", ii.shape[1]),), name="AddBackward0")
    t = make_sparse(_idx_tensor(ii, a.device), vals, a._size, sparse_coo, False)
    t._np_idx = ii
    return coalesce(t) if a._co and b._co else t  # torch: coalesced only when both operands are


def _merge_positions(ai, bi):
    """torch's sparse add of operands that are not both coalesced (add_out_sparse_contiguous): one merge pass over
    the two entry lists as stored, taking the smaller index first and summing the two current entries when their
    indices are equal. The result slot of each entry of ``a`` then ``b``, and the result's indices."""
    na, nb = ai.shape[1], bi.shape[1]
    ka, kb = [tuple(c) for c in ai.T.tolist()], [tuple(c) for c in bi.T.tolist()]
    pos = np.empty(na + nb, np.int64)
    out = []
    i = j = 0
    while i < na or j < nb:
        cmp = -1 if i >= na else 1 if j >= nb else (ka[i] < kb[j]) - (ka[i] > kb[j])
        out.append(ka[i] if cmp >= 0 else kb[j])
        if cmp >= 0:
            pos[i] = len(out) - 1
            i += 1
        if cmp <= 0:
            pos[na + j] = len(out) - 1
            j += 1
    return pos, np.asarray(out, np.int64).T.reshape(ai.shape[0], len(out))


def mul(a, b):
    """Sparse times a scalar (same pattern) or times a dense tensor broadcastable to its shape (sparse result)."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        raise unsupported("mul (of two sparse tensors)")
    s, o = (a, b) if isinstance(a, SparseTensor) else (b, a)
    if not isinstance(o, Tensor) or o.ndim == 0:
        return _with_values(s, s._vals * o)
    if tuple(o.shape) != tuple(s.shape) and o.ndim <= s.ndim and all(
            k == 1 or k == n for k, n in zip(o.shape[::-1], s.shape[::-1])):
        o = o.expand(tuple(s.shape))  # a dense factor broadcast to the sparse shape (a row/column scaling)
    if tuple(o.shape) != tuple(s.shape):
        raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes, but {list(s.shape)} != "
                           f"{list(o.shape)}")
    return _with_values(s, s._vals * dispatch(_gather, (o, s._idx), name="IndexBackward0"))


def div(a, b):
    """Sparse divided by a scalar (or a 0-d tensor)."""
    if isinstance(b, SparseTensor) or (isinstance(b, Tensor) and b.ndim):
        raise unsupported("div (by a sparse or non-scalar tensor)")
    return _with_values(a, a._vals / b)
