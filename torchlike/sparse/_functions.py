"""More sparse kernels (indexing, cat/stack, smm/hspmm/addmm, mv/bmm, norm) and the routing that lets the
torch namespace functions (``torch.add(dense, sparse)``, ``torch.sum(sparse)``, ``torch.mm``...) take sparse
operands.

Routing is a field of the op table (``OpEntry.sparse`` = ``kernel`` below, declared by torchlike.sparse): the
namespace function and in-place method the table generates run the dense kernel in ``try``; a sparse operand
makes it raise torch's NotImplementedError when it reads the operand's data, and only then is the sparse
implementation of the same op called (a method of the sparse operand, or a dense-first form such as
``add(dense, sparse)``). Ops torch has no sparse kernel for keep torch's "Could not run 'aten::...'" error.
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import _creation, _dtype
from .._mutation import write_out
from .._dispatch import dispatch
from .._grad_mode import is_grad_enabled
from .._layout import sparse_coo, sparse_csc, sparse_csr
from ..tensor import Tensor
from . import _ops
from ._ops import _gather, _idx_tensor, _linear, _with_values, _wrap, coalesce, make_sparse, mm, to_dense, to_sparse
from ._tensor import SparseTensor, unsupported
from .._ops.signatures import parses

__all__ = ["select", "index_select", "getitem", "cat", "stack", "unsqueeze", "smm", "hspmm", "sspaddmm", "addmm",
           "mv", "bmm", "norm", "mul", "div", "kernel", "like"]


def _sparse_from(x, ii, vals, size, coalesced):
    t = make_sparse(_idx_tensor(ii, x.device), vals, size, sparse_coo, coalesced)
    t._np_idx = np.ascontiguousarray(ii, dtype=np.int64)
    return t


def _take(v, pos, dev):
    """Rows ``pos`` (numpy ints) of values ``v``, differentiably."""
    return dispatch(_gather, (v, _idx_tensor(np.asarray(pos, np.int64)[None], dev)), name="IndexBackward0")


# ---- indexing -------------------------------------------------------------------------------------------
def select(x, dim, index):
    """Tensor.select on a COO tensor: sparse unless no sparse dimension is left (then dense). A 2-D CSR/CSC tensor's
    piece is a coalesced COO tensor, as torch's."""
    if x._lay is not sparse_coo:
        if x.ndim != 2 or x.dense_dim() or x._lay not in (sparse_csr, sparse_csc):
            raise unsupported("select", "SparseCsrCPU")
        piece = select(x.to_sparse_coo().coalesce(), dim, index)
        piece._co = True
        return piece
    n, sd = x.ndim, x.sparse_dim()
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = _wrap(dim, n)
    size = x._size[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x._size)} at dimension "
                         f"{dim}")
    index %= size
    new_size = [s for k, s in enumerate(x._size) if k != dim]
    # (torch's result counts as coalesced only when it has fewer than 2 entries, whatever ``x`` was)
    if dim >= sd:
        return make_sparse(x._idx, x._vals.select(dim - sd + 1, index), new_size, sparse_coo, x._nnz() < 2)
    ii = x._host_indices()
    pos = np.nonzero(ii[dim] == index)[0]
    vals = _take(x._vals, pos, x.device)
    if sd == 1:  # no sparse dimension left: the (dense) sum of the selected entries
        return vals.sum(0)
    keep = [d for d in range(sd) if d != dim]
    return _sparse_from(x, ii[keep][:, pos], vals, new_size, len(pos) < 2)


def index_select(x, dim, index):
    """Tensor.index_select on a COO tensor (sparse, uncoalesced: entries ordered by their position in ``index``)."""
    if x._lay is not sparse_coo:
        raise unsupported("index_select", "SparseCsrCPU")
    dim = _wrap(dim, x.ndim)
    sd = x.sparse_dim()
    if isinstance(index, Tensor) and index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    idx = np.asarray(index.detach()._value if isinstance(index, Tensor) else index, np.int64).reshape(-1)
    size = list(x._size)
    if idx.size and (idx.min() < -size[dim] or idx.max() >= size[dim]):
        bad = idx[(idx < -size[dim]) | (idx >= size[dim])][0]
        raise IndexError(f"index out of range in self (index {bad} for dimension {dim} of size {size[dim]})")
    idx = idx % max(size[dim], 1)
    size[dim] = idx.size
    if dim >= sd:
        it = _idx_tensor(idx, x.device)
        return _with_values(make_sparse(x._idx, x._vals, size, sparse_coo, x._co),
                            x._vals.index_select(dim - sd + 1, it))
    ii = x._host_indices()
    pos, newpos = [], []
    for k, p in enumerate(idx):
        hit = np.nonzero(ii[dim] == p)[0]
        pos.append(hit)
        newpos.append(np.full(hit.size, k, np.int64))
    pos = np.concatenate(pos) if pos else np.zeros(0, np.int64)
    nii = ii[:, pos].copy()
    nii[dim] = np.concatenate(newpos) if newpos else np.zeros(0, np.int64)
    return _sparse_from(x, nii, _take(x._vals, pos, x.device), size, False)


def getitem(x, key):
    """``s[i]``, ``s[i, j]``: integer indexing (select); slices need strides, which sparse tensors lack."""
    keys = key if isinstance(key, tuple) else (key,)
    if not all(isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, bool) for k in keys):
        if all(isinstance(k, (numbers.Integral, slice)) for k in keys):
            raise unsupported("as_strided")
        raise unsupported("index")
    if len(keys) > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    out = x
    for k in keys:
        out = select(out, 0, int(k)) if isinstance(out, SparseTensor) else out[int(k)]
    return out


def unbind(x, dim=0):
    """Tensor.unbind on a COO tensor: one ``select`` per index along ``dim`` (sparse pieces, dense past the
    sparse dims of a 1-sparse-dim tensor), as torch's."""
    if x._lay is not sparse_coo and (x.ndim != 2 or x.dense_dim() or x._lay not in (sparse_csr, sparse_csc)):
        raise unsupported("unbind.int", "SparseCsrCPU")
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = _wrap(dim, x.ndim)
    return tuple(select(x, dim, i) for i in range(x._size[dim]))


def iterate(x):
    """``iter(s)``: the pieces of ``unbind(0)``, as torch's ``Tensor.__iter__``."""
    if x.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(x, 0))


# ---- joining ---------------------------------------------------------------------------------------------
def unsqueeze(x, dim):
    """Tensor.unsqueeze on a COO tensor: a new sparse (or dense, past the sparse dims) dimension of size 1."""
    n, sd = x.ndim, x.sparse_dim()
    if not -n - 1 <= dim <= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n - 1}, {n}], but got {dim})")
    dim %= n + 1
    size = list(x._size)
    size.insert(dim, 1)
    if dim > sd:
        return _with_values(make_sparse(x._idx, x._vals, size, sparse_coo, x._co), x._vals.unsqueeze(dim - sd + 1))
    ii = x._host_indices()
    nii = np.insert(ii, dim, 0, axis=0)
    return _sparse_from(x, nii, x._vals, size, False)


def cat(tensors, dim=0):
    """torch.cat of COO tensors (all sparse): indices shifted along a sparse ``dim``, values padded along a
    dense one; the result is uncoalesced."""
    ts = list(tensors)
    if not ts:
        raise ValueError("cat expects a non-empty TensorList")
    if not all(isinstance(t, SparseTensor) and t._lay is sparse_coo for t in ts):
        raise RuntimeError("Cannot concatenate sparse tensors with dense tensors (all inputs of a sparse cat must "
                           "be sparse COO tensors)")
    first = ts[0]
    n, sd = first.ndim, first.sparse_dim()
    dim = _wrap(dim, n)
    for t in ts[1:]:
        if t.sparse_dim() != sd or t.ndim != n:
            raise RuntimeError("All tensors must have the same sparse_dim and dense_dim")
        if any(a != b for k, (a, b) in enumerate(zip(t._size, first._size)) if k != dim):
            raise RuntimeError(f"All tensors must have the same shape except for the concatenation dimension "
                               f"{dim}: {list(first._size)} vs {list(t._size)}")
    from .. import cat as dense_cat, zeros  # lazy: the facade's functions, which sparse wraps while it is built
    size = list(first._size)
    size[dim] = int(np.sum([t._size[dim] for t in ts]))
    iis, vals, off = [], [], 0
    for t in ts:
        ii = t._host_indices().copy()
        v = t._vals.to(first.dtype) if t.dtype is not first.dtype else t._vals
        if dim < sd:
            ii[dim] += off
        else:
            ax = dim - sd + 1
            parts = []
            for width in (off, size[dim] - off - t._size[dim]):
                if width:
                    shape = list(v.shape)
                    shape[ax] = width
                    parts.append(zeros(shape, dtype=v.dtype, device=v.device))
            if parts:
                v = dense_cat(parts[:1] + [v] + parts[1:] if off else [v] + parts, ax)
        off += t._size[dim]
        iis.append(ii)
        vals.append(v)
    return _sparse_from(first, np.concatenate(iis, axis=1), dense_cat(vals, 0), size, False)


def stack(tensors, dim=0):
    """torch.stack of COO tensors: each unsqueezed at ``dim``, then concatenated."""
    ts = list(tensors)
    if not ts:
        raise ValueError("stack expects a non-empty TensorList")
    return cat([unsqueeze(t, dim) for t in ts], dim)


# ---- products --------------------------------------------------------------------------------------------
@parses("Tensor input, Tensor mat2")
def smm(x, mat):
    """torch.smm: sparse @ dense with a sparse (uncoalesced-flagged) result."""
    r = to_sparse(mm(x, mat))
    r._co = False
    return r


@parses("Tensor mat1, Tensor mat2")
def hspmm(x, mat):
    """torch.hspmm: sparse @ dense as a hybrid COO tensor (rows sparse, columns dense)."""
    if not isinstance(x, SparseTensor):
        raise unsupported("hspmm", "CPU")
    p = mm(x, mat)
    rows = np.unique(x._host_indices()[0]) if x._nnz() else np.zeros(0, np.int64)
    return _sparse_from(x, rows[None], p.index_select(0, _idx_tensor(rows, x.device)), tuple(p.shape), False)


@parses("Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None")
def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """torch.sspaddmm: ``beta * input + alpha * (mat1 @ mat2)`` with sparse ``input``/``mat1``: sparse."""
    p = smm(mat1, mat2)
    a = input if beta == 1 else _ops.mul(input, beta)
    b = p if alpha == 1 else _ops.mul(p, alpha)
    ii = np.concatenate([a._host_indices(), b._host_indices()], axis=1)
    from .. import cat as dense_cat  # lazy: the facade's functions, which sparse wraps while it is built
    return _sparse_from(a, ii, dense_cat([a._vals, b._vals.to(a.dtype)]), a._size, False)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """torch.addmm with a sparse ``mat1`` (or ``mat2``): ``beta * input + alpha * (mat1 @ mat2)``, dense."""
    if isinstance(input, SparseTensor):
        raise RuntimeError("addmm_sparse_dense: expected strided result tensor, got tensor with layout Sparse")
    p = mm(mat1, mat2)
    r = (input if beta == 1 else input * beta) + (p if alpha == 1 else p * alpha)
    if out is not None:
        return write_out(out, r, "addmm")
    return r


def mv(x, vec):
    """torch.mv with a sparse matrix: a dense vector."""
    if vec.ndim != 1 or x.ndim != 2:
        raise RuntimeError(f"vector + matrix @ vector expected, got {x.ndim}, {vec.ndim}")
    return mm(x, vec.unsqueeze(1)).squeeze(1)


def bmm(x, mat):
    """torch.bmm of a 3-D COO tensor and a dense batch: dense."""
    if x.ndim != 3 or mat.ndim != 3:
        raise RuntimeError("bmm_sparse: Expected 3-D tensors")
    if x._size[0] != mat.shape[0]:
        raise RuntimeError(f"bmm_sparse: 'self.size(0)' and 'mat2.size(0)' must match, got {x._size[0]} and "
                           f"{mat.shape[0]}")
    from .. import stack as dense_stack  # lazy: the facade's functions, which sparse wraps while it is built
    return dense_stack([mm(select(x, 0, b), mat[b]) for b in range(x._size[0])])


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm of a sparse tensor (its coalesced values' norm)."""
    if dim is not None or keepdim:
        raise unsupported("norm (with dim)")
    v = (coalesce(x) if x._lay is sparse_coo else x)._vals
    if dtype is not None:
        v = v.to(dtype)
    if p == "fro":
        p = 2
    return v.norm(p)


# ---- elementwise -------------------------------------------------------------------------------------------
def mul(a, b):
    """Sparse * sparse (the intersection of the patterns), else ``_ops.mul``."""
    if not (isinstance(a, SparseTensor) and isinstance(b, SparseTensor)):
        return _ops.mul(a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    if a._lay is not sparse_coo or b._lay is not sparse_coo:
        raise unsupported("mul (of CSR tensors)", "SparseCsrCPU")
    ca, cb = coalesce(a), coalesce(b)
    sd = ca.sparse_dim()
    ka, kb = _linear(ca._host_indices(), ca._size[:sd]), _linear(cb._host_indices(), cb._size[:sd])
    _, pa, pb = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    va, vb = _take(ca._vals, pa, a.device), _take(cb._vals, pb, a.device)
    if vb.dtype is not va.dtype:
        dt = _dtype.result_type(va, vb)
        va, vb = va.to(dt), vb.to(dt)
    return _sparse_from(ca, ca._host_indices()[:, pa], va * vb, a._size, a._co and b._co)


def div(a, b, rounding_mode=None):
    """Sparse / scalar (or a 0-d dense tensor); torch refuses other divisors."""
    if isinstance(b, SparseTensor) or (isinstance(b, Tensor) and b.ndim):
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(b.shape)} for divisor)")
    if rounding_mode is None:
        return _ops.div(a, b)
    return _with_values(a, a._vals.div(b, rounding_mode=rounding_mode))


def _dense_add(a, b, alpha=1):  # add(dense, sparse): dense
    return _ops.add(a, b, alpha=alpha)


def _dense_sub(a, b, alpha=1):
    return _ops.add(a, b, alpha=-alpha)


def _sparse_self(self, other, op, alpha):
    """sparse.add_(sparse) / sub_: ``self`` becomes the sparse sum (torch's add_out into self: the same
    indices, values and coalesced flag as the out-of-place sum); torch's error for a dense ``other``."""
    if not isinstance(other, SparseTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if self._lay is not sparse_coo or other._lay is not sparse_coo:
        raise unsupported(f"{op} (in place on a CSR tensor)", "SparseCsrCPU")
    if self.requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    res = _ops.add(self, other, alpha=alpha)
    self._idx, self._vals, self._size, self._co = res._idx, res._vals, res._size, res._co
    self._crow, self._np_idx, self._rc = res._crow, res._np_idx, res._rc
    return self


def _dense_add_(self, other, alpha=1):
    if isinstance(self, SparseTensor):
        return _sparse_self(self, other, "add_", alpha)
    return self.add_(to_dense(other), alpha=alpha)


def _dense_sub_(self, other, alpha=1):
    if isinstance(self, SparseTensor):
        return _sparse_self(self, other, "sub_", -alpha)
    return self.sub_(to_dense(other), alpha=alpha)


# dense-first forms torch accepts with a sparse second operand (the sparse-first ones are SparseTensor methods)
DENSE_FIRST = {"add": _dense_add, "sub": _dense_sub, "mul": mul, "mm": mm, "matmul": None, "add_": _dense_add_,
               "sub_": _dense_sub_, "addmm": addmm, "smm": smm, "hspmm": hspmm}


# ---- routing ---------------------------------------------------------------------------------------------
def _sparse_impl(name, args, kwargs):
    """The sparse implementation of op ``name`` for these arguments, or None."""
    first = args[0] if args else kwargs.get("input", kwargs.get("self"))
    if isinstance(first, (list, tuple)) and first and isinstance(first[0], SparseTensor):
        return {"cat": cat, "concat": cat, "concatenate": cat, "stack": stack}.get(name)
    if isinstance(first, SparseTensor):
        own = _method_of_sparse(name)
        if own is not None:
            return own
    f = DENSE_FIRST.get(name)
    if name == "matmul" and any(isinstance(a, SparseTensor) for a in args[:2]):  # dense errors stay torch's
        from . import _matmul
        f = _matmul
    return f


@functools.lru_cache(maxsize=None)
def _method_of_sparse(name):
    """SparseTensor's own (sparse) method ``name``, or None when it only inherits the dense one."""
    for klass in SparseTensor.__mro__:
        if klass is Tensor:
            return None
        if name in vars(klass):
            return vars(klass)[name]
    return None


def kernel(surface, args, kwargs):
    """The op table's ``sparse`` field for the ops sparse serves (``OpEntry.sparse``): a callable running the
    sparse implementation of ``surface`` on these arguments, or None (torch has no such kernel either)."""
    impl = _sparse_impl(surface, args, kwargs)
    if impl is None:
        return None
    if "input" in kwargs and args == ():
        kwargs = dict(kwargs)
        args = (kwargs.pop("input"),)
    return lambda: impl(*args, **kwargs)


def like(name, input, dtype, device, requires_grad):
    """torch.zeros_like / empty_like of a sparse tensor: an empty sparse tensor of its size and layout (COO);
    ones_like / full_like: torch's "no sparse kernel" error (they would fill every element). ``_creation``'s
    *_like functions call it for a non-strided input (torchlike.sparse appends it to ``layout_like``)."""
    if name in ("ones_like", "full_like"):
        raise unsupported("fill_.Scalar", "SparseCPU" if input._lay is sparse_coo else "SparseCsrCPU")
    if input._lay is not sparse_coo:
        raise unsupported(f"{name} (of a compressed sparse tensor)", "SparseCsrCPU")
    vals = _creation.zeros_like(input._vals[:0], dtype=dtype or input.dtype, device=device or input.device)
    t = make_sparse(_idx_tensor(np.zeros((input.sparse_dim(), 0), np.int64), vals.device), vals, input._size,
                    sparse_coo, True)
    t._np_idx = np.zeros((input.sparse_dim(), 0), np.int64)
    if requires_grad:
        t.requires_grad_()
    return t
