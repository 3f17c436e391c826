"""torch.sparse: sparse COO/CSR tensors and their operations (``mm``, ``sum``, ``softmax``, ...).

>>> import torchlike as torch
>>> adj = torch.tensor([[0., 1.], [1., 0.]]).to_sparse()
>>> x = torch.ones(2, 3, requires_grad=True)
>>> y = torch.sparse.mm(adj, x)
>>> y.sum().backward()
>>> x.grad
tensor([[1., 1., 1.],
        [1., 1., 1.]])

See docs/differences.md ("Sparse tensors") for what is supported.
"""
from __future__ import annotations

import contextlib

from .. import _creation, _dtype
from .._missing import module_getattr
from .._ops import registry as _registry
from .._ops.signatures import parses
from ..tensor import Tensor
from . import _compressed, _functions, _ops
from .._errors import torch_warn
from .._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc
from .._legacy import LEGACY, make_legacy_constructor
from ._compressed import sparse_bsc_tensor, sparse_bsr_tensor, sparse_compressed_tensor, sparse_csc_tensor
from ._ops import coalesce, log_softmax, softmax, sparse_coo_tensor, sparse_csr_tensor, sum, to_dense, to_sparse
from ._tensor import INVARIANTS, SparseTensor, unsupported

__all__ = ["mm", "sum", "softmax", "log_softmax", "addmm", "spmm", "check_sparse_tensor_invariants",
           "FloatTensor", "DoubleTensor", "LongTensor", "HalfTensor", "BFloat16Tensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor"]


def mm(mat1, mat2, reduce=None):
    """Matrix product where ``mat1`` and/or ``mat2`` is sparse (2-D); sparse @ dense is dense.

    >>> import torchlike as torch
    >>> s = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2., 3.], (2, 2))
    >>> torch.sparse.mm(s, torch.ones(2, 1))
    tensor([[2.],
            [3.]])
    """
    if reduce is not None:
        raise unsupported(f"_sparse_mm_reduce_impl (reduce={reduce!r})")
    return _ops.mm(mat1, mat2)


@parses("Tensor input, Tensor mat2, *, Tensor? out=None", "Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor? out=None", name="mm")  # (torch.spmm is mm: its errors name mm)
def spmm(input, mat2):
    """torch.spmm: ``input @ mat2`` for a sparse (or dense) ``input``.

    >>> import torchlike as torch
    >>> torch.spmm(torch.eye(2).to_sparse(), torch.ones(2, 1))
    tensor([[1.],
            [1.]])
    """
    return _ops.mm(input, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1`` and dense ``mat``/``mat2``.

    >>> import torchlike as torch
    >>> torch.sparse.addmm(torch.ones(2, 1), torch.eye(2).to_sparse(), torch.ones(2, 1))
    tensor([[2.],
            [2.]])
    """
    p = _ops.mm(mat1, mat2)
    return (mat if beta == 1 else mat * beta) + (p if alpha == 1 else p * alpha)


class check_sparse_tensor_invariants(contextlib.ContextDecorator):
    """torch.sparse.check_sparse_tensor_invariants: torchlike always checks the invariants it can (index
    bounds, nnz agreement) when a sparse tensor is constructed, so this is a no-op context manager.

    >>> import torchlike as torch
    >>> with torch.sparse.check_sparse_tensor_invariants():
    ...     torch.sparse_coo_tensor([[0]], [1.], (1,))._nnz()
    1
    """

    _enabled = True

    def __init__(self, enable=True):
        self.enable = enable

    @staticmethod
    def is_enabled():
        return check_sparse_tensor_invariants._enabled

    @staticmethod
    def enable():
        check_sparse_tensor_invariants._enabled = INVARIANTS["explicit"] = True

    @staticmethod
    def disable():
        check_sparse_tensor_invariants._enabled = False
        INVARIANTS["explicit"] = True

    def __enter__(self):
        INVARIANTS["explicit"] = True
        return self

    def __exit__(self, *exc):
        return False


def _legacy(dt):
    def ctor(*args, **kwargs):
        if len(args) in (2, 3) and all(isinstance(a, Tensor) for a in args[:2]):
            form = "indices, values, shape" if len(args) == 3 else "indices, values"
            torch_warn(f"torch.sparse.SparseTensor({form}, *, device=) is deprecated.  Please use "
                       f"torch.sparse_coo_tensor({form}, dtype=, device=).",
                       f"torch/csrc/utils/tensor_new.cpp:{653 if len(args) == 3 else 641}", once=True)
            # torch keeps the values' dtype here, and its legacy path gives no invariant-check note
            return sparse_coo_tensor(*args, check_invariants=False, **kwargs)
        if not args and not kwargs:
            torch_warn("torch.sparse.SparseTensor() is deprecated.  Please use torch.sparse_coo_tensor((0,), dtype=).",
                       "torch/csrc/utils/tensor_new.cpp:623", once=True)
            return sparse_coo_tensor(size=(0,), dtype=dt, check_invariants=False)
        if args and all(isinstance(a, int) for a in args):
            torch_warn("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                       "torch.sparse_coo_tensor(shape, dtype=, device=).", "torch/csrc/utils/tensor_new.cpp:684",
                       once=True)
            return sparse_coo_tensor(size=args, dtype=dt, check_invariants=False)
        raise TypeError("torch.sparse legacy constructor: expected (indices, values[, size]) or sizes")
    ctor.__doc__ = ("Legacy typed constructor: ``(indices, values, size)`` -> a COO tensor (the values keep their "
                    "dtype, as in torch), or ``(*sizes)`` -> an empty one of this type; ``isinstance`` holds for "
                    "the COO tensors of its dtype.\n\n"
                    "    >>> import torchlike as torch\n"
                    "    >>> torch.sparse.FloatTensor(torch.tensor([[1]]), torch.tensor([2.]), torch.Size([2])).to_dense()\n"
                    "    tensor([0., 2.])\n")
    return ctor


for _n, _dt in LEGACY.items():
    if _n != "BoolTensor":  # (torch.sparse has no BoolTensor)
        globals()[_n] = make_legacy_constructor(_n, _dt, sparse_coo, _legacy(_dt), "torch.sparse")

__getattr__ = module_getattr("torch.sparse")


# ---- methods of sparse tensors -------------------------------------------------------------------------
def _matmul(a, b):
    if isinstance(a, SparseTensor) and a.ndim == 2 and isinstance(b, Tensor) and b.ndim == 1:
        return _ops.mm(a, b.unsqueeze(1)).squeeze(1)
    return _ops.mm(a, b)


def _t(self):
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
    return self if self.ndim < 2 else _ops.transpose(self, 0, 1)


def _sub(a, b, alpha=1):
    return _ops.add(a, b, alpha=-alpha)


def _rsub(a, b):  # b - a (b dense or scalar)
    if isinstance(b, Tensor):
        return _ops.add(b, a, alpha=-1)
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


def _sparse_sum(self, dim=None, keepdim=False, dtype=None):
    if keepdim:
        raise unsupported("sum (keepdim=True)")
    return sum(self, dim, dtype)


def _binop(fn):
    def op(self, other):
        if not isinstance(other, (Tensor, int, float, complex, bool)):
            return NotImplemented
        return fn(self, other)
    return op


_METHODS = {
    "to_dense": to_dense, "to_sparse": to_sparse, "to_sparse_coo": lambda self: to_sparse(self),
    "to_sparse_csr": _ops.to_sparse_csr, "coalesce": coalesce, "t": _t,
    "to_sparse_csc": lambda self, dense_dim=None: _compressed.to_compressed(self, sparse_csc, None, dense_dim),
    "to_sparse_bsr": lambda self, blocksize, dense_dim=None: _compressed.to_compressed(self, sparse_bsr, blocksize,
                                                                                       dense_dim),
    "to_sparse_bsc": lambda self, blocksize, dense_dim=None: _compressed.to_compressed(self, sparse_bsc, blocksize,
                                                                                       dense_dim),
    "transpose": lambda self, d0, d1: _ops.transpose(self, d0, d1), "mm": _ops.mm, "matmul": _matmul,
    "sum": _sparse_sum, "add": _ops.add, "sub": _sub, "mul": _functions.mul, "div": _functions.div,
    "true_divide": _functions.div, "select": _functions.select, "index_select": _functions.index_select,
    "__getitem__": _functions.getitem, "unbind": _functions.unbind, "__iter__": _functions.iterate,
    "unsqueeze": _functions.unsqueeze, "smm": _functions.smm,
    "hspmm": _functions.hspmm, "sspaddmm": _functions.sspaddmm, "addmm": _functions.addmm, "mv": _functions.mv,
    "bmm": _functions.bmm, "norm": _functions.norm,
    "neg": lambda self: _ops.mul(self, -1), "__neg__": lambda self: _ops.mul(self, -1),
    "__matmul__": _binop(_matmul), "__rmatmul__": _binop(lambda self, o: _matmul(o, self)),
    "__add__": _binop(_ops.add), "__radd__": _binop(lambda self, o: _ops.add(o, self)),
    "__sub__": _binop(_sub), "__rsub__": _binop(_rsub),
    "__mul__": _binop(_functions.mul), "__rmul__": _binop(lambda self, o: _functions.mul(o, self)),
    "__truediv__": _binop(_functions.div), "__div__": _binop(_functions.div),
}


def _no_kernel(op):
    def method(self, *args, **kwargs):
        raise unsupported(op, "SparseCsrCPU" if self.is_sparse_csr else "SparseCPU")
    return method


# torch has no sparse kernel behind these (torch.sparse.softmax is the sparse softmax)
SparseTensor.softmax, SparseTensor.log_softmax = _no_kernel("_softmax"), _no_kernel("_log_softmax")
for _n, _f in _METHODS.items():
    if _f is not None:
        setattr(SparseTensor, _n, _f)

# zero-preserving value-wise ops: torch coalesces, then applies the op to the values
_VALUEWISE = ("abs", "sqrt", "sin", "tan", "tanh", "asin", "atan", "sinh", "asinh", "atanh", "arcsin", "arctan",
              "relu", "sign", "sgn", "floor", "ceil", "round", "trunc", "expm1", "log1p", "square", "erf", "erfinv",
              "frac", "deg2rad", "rad2deg", "signbit", "isnan", "isinf", "nan_to_num", "pow", "floor_divide")


def _valuewise(name):
    def op(self, *args, **kwargs):
        c = coalesce(self) if self.layout is _ops.sparse_coo else self
        return _ops._with_values(c, getattr(c._vals, name)(*args, **kwargs), True)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``{name}`` of the values of the coalesced sparse tensor (zeros stay zeros)."
    return op


for _n in _VALUEWISE:
    setattr(SparseTensor, _n, _valuewise(_n))

# torch namespace functions that retry on a sparse operand (its method, or a dense-first form)
_ROUTED = frozenset(n for n in list(_METHODS) + list(_VALUEWISE) + list(_functions.DENSE_FIRST) +
                    ["cat", "concat", "concatenate", "stack", "clone", "neg"]
                    if not n.startswith("_") and not n.endswith("_"))
# the op table's ``sparse`` field of each (OpEntry.sparse): the functions install() generates for these ops and
# their in-place methods (``dense.add_(sparse)``) fall back to the sparse kernel; the methods stay the table's
# functions, so ``dense.add(sparse)`` is not routed (``torch.add(dense, sparse)``, ``dense + sparse`` and
# ``dense @ sparse`` are)
_creation.layout_like.append(_functions.like)  # torch.zeros_like(sparse) ... (a hook of _creation, layer 3)
_registry.sparse_kernels(sorted(n for n in _ROUTED if ("torch", n) in _registry.TABLE), _functions.kernel)


def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse: the sparse COO tensor holding this tensor's nonzeros (the first ``sparse_dim``
    dimensions sparse; ``layout=torch.sparse_csr`` for CSR).

    >>> import torchlike as torch
    >>> torch.tensor([[0., 2.], [3., 0.]]).to_sparse().indices()
    tensor([[0, 1],
            [1, 0]])
    """
    return to_sparse(self, sparse_dim, layout=layout, blocksize=blocksize, dense_dim=dense_dim)


def _to_sparse_coo(self):
    """Tensor.to_sparse_coo: ``to_sparse()``.

    >>> import torchlike as torch
    >>> torch.eye(2).to_sparse_coo()._nnz()
    2
    """
    return to_sparse(self)


def _to_dense(self, dtype=None, *, masked_grad=None):
    """Tensor.to_dense: a strided tensor is returned as is (cast to ``dtype`` if given).

    >>> import torchlike as torch
    >>> x = torch.ones(2)
    >>> x.to_dense() is x
    True
    """
    if type(self) is SparseTensor:  # Tensor.to_dense(sparse)
        return to_dense(self, dtype)
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"to_dense(): argument 'dtype' (position 1) must be torch.dtype, not {type(dtype).__name__}")
    return self if dtype is None else self.to(dtype)


# the conversions of a dense tensor: method-only entries of the op table (a sparse tensor has its own, above)
for _n, _f in (("to_sparse", _to_sparse), ("to_sparse_coo", _to_sparse_coo), ("to_sparse_csr", _ops.to_sparse_csr),
               ("to_sparse_csc", _METHODS["to_sparse_csc"]), ("to_sparse_bsr", _METHODS["to_sparse_bsr"]),
               ("to_sparse_bsc", _METHODS["to_sparse_bsc"]), ("to_dense", _to_dense)):
    _registry.register(_n, namespaces=(), promote="none")(_f)


# ---- hooks on dense tensors and on the torch namespace --------------------------------------------------
def _install(torch_ns):
    """Give dense Tensors ``is_sparse_csr`` and the torch namespace the sparse-only functions and constructors."""
    Tensor.is_sparse_csr = False
    torch_ns.smm, torch_ns.hspmm, torch_ns.sspaddmm = _functions.smm, _functions.hspmm, _functions.sspaddmm
    torch_ns.spmm = spmm
    torch_ns.sparse_coo_tensor = sparse_coo_tensor
    torch_ns.sparse_csr_tensor = sparse_csr_tensor
    torch_ns.sparse_csc_tensor, torch_ns.sparse_bsr_tensor = sparse_csc_tensor, sparse_bsr_tensor
    torch_ns.sparse_bsc_tensor, torch_ns.sparse_compressed_tensor = sparse_bsc_tensor, sparse_compressed_tensor
