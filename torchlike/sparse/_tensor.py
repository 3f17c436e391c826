"""The sparse tensor: a ``Tensor`` whose storage is an integer ``indices`` tensor and a ``values`` tensor.

A sparse COO tensor of size ``(s_0, ..., s_{k-1}, d_0, ...)`` holds ``indices`` of shape ``(k, nnz)`` and
``values`` of shape ``(nnz, d_0, ...)``; CSR is the same pair (row/column indices, sorted by row) plus
``crow_indices``. Autograd runs on ``values``: every sparse op is built from dense ops on ``values`` whose
index arguments are constant, so gradients reach whatever ``values`` was computed from. The index bookkeeping
(coalescing, nonzero search) runs on the host in numpy, as torch's CPU kernels do.

Dense tensors do not see this class: it only overrides methods on itself, and everything a dense op reads
(``_value``) raises torch's "Could not run 'aten::<op>' with arguments from the 'SparseCPU' backend" error.
"""
from __future__ import annotations

import re
import sys

import numpy as np

from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ..tensor import Size, Tensor
from .. import _creation
from .._errors import called_from_script, torch_warn
from .._dispatch import dispatch
from .._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl
from .._grad_mode import no_grad
from ._printing import sparse_repr

__all__ = ["SparseTensor", "make_sparse", "unsupported"]

_DOCS = "torchlike supports the sparse operations listed in docs/differences.md (\"Sparse tensors\")"


def unsupported(op, backend="SparseCPU", exc=NotImplementedError):
    """torch's error for an operator that has no sparse kernel (with where to read what torchlike has)."""
    return exc(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could be because "
               f"the operator doesn't exist for this backend. ({_DOCS}.)")


_WRAPPERS = frozenset(("op", "wrapper", "checked", "inplace", "_run", "dispatch", "fn", "f", "public", "impl", "inner",
                       "guarded", "with_sparse", "inplace_or_sparse"))  # the last two: the op table's sparse fallback


_OP_LAYER = ("torchlike._ops", "torchlike.tensor", "torchlike._dispatch", "torchlike._views", "torchlike.amp",
             "torchlike.nn.functional", "torchlike._creation", "torchlike.functional")


def _calling_op():
    """The name of the op the user called: the outermost function with a specific name among the op-layer
    frames on top of the stack, else the dispatcher's node name (``ExpBackward0`` -> ``exp``)."""
    f = sys._getframe(2)
    node = name = None
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if not mod.startswith(_OP_LAYER):
            if mod.startswith("torchlike.sparse"):
                f = f.f_back
                continue
            if name is None and node is None and mod.startswith(("torchlike.compile", "torchlike.func")):
                return "compile (a sparse tensor passed into a compiled or transformed function; capture it "\
                    "from the enclosing scope instead)"
            break
        n = f.f_code.co_name
        if n == "dispatch":
            node = f.f_locals.get("name")
        elif n.startswith("__") and n.endswith("__"):
            name = n.strip("_")
        elif not n.startswith(("<", "_")) and n not in _WRAPPERS:
            name = n
        f = f.f_back
    if name is None and isinstance(node, str):
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", re.sub(r"Backward\d*$", "", node)).lower()
    return name or "op"


_COMPRESSED_NAMES = {sparse_csr: "CSR", sparse_csc: "CSC", sparse_bsr: "BSR", sparse_bsc: "BSC"}

# whether a program opted in or out of torch's sparse invariant checks (torch.sparse.check_sparse_tensor_invariants)
INVARIANTS = {"explicit": False}


def implicit_invariant_checks(check_invariants):
    """torch's once-per-process warning when a sparse factory runs without the program having chosen."""
    if check_invariants is None and not INVARIANTS["explicit"] and not called_from_script():
        torch_warn("Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when "
                   "operating on a sparse tensor which violates the invariants, but checks incur performance "
                   "overhead. To silence this warning, explicitly opt in or out. See "
                   "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance. ",
                   "aten/src/ATen/Context.cpp:816", once=True)


def make_sparse(idx, vals, size, layout=sparse_coo, coalesced=False, crow=None):
    """A sparse tensor over index Tensor ``idx`` (k, nnz) and values Tensor ``vals`` (nnz, ...)."""
    if layout is not sparse_coo:  # torch's compressed tensors' once-per-process note
        torch_warn(f"Sparse {_COMPRESSED_NAMES[layout]} tensor support is in beta state. If you miss a functionality in the sparse tensor "
                   "support, please submit a feature request to https://github.com/pytorch/pytorch/issues.",
                   "aten/src/ATen/SparseCsrTensorImpl.cpp:49", once=True)
    t = object.__new__(SparseTensor)
    t._vbase = None
    t._chain = None
    t._seen = 0
    t._ver = [0]
    t._grad = None
    t._oi = 0
    t._acc = None
    t._retains = False
    t._dev = vals._dev
    t._idx = idx
    t._vals = vals
    t._size = Size(int(s) for s in size)
    t._lay = layout
    t._co = bool(coalesced)
    t._crow = crow
    t._np_idx = None
    t._rc = None
    return t


class SparseTensor(Tensor):
    """A sparse COO or CSR tensor (torch's ``layout=torch.sparse_coo`` / ``torch.sparse_csr``).

    >>> import torchlike as torch
    >>> s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [3., 4.], (2, 2))
    >>> s.is_sparse, s.layout, s._nnz()
    (True, torch.sparse_coo, 2)
    >>> s.to_dense()
    tensor([[0., 3.],
            [4., 0.]])
    """
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor

    __slots__ = ("_idx", "_vals", "_size", "_lay", "_co", "_crow", "_np_idx", "_rc")

    # ---- what dense code reads: not available on a sparse tensor ------------------------------
    @property
    def _value(self):
        raise unsupported(_calling_op(), "SparseCPU" if self._lay is sparse_coo else "SparseCsrCPU")

    @property
    def _x(self):
        raise unsupported(_calling_op(), "SparseCPU" if self._lay is sparse_coo else "SparseCsrCPU")

    @_x.setter
    def _x(self, v):
        raise unsupported("set_", "SparseCPU")

    # autograd state lives on the values tensor
    @property
    def _rg(self):
        return self._vals._rg

    @_rg.setter
    def _rg(self, flag):
        self._vals._rg = flag

    @property
    def _grad_fn(self):
        return self._vals._grad_fn

    @_grad_fn.setter
    def _grad_fn(self, node):
        self._vals._grad_fn = node

    # ---- metadata -----------------------------------------------------------------------------
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        if dim is None:
            return self._size
        n = len(self._size)
        if not -max(n, 1) <= dim < max(n, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(n, 1)}, "
                             f"{max(n, 1) - 1}], but got {dim})")
        return self._size[dim % n]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def ndim(self):
        return len(self._size)

    def dim(self):
        return len(self._size)

    ndimension = dim

    def numel(self):
        return self._size.numel()

    nelement = numel

    @property
    def layout(self):
        return self._lay

    @property
    def is_sparse(self):
        return self._lay is sparse_coo

    @property
    def is_sparse_csr(self):
        return self._lay is sparse_csr

    def is_contiguous(self, memory_format=None):
        return False

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return len(self._size) - self._idx.shape[0]

    def _nnz(self):
        return self._vals.shape[0]

    def is_coalesced(self):
        if self._lay is not sparse_coo:
            raise RuntimeError(f"is_coalesced expected sparse coordinate tensor layout but got "
                               f"{_layout_name(self._lay)}")
        return self._co

    def _host_indices(self):
        """The indices as a numpy array (cached: indices are immutable here)."""
        if self._np_idx is None:
            self._np_idx = np.asarray(self._idx._value)
        return self._np_idx

    def _rows_cols(self):
        """Row and column indices of a 2-D tensor as int64 Tensors (cached: a fixed adjacency is reused
        every step without copying its indices again)."""
        if self._rc is None:
            ii = self._host_indices()
            self._rc = (_creation.tensor(ii[0], device=self._dev), _creation.tensor(ii[1], device=self._dev))
        return self._rc

    # ---- storage ------------------------------------------------------------------------------
    def _check_coo(self, what):
        if self._lay is not sparse_coo:
            raise RuntimeError(f"{what} expected sparse coordinate tensor layout but got "
                               f"{_layout_name(self._lay)}")

    def indices(self):
        """The (sparse_dim, nnz) int64 indices of a coalesced COO tensor."""
        self._check_coo("indices")
        if not self._co:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        """The (nnz, *dense_dims) values of a coalesced COO tensor (or of a CSR tensor)."""
        if self._lay is sparse_coo and not self._co:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def _indices(self):
        self._check_coo("_indices")
        return self._idx

    def _values(self):
        return self._vals

    def _compressed(self, what, layouts, kind):
        if self._lay not in layouts:
            raise RuntimeError(f"{what} expected sparse {kind} compressed tensor layout but got "
                               f"{_layout_name(self._lay)}")

    def crow_indices(self):
        """The compressed row pointers of a CSR (or BSR) tensor."""
        self._compressed("crow_indices", (sparse_csr, sparse_bsr), "row")
        return self._crow

    def col_indices(self):
        """The column index of each value (block) of a CSR (BSR) tensor."""
        self._compressed("col_indices", (sparse_csr, sparse_bsr), "row")
        return self._idx[1]

    def ccol_indices(self):
        """The compressed column pointers of a CSC (or BSC) tensor."""
        self._compressed("ccol_indices", (sparse_csc, sparse_bsc), "column")
        return self._crow

    def row_indices(self):
        """The row index of each value (block) of a CSC (BSC) tensor."""
        self._compressed("row_indices", (sparse_csc, sparse_bsc), "column")
        return self._idx[0]

    # ---- autograd -----------------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def is_leaf(self):
        return self._vals.grad_fn is None

    @property
    def grad(self):
        """The gradient of a sparse leaf: a sparse tensor with this tensor's (coalesced) pattern."""
        g = self._vals._grad
        if g is None:
            return None
        if isinstance(g, SparseTensor):
            return g
        return first_per_position(self, g)

    @grad.setter
    def grad(self, g):
        if g is not None and isinstance(g, SparseTensor):
            g = _values_like(self, g)
        self._vals._grad = g

    @property
    def data(self):
        """A detached sparse tensor over the same indices and values, as torch's: a write into its values
        reaches this tensor (optimizers read ``p.grad.data`` of a sparse gradient, e.g. ``nn.Embedding(sparse=True)``).

        >>> import torchlike as torch
        >>> s = torch.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (4,)).coalesce()
        >>> s.data.values().mul_(2)
        tensor([2., 4.])
        >>> s.values()
        tensor([2., 4.])
        """
        return make_sparse(self._idx, self._vals.data, self._size, self._lay, self._co, self._crow)

    @data.setter
    def data(self, new):
        if not isinstance(new, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        if not isinstance(new, SparseTensor) or new._lay is not self._lay:
            raise RuntimeError("Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                               "incompatible tensor type.")
        self._idx, self._size, self._co, self._crow = new._idx, new._size, new._co, new._crow
        self._np_idx = self._rc = None
        self._vals.data = new._vals

    def detach(self):
        return make_sparse(self._idx, self._vals.detach(), self._size, self._lay, self._co, self._crow)

    def detach_(self):
        self._vals.detach_()
        return self

    def clone(self, *, memory_format=None):
        return make_sparse(self._idx.clone(), self._vals.clone(), self._size, self._lay, self._co,
                           None if self._crow is None else self._crow.clone())

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        raise unsupported("backward (of a sparse tensor; call .to_dense() or torch.sparse.sum() first)")

    # ---- moves --------------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        v = self._vals.to(*args, **kwargs)
        if v is self._vals:
            return self
        i = self._idx if v._dev == self._idx._dev else self._idx.to(v.device)
        c = self._crow if self._crow is None or v._dev == self._crow._dev else self._crow.to(v.device)
        return make_sparse(i, v, self._size, self._lay, self._co, c)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def tolist(self):
        raise unsupported("tolist")

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense())

    def __hash__(self):
        return id(self)

    def copy_(self, src, non_blocking=False):
        """Make this sparse tensor a copy of sparse ``src`` (indices, values cast to this dtype, size)."""
        if not isinstance(src, SparseTensor):
            raise unsupported("copy_ (from a dense tensor into a sparse one)")
        with no_grad():
            v = src._vals.to(dtype=self.dtype, device=self.device, copy=True)
        v._rg = self._vals._rg
        self._idx, self._vals, self._size, self._lay = src._idx, v, src._size, src._lay
        self._co, self._crow, self._np_idx, self._rc = src._co, src._crow, src._np_idx, src._rc
        return self

    def view(self, *shape):
        raise unsupported("view")

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def stride(self, dim=None):
        raise RuntimeError(f"Sparse tensors do not have strides ({_DOCS})")

    # ---- printing and pickling ----------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return sparse_repr(self)

    def __reduce_ex__(self, proto):
        crow = None if self._crow is None else np.asarray(self._crow._value)
        return (_rebuild_sparse, (np.asarray(self._idx._value), np.asarray(self._vals._value), tuple(self._size),
                                  self._lay, self._co, crow, self.requires_grad and self.is_leaf,
                                  str(self._dev)))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.")
        if id(self) in memo:
            return memo[id(self)]
        new = make_sparse(self._idx.__deepcopy__(memo), self._vals.__deepcopy__(memo), self._size, self._lay,
                          self._co, None if self._crow is None else self._crow.__deepcopy__(memo))
        memo[id(self)] = new
        return new


def _layout_name(lay):
    return {sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc", sparse_bsr: "SparseBsr",
            sparse_bsc: "SparseBsc", strided: "Strided"}.get(lay, repr(lay))


def _values_like(s, g):
    """Values of sparse gradient ``g`` at ``s``'s index positions (for assigning ``s.grad``)."""
    return values_at(g, s)


# ---- index helpers and a sparse leaf's gradient (sparse._ops and the other sparse modules import them) ----
def _idx_tensor(a, dev):
    t = _creation.tensor(np.ascontiguousarray(a, dtype=np.int64), device=dev)
    return t


def _linear(idx_np, sizes):
    """One int64 key per column of ``idx_np`` (row-major over ``sizes``)."""
    if idx_np.shape[0] == 0:
        return np.zeros(idx_np.shape[1], np.int64)
    return np.ravel_multi_index(tuple(idx_np), tuple(int(s) for s in sizes)) if idx_np.shape[1] else \
        np.zeros(0, np.int64)


def _gather(d, idx):
    return d[tuple(idx)]


def first_per_position(s, g):
    """Gradient ``g`` of ``s``'s values as torch reports it: a sparse tensor on ``s``'s coalesced pattern
    (every duplicate of a position has the same gradient, so the first one is taken)."""
    if s._co or s._lay is not sparse_coo:
        return make_sparse(s._idx, g.detach(), s._size, s._lay, s._co, s._crow)
    ii = s._host_indices()
    key = _linear(ii, s._size[:ii.shape[0]])
    uniq, first = np.unique(key, return_index=True)
    sel = _idx_tensor(first, s.device)
    return make_sparse(_idx_tensor(ii[:, first], s.device), g.detach()[sel], s._size, sparse_coo, True)


def values_at(g, s):
    """The values of sparse (or dense) ``g`` at the index positions of ``s`` (its duplicates included)."""
    d = g.to_dense() if isinstance(g, SparseTensor) else g  # (the method is sparse._ops.to_dense)
    return dispatch(_gather, (d, s._idx), name="IndexBackward0")


def _rebuild_sparse(idx, vals, size, layout, coalesced, crow, requires_grad, dev):
    i = _creation.tensor(idx, device=dev)
    v = _creation.tensor(vals, device=dev)
    c = None if crow is None else _creation.tensor(crow, device=dev)
    t = make_sparse(i, v, size, layout, coalesced, c)
    if requires_grad:
        t.requires_grad_()
    return t
