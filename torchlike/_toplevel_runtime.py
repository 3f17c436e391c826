"""Top-level ``torch.*`` names about the runtime rather than tensors: build flags (``USE_GLOBAL_DEPS``,
``compiled_with_cxx11_abi``), thread/denormal switches, ``torch.fork``/``torch.wait``, ``torch.from_file``,
the symbolic-shape range checks on plain ints, the functions torch removed in 1.9 (``torch.eig``,
``torch.solve``, ...: they raise torch's own RuntimeError with its migration hint), the legacy sparse
products (``dsmm``, ``hsmm``, ``saddmm``), ``lobpcg`` and the TorchScript IR entry points (which raise
NotImplementedError: torchlike has no TorchScript, see docs/differences.md).

>>> import torchlike as torch
>>> torch.fork(lambda x: x * 2, 21).wait()
42
>>> torch.sym_constrain_range_for_size(3) is None
True
"""
from __future__ import annotations

import functools
import os

import numpy as np

from . import _creation, _dtype, compiler as _compiler, linalg
from .sparse._ops import sparse_coo_tensor
from ._ops.signatures import parses
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass, StorageBase  # noqa: F401 (torch.X too)
from .jit import Error as JITException, fork, wait  # noqa: F401
from .random import thread_safe_generator  # noqa: F401

__all__ = ["PRIVATE_OPS", "TYPE_CHECKING", "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH", "FatalError",
           "JITException", "DisableTorchFunction", "DisableTorchFunctionSubclass", "StorageBase", "classproperty",
           "compiled_with_cxx11_abi", "fork", "wait", "get_file_path", "init_num_threads",
           "prepare_multiprocessing_environment", "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
           "set_flush_denormal", "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size",
           "thread_safe_generator", "from_file", "eig", "lstsq", "solve", "symeig", "matrix_rank", "dsmm", "hsmm",
           "saddmm", "resize_as_sparse_", "lobpcg", "import_ir_module", "import_ir_module_from_buffer", "parse_ir",
           "parse_schema", "parse_type_comment", "merge_type_from_type_comment", "unify_type_list", "_disable_dynamo"]

PRIVATE_OPS = ("unique_dim",)
TYPE_CHECKING = False
USE_GLOBAL_DEPS = True
USE_RTLD_GLOBAL_WITH_LIBTORCH = False


class FatalError(Exception):
    """torch.FatalError."""


FatalError.__module__ = "torchlike"


class _ClassPropertyDescriptor:
    def __init__(self, fget):
        self.fget = fget

    def __get__(self, instance, owner=None):
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func):
    """torch.classproperty: a read-only property of the class (``torch._utils.classproperty``).

    >>> import torchlike
    >>> class A:
    ...     @torchlike.classproperty
    ...     def name(cls):
    ...         return cls.__name__
    >>> A.name
    'A'
    """
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)


def compiled_with_cxx11_abi() -> bool:
    """True, as torch 2.13's wheels answer (libraries read it to pick extension build flags)."""
    return True


def get_file_path(*path_components: str) -> str:
    """The path of ``path_components`` under the directory that holds the package (torch's helper)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)


def init_num_threads() -> None:
    """Nothing to initialise: XLA owns its thread pools."""


def prepare_multiprocessing_environment(path: str) -> None:
    """Nothing to prepare (torch's hook for internal builds)."""


def profiler_allow_cudagraph_cupti_lazy_reinit_cuda12() -> bool:
    """True, torch's answer."""
    return True


def set_flush_denormal(mode: bool) -> bool:
    """False: XLA decides denormal handling per kernel, so the mode cannot be set here (torch returns False
    where it is not supported)."""
    return False


def _check_range(size, lo, hi, op):
    if size is None or isinstance(size, (str, bytes, list, tuple, dict)):  # (not a number, nor a traced one)
        raise TypeError(f"{op}(): argument 'size' (position 1) must be Number, not {type(size).__name__}")
    if isinstance(size, (int, np.integer)) and not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def sym_constrain_range(size, *, min=None, max=None):  # noqa: A002 - torch's names
    """On a plain int, check ``min <= size <= max`` (torch.export records the range on a symbolic one)."""
    _check_range(size, -(2 ** 63) if min is None else min, 2 ** 63 - 1 if max is None else max, "sym_constrain_range")


def sym_constrain_range_for_size(size, *, min=None, max=None):  # noqa: A002 - torch's names
    """``sym_constrain_range`` for a size: ``min`` defaults to 0."""
    _check_range(size, 0 if min is None else min, 2 ** 63 - 1 if max is None else max,
                 "sym_constrain_range_for_size")


def sym_fresh_size(expr):
    """torch.sym_fresh_size: ``expr`` as a fresh (unbacked) size; eagerly, its value."""
    return _creation.tensor(expr).item()


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False):
    """torch.from_file: ``size`` elements of ``dtype`` read from the start of ``filename``.

    ``shared=True`` (writes to the tensor reach the file) needs a memory-mapped tensor, which a JAX array
    cannot be: it raises NotImplementedError (docs/differences.md).
    """
    if shared:
        raise NotImplementedError("torch.from_file(shared=True) is not supported by torchlike: tensors cannot map a "
                                  "file's memory (see docs/differences.md)")
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    want = int(size) * dt.itemsize
    have = os.path.getsize(filename)
    if want > have:
        raise RuntimeError(f"unable to mmap {want} bytes from file <{filename}>: Cannot allocate memory (12)")
    data = np.fromfile(filename, dtype=dt.np, count=int(size))
    return _creation.from_numpy(data.copy()).to(device) if device is not None else _creation.from_numpy(data.copy())


# --- functions torch removed in 1.9: the same RuntimeError and hint ------------------------------------
_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def eig(self, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
        "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
        "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of "
        "the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of "
        "the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A."
        "size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def solve(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
        "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A)."
        "solution should be replaced with:\nX = torch.linalg.solve(A, B)")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
        "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
        "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
        "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


# --- the legacy sparse products ------------------------------------------------------------------------
def _need_sparse(t):
    if not getattr(t, "is_sparse", False):
        raise RuntimeError("self.is_sparse() INTERNAL ASSERT FAILED: _internal_get_SparseTensorImpl: not a sparse "
                           "tensor")


@parses("Tensor input, Tensor mat2, *, Tensor? out=None", "Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor? out=None", name="mm")  # (torch.dsmm is mm: its errors name mm)
def dsmm(input, mat2):
    """torch.dsmm: ``input @ mat2`` as a dense tensor (``input`` sparse or dense)."""
    return input @ mat2


@parses("Tensor input, Tensor mat2", name="hspmm")
def hsmm(input, mat2):
    """torch.hsmm: the sparse ``input`` times dense ``mat2``, as a sparse COO tensor."""
    _need_sparse(input)
    return (input @ mat2).to_sparse()


@parses("Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None", name="sspaddmm")
def saddmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """torch.saddmm: ``beta * input + alpha * (mat1 @ mat2)`` for a sparse ``input`` and ``mat1``, sparse."""
    _need_sparse(input)
    _need_sparse(mat1)
    r = (input.to_dense() * beta + (mat1 @ mat2) * alpha).to_sparse()
    return r if out is None else out.copy_(r)


@parses("Tensor input, Tensor the_template")
def resize_as_sparse_(input, the_template):
    """torch.resize_as_sparse_: the sparse ``input`` takes the template's size in place, keeping its entries."""
    _need_sparse(input)
    _need_sparse(the_template)
    if the_template.sparse_dim() != input.sparse_dim() or the_template.dense_dim() != input.dense_dim():
        raise NotImplementedError("torch.resize_as_sparse_ changing sparse_dim/dense_dim is not supported by "
                                  "torchlike (see docs/differences.md)")
    c = input.coalesce()
    return input.copy_(sparse_coo_tensor(c.indices(), c.values(), tuple(the_template.shape)))


# --- lobpcg -----------------------------------------------------------------------------------------------
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """torch.lobpcg: the ``k`` largest (or smallest) eigenpairs of the symmetric (generalized) problem
    ``A X = B X E``. Here the converged answer comes from a dense symmetric eigendecomposition (exact where
    torch iterates; differentiable), so ``niter``/``tol``/``method``/``tracker``/``iK`` change nothing.

    >>> import torchlike as torch
    >>> E, V = torch.lobpcg(torch.diag(torch.tensor([1., 2., 3., 4., 5.])), k=1)
    >>> E.tolist()
    [5.0]
    """
    if X is not None:
        k = X.shape[-1]
    k = 1 if k is None else int(k)
    if A.shape[-1] < 3 * k:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={A.shape[-1]}) is smaller "
                         f"than 3 x the number of requested eigenpairs (={k})")
    largest = True if largest is None else largest
    A = (A + A.mT) / 2  # torch symmetrizes the input (its gradient is the symmetric part)
    if B is None:
        E, V = linalg.eigh(A)
    else:
        L = linalg.cholesky(B)
        Li = linalg.inv(L)
        E, W = linalg.eigh(Li @ A @ Li.mT)
        V = Li.mT @ W
    if largest:
        E, V = E.flip(-1), V.flip(-1)
    return E[..., :k], V[..., :k]


# --- the TorchScript IR: no TorchScript here -------------------------------------------------------------
def _torchscript_only(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"torch.{name} is not supported by torchlike: it belongs to the TorchScript IR, "
                                  f"which torchlike does not have (see docs/differences.md)")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: TorchScript IR only; raises NotImplementedError here."
    return fn


import_ir_module = _torchscript_only("import_ir_module")
import_ir_module_from_buffer = _torchscript_only("import_ir_module_from_buffer")
parse_ir = _torchscript_only("parse_ir")
parse_schema = _torchscript_only("parse_schema")
parse_type_comment = _torchscript_only("parse_type_comment")
merge_type_from_type_comment = _torchscript_only("merge_type_from_type_comment")
unify_type_list = _torchscript_only("unify_type_list")


def _disable_dynamo(fn=None, recursive=True):
    """torch._disable_dynamo: ``torch.compiler.disable`` for torch's own code (optimizer ``step``/``zero_grad``
    methods of libraries such as torch-optimi carry it), usable bare or as ``@_disable_dynamo(recursive=False)``.

    >>> import torchlike
    >>> torchlike._disable_dynamo(lambda x: x + 1)(torchlike.ones(1))
    tensor([2.])
    """
    if fn is None:
        return functools.partial(_disable_dynamo, recursive=recursive)
    return _compiler.disable(fn, recursive)
