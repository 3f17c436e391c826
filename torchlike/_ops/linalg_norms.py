"""torchlike.linalg, part 3: norms, pinv, matrix_rank, lstsq, matrix_power, cond, tensorinv/solve, vander.

    >>> import torchlike as torch
    >>> torch.linalg.vector_norm(torch.tensor([3., 4.])).item()
    5.0
"""
from __future__ import annotations

import math
import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, return_types
from ._util import Tensor, cast, dims_arg, dispatch, register, wrap_dim
from .linalg import _inv_msg, _linalg, _lu_info, check_float, check_matrix, check_square, lu_solve_core, mH, \
    raise_info
from .. import _autocast as _amp
from . import reduction
from .linalg_decomp import _check_svd_input, _nan_matrices, svdvals
from .linalg import inv, inv_ex, solve
from .._mutation import write_out
from .lapack_layout import column_major
from .._errors import method_argument_error
from . import checks as C

__all__ = ["vector_norm", "matrix_norm", "linalg_norm", "pinv", "pinverse", "matrix_rank", "lstsq",
           "matrix_power", "cond", "tensorinv", "tensorsolve", "vander"]

HI = lax.Precision.HIGHEST


def _real_dt(d):
    return d.to_real()


# --- vector norms (the kernel is reduction.vnorm, shared with norm and dist) --------------------
@register(method=False, namespaces=("linalg",), out=True)
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """Vector p-norm over ``dim`` (all elements by default); result has a real dtype.

    >>> import torchlike as torch
    >>> torch.linalg.vector_norm(torch.tensor([[3., 4.]]), ord=1, dim=1).tolist()
    [7.0]
    """
    if isinstance(ord, Tensor) and ord.ndim == 0 and not ord.requires_grad:  # (torch's parser takes it as a Number)
        ord = ord.item()
    if isinstance(ord, str) or not isinstance(ord, numbers.Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    d = _dtype.to_dtype(dtype) if dtype is not None else x.dtype
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[x.dtype.name]}")
    dims = dims_arg(dim, x.ndim)
    if dims == () or x.ndim == 0:
        dims = None  # (a 0-d input's dim 0 / -1 is the input itself)
    if ord in (math.inf, -math.inf) or ord < 0:
        red = x.shape if dims is None else [x.shape[i] for i in dims]
        if x.numel() == 0 and (dims is None or 0 in red):
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                               "operation does not have an identity")
    return dispatch(reduction.vnorm_in, (x, float(ord)), (("dims", dims), ("keepdim", bool(keepdim)),
                                                          ("kind", reduction.norm_kind(ord)), ("dt", d.np)),
                    name="LinalgVectorNormBackward0")


# --- matrix norms ------------------------------------------------------------------------------
def _max0(x):
    # torch: the 2 / inf / 1 matrix norms of an empty matrix are 0 (no `initial`: it would share ties)
    return jnp.max(x, -1) if x.shape[-1] else jnp.zeros(x.shape[:-1], x.dtype)


def _mnorm_impl(a, dims, keepdim, dt, ord):
    a = cast(a, dt)
    a = jnp.moveaxis(a, dims, (-2, -1))
    if ord == "fro":
        r = reduction.vnorm(a, 2.0, (-2, -1), False, "two")
    elif ord in ("nuc", 2.0, -2.0):
        s = jnp.linalg.svd(a, compute_uv=False)
        r = jnp.sum(s, -1) if ord == "nuc" else _max0(s) if ord == 2.0 else jnp.min(s, -1)
    else:
        ab = reduction.abs0(a)
        sums = jnp.sum(ab, axis=-2) if abs(ord) == 1 else jnp.sum(ab, axis=-1)
        r = _max0(sums) if ord > 0 else jnp.min(sums, -1)
    if keepdim:
        for d in sorted(dims):
            r = jnp.expand_dims(r, d)
    return r


def _matrix_norm(A, ord, dim, keepdim, dtype, fname="linalg.matrix_norm"):
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if isinstance(dim, (int, np.integer)) or len(dim) != 2:
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got {dim if isinstance(dim, int) else ' '.join(map(str, dim))}")
    dims = (wrap_dim(dim[0], A.ndim), wrap_dim(dim[1], A.ndim))
    if dims[0] == dims[1]:
        raise RuntimeError(f"{fname}: dims must be different. Got ({dims[0]}, {dims[1]})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{fname}: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{fname}: Order {ord:g} not supported." if isinstance(ord, float) else
                           f"{fname}: Order {ord} not supported.")
    else:
        ord = float(ord)
    d = _dtype.to_dtype(dtype) if dtype is not None else A.dtype
    check_float(A, fname, low_precision=ord not in ("nuc", 2.0, -2.0))  # (half types: not through an SVD)
    if not isinstance(ord, str) and ord < 0:
        # torch reduces with amin, which has no identity: name the dim it reduces (after the sum / svd)
        if ord == -2.0:
            if A.shape[dims[0]] == 0 or A.shape[dims[1]] == 0:
                raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        else:
            summed, red = (dims[0], dims[1]) if ord == -1.0 else (dims[1], dims[0])
            if A.shape[red] == 0:
                raise IndexError(f"amin(): Expected reduction dim {red - (summed < red)} to have non-zero size.")
    if A.numel() == 0:
        return dispatch(_mnorm_impl, (A,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", d.np),
                                            ("ord", ord)), name="LinalgMatrixNormBackward0")
    return _matrix_norm_composite(A, ord, dims, keepdim, dtype)


def _matrix_norm_composite(A, ord, dims, keepdim, dtype):
    """torch's CompositeImplicit linalg_matrix_norm: vector_norm for 'fro', svdvals then sum / amax / amin
    for 'nuc' / +-2, a 1-norm over one dim then amax / amin for +-1 / +-inf -- so the grad_fn chain (and
    the tie-splitting gradient of amax / amin) is torch's."""
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim, dtype=dtype)

    def max_min(x, dim):
        return reduction.amax(x, dim, keepdim) if ord > 0 else reduction.amin(x, dim, keepdim)
    if ord in ("nuc", 2.0, -2.0):
        perm = [i for i in range(A.ndim) if i not in dims] + list(dims)
        A_ = A.to(_dtype.to_dtype(dtype)) if dtype is not None else A
        sv = svdvals(A_.permute(perm))
        r = reduction.sum(sv, -1, keepdim) if ord == "nuc" else max_min(sv, -1)
        if keepdim:
            r = r.unsqueeze(-1).permute([perm.index(i) for i in range(A.ndim)])
        return r
    d0, d1 = dims if abs(ord) == 1 else dims[::-1]  # the inf norm is the 1 norm of the transpose
    if not keepdim and d0 < d1:
        d1 -= 1
    return max_min(vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype), d1)


@register(method=False, namespaces=("linalg",), out=True)
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Matrix norm: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf over the two dims ``dim``.

    >>> import torchlike as torch
    >>> torch.linalg.matrix_norm(torch.eye(2), ord='nuc').item()
    2.0
    """
    return _matrix_norm(A, ord, dim, keepdim, dtype)


@_linalg("norm")
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """torch.linalg.norm: vector or matrix norm depending on ``ord`` / ``dim``.

    >>> import torchlike as torch
    >>> torch.linalg.norm(torch.tensor([[3., 4.]])).item()
    5.0
    """
    if dim is not None:
        dim = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if isinstance(ord, str) or (dim is not None and len(dim) != 1) or (dim is None and ord is not None
                                                                         and A.ndim == 2):
        r = _matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype)
    elif dim is None and ord is not None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    else:
        r = vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    return r if out is None else _write(out, r)


linalg_norm.__name__ = "norm"


def _write(out, r):
    return write_out(out, r)


# --- pseudo-inverse and rank -------------------------------------------------------------------
def _tols(s_max, atol, rtol, mn, dt, atol_given, rtol_given):
    eps = jnp.finfo(dt).eps
    default = eps * mn
    atol_v = jnp.asarray(atol, dt) if atol_given else jnp.zeros((), dt)
    if rtol_given:
        rtol_v = jnp.asarray(rtol, dt)
    elif atol_given:
        rtol_v = jnp.where(atol_v > 0, 0, default).astype(dt)
    else:
        rtol_v = jnp.asarray(default, dt)
    return jnp.maximum(atol_v, rtol_v * s_max)


def _pinv_value(a, atol, rtol, hermitian, atol_given, rtol_given):
    m, n = a.shape[-2:]
    rd = jnp.real(a).dtype
    if hermitian:
        # torch reads the lower triangle only (LAPACK syevd with UPLO='L'); its gradient is still the
        # pseudo-inverse formula below evaluated with the full input, as here
        v, w = lax.linalg.eigh(a, lower=True, symmetrize_input=False)
        aw = jnp.abs(w)
        tol = _tols(jnp.max(aw, -1), atol, rtol, max(m, n), rd, atol_given, rtol_given)
        winv = jnp.where(aw > tol[..., None], 1 / jnp.where(aw > tol[..., None], w, 1), 0).astype(a.dtype)
        return jnp.matmul(v * winv[..., None, :], mH(v), precision=HI)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    tol = _tols(jnp.max(s, -1, initial=0), atol, rtol, max(m, n), rd, atol_given, rtol_given)
    keep = s > tol[..., None]
    sinv = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(a.dtype)
    return jnp.matmul(mH(vh) * sinv[..., None, :], mH(u), precision=HI)


_pinv_core = jax.custom_jvp(_pinv_value, nondiff_argnums=(3, 4, 5))


@_pinv_core.defjvp
def _pinv_jvp(hermitian, atol_given, rtol_given, primals, tangents):
    # Golub & Pereyra's derivative of the pseudo-inverse (constant rank), as jnp.linalg.pinv
    a, atol, rtol = primals
    a_dot = tangents[0]
    p = _pinv_core(a, atol, rtol, hermitian, atol_given, rtol_given)
    mm = lambda x, y: jnp.matmul(x, y, precision=HI)  # noqa: E731
    s = mm(mm(p, mH(p)), mH(a_dot))
    t = mm(mm(mH(a_dot), mH(p)), p)
    p_dot = -mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    return p, p_dot


def _pinv_impl(a, atol, rtol, hermitian, atol_given, rtol_given):
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return jnp.zeros(a.shape[:-2] + (n, m), a.dtype)
    rd = jnp.real(a).dtype
    atol = jnp.asarray(atol, rd)
    rtol = jnp.asarray(rtol, rd)
    return _pinv_core(a, atol, rtol, hermitian, atol_given, rtol_given)


def _tol_arg(v):
    return 0.0 if v is None else (v if isinstance(v, Tensor) else float(v))


@register(method=False, namespaces=("linalg",), out=True)
@_amp.lower_result()  # torch decomposes pinv into svd + matmul: the result is in the autocast dtype
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values <= max(atol, rtol * s_max) are dropped.

    >>> import torchlike as torch
    >>> torch.linalg.pinv(2 * torch.eye(2)).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    if rcond is not None:
        rtol = rcond
    if A.dtype not in (_dtype.float32, _dtype.float64, _dtype.complex64, _dtype.complex128) or A.ndim < 2:
        raise RuntimeError(f"linalg.pinv({_dtype._CAP[A.dtype.name]}{{{list(A.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        check_square(A, "linalg.eigh")
    else:
        _check_svd_input(A)  # (torch's pinv runs linalg.svd, which refuses a NaN)
    return dispatch(_pinv_impl, (A, _tol_arg(atol), _tol_arg(rtol)),
                    (("hermitian", bool(hermitian)), ("atol_given", atol is not None),
                     ("rtol_given", rtol is not None)), name="LinalgPinvBackward0")


@register(method=True, namespaces=("torch",))
@_amp.fp32
def pinverse(input, rcond=1e-15):
    """torch.pinverse: pinv with relative cutoff ``rcond``.

    >>> import torchlike as torch
    >>> torch.pinverse(torch.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if rcond is None:  # (pinv takes None; torch's parser rejects it here)
        raise method_argument_error(rcond, "float", "rcond", "pinverse", 1)
    return pinv(input, rtol=rcond)


def _rank_impl(a, atol, rtol, hermitian, atol_given, rtol_given):
    m, n = a.shape[-2:]
    rd = jnp.real(a).dtype
    if m == 0 or n == 0:
        return jnp.zeros(a.shape[:-2], np.int64)
    # hermitian: only the lower triangle is read, as LAPACK (and torch) do
    s = jnp.abs(jnp.linalg.eigvalsh(a, UPLO="L", symmetrize_input=False)) if hermitian else \
        jnp.linalg.svd(a, compute_uv=False)
    tol = _tols(jnp.max(s, -1), jnp.asarray(atol, rd), jnp.asarray(rtol, rd), max(m, n), rd, atol_given,
                rtol_given)
    return jnp.sum(s > tol[..., None], -1).astype(np.int64)


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """Numerical rank: the number of singular values above max(atol, rtol * s_max).

    >>> import torchlike as torch
    >>> torch.linalg.matrix_rank(torch.ones(3, 3)).item()
    1
    """
    if tol is not None:
        atol, rtol = tol, 0.0
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError("This function doesn't handle types other than float and double")
    check_matrix(A, "linalg.matrix_rank")
    if hermitian:
        check_square(A, "linalg.eigh")
    else:
        _check_svd_input(A)  # (torch's matrix_rank runs linalg.svdvals, which refuses a NaN)
    return dispatch(_rank_impl, (A, _tol_arg(atol), _tol_arg(rtol)),
                    (("hermitian", bool(hermitian)), ("atol_given", atol is not None),
                     ("rtol_given", rtol is not None)), name="LinalgMatrixRankBackward0", diff=False)


# --- least squares -----------------------------------------------------------------------------
def _lstsq_impl(a, b, rcond, vector, driver, rcond_given):
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    m, n = a.shape[-2:]
    rd = jnp.real(a).dtype
    rc = jnp.asarray(rcond, rd)
    x = jnp.matmul(_pinv_core(a, jnp.zeros((), rd), rc, False, False, rcond_given), b, precision=HI)
    s = jnp.linalg.svd(a, compute_uv=False) if min(m, n) else jnp.zeros(batch + (0,), rd)
    tol = _tols(jnp.max(s, -1, initial=0), jnp.zeros((), rd), rc, max(m, n), rd, False, rcond_given)
    rank = jnp.sum(s > tol[..., None], -1).astype(np.int64)
    res = jnp.sum(jnp.abs(jnp.matmul(a, x, precision=HI) - b) ** 2, axis=-2)
    if vector:
        x = x[..., 0]
        res = res[..., 0]
    return x, res, rank, s


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (torch.return_types.linalg_lstsq).

    Which of residuals / rank / singular_values are filled depends on ``driver`` as in torch
    (default 'gelsy': rank only).

    >>> import torchlike as torch
    >>> torch.linalg.lstsq(torch.eye(2), torch.ones(2, 1)).solution.tolist()
    [[1.0], [1.0]]
    """
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError("This function doesn't handle types other than float and double")
    check_matrix(A, "torch.linalg.lstsq")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    vector = B.ndim == A.ndim - 1
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)" if not vector else
                           "torch.linalg.lstsq: input.size(-2) should match other.size(-1)")
    _check_lapack_nan(A, B, driver)
    x, res, rank, s = dispatch(_lstsq_impl, (A, B, 0.0 if rcond is None else float(rcond)),
                               (("vector", vector), ("driver", driver), ("rcond_given", rcond is not None)),
                               name="LinalgLstsqBackward0")
    m, n = A.shape[-2:]
    empty = lambda dt: Tensor._wrap(jnp.zeros((0,), dt), x._dev)  # noqa: E731
    full_rank = not isinstance(rank._value, jax.core.Tracer) and bool(np.all(np.asarray(rank._value) == n))
    if driver == "gelsy" or not (m > n and full_rank):
        res = res.reshape(-1)[:0]          # empty, but still an output of the differentiable op (as torch)
    if driver == "gels":
        rank = empty(np.int64)
    # torch: singular_values never require grad
    s = s.detach() if driver in ("gelsd", "gelss") else empty(s.dtype.np)
    if not vector and m <= n:
        # torch's solution is column-major; for m > n it is the first n rows of a column-major (max(m, n), k)
        # buffer (strides with gaps: docs/differences.md), and a vector solution is row-major (with a gap then)
        column_major(x)
    return return_types.linalg_lstsq(x, res, rank, s)


def _check_lapack_nan(A, B, driver):
    """oneMKL's LAPACK least-squares drivers refuse a NaN in A (argument 4, gels: 5) or B (6, gels: 7): they
    print their complaint to stdout once per refused matrix, and torch's check of the info raises on the first
    (torch.linalg.lstsq's internal assert, naming the batch element)."""
    bad_a, bad_b = _nan_matrices(A), _nan_matrices(B if B.ndim == A.ndim else B.unsqueeze(-1))
    if bad_a is None or bad_b is None or not (bad_a.any() or bad_b.any()):
        return
    batch = np.broadcast_shapes(bad_a.shape, bad_b.shape)
    bad_a, bad_b = np.broadcast_to(bad_a, batch).reshape(-1), np.broadcast_to(bad_b, batch).reshape(-1)
    gels = driver == "gels"
    args = np.where(bad_a, 5 if gels else 4, np.where(bad_b, 7 if gels else 6, 0))
    routine = {"float32": "S", "float64": "D", "complex64": "C", "complex128": "Z"}[A.dtype.name] + driver.upper()
    for arg in args[args > 0]:
        print(f"\nIntel oneMKL ERROR: Parameter {arg} was incorrect on entry to {routine}.", flush=True)
    first = int(np.flatnonzero(args)[0])
    where = f"(Batch element {first}): " if batch else ""
    raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.'
                       'cpp":1613, please report a bug to PyTorch. torch.linalg.lstsq: ' + where + f"Argument "
                       f"{args[first]} has illegal value. Most certainly there is a bug in the implementation calling "
                       "the backend library.")


def _ord_text(p):
    # c10's printing of the Scalar ord in linalg.cond's messages: 1, inf, 1.000000
    if isinstance(p, float) and not math.isinf(p):
        return f"{p:f}"
    return str(p)


# --- matrix_power, cond ------------------------------------------------------------------------
def _mpow_impl(a, n):
    if n < 0 and a.shape[-1] == 0:  # (an empty matrix is its own inverse and power)
        return a, jnp.zeros(a.shape[:-2], np.int32)
    if n < 0:
        lu, _, perm = lax.linalg.lu(a)
        a = lu_solve_core(lu, perm, jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape))
        info = _lu_info(lu)
        n = -n
    else:
        info = jnp.zeros(a.shape[:-2], np.int32)
    mm = lambda x, y: jnp.matmul(x, y, precision=HI)  # noqa: E731
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else mm(result, base)
        n >>= 1
        if n:
            base = mm(base, base)
    if result is None:
        result = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return result, info


@register(method=True, namespaces=("torch", "linalg"), out=True)
@_amp.lower_powers
def matrix_power(A, n):
    """``A`` to the integer power ``n`` (negative powers invert first).

    >>> import torchlike as torch
    >>> torch.linalg.matrix_power(2 * torch.eye(2), -1).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    if type(n) is not int:  # (torch's parser takes what indexes, before the matrix checks)
        C.reject_types("matrix_power", (n, "int", "n", 1))
    check_square(A, "linalg.matrix_power")
    n = int(n)
    if n < 0:
        check_float(A, "linalg.inv")
    elif A.dtype is _dtype.bool:
        raise RuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    r, info = dispatch(_mpow_impl, (A,), (("n", n),), name="LinalgMatrixPowerBackward0")
    if n < 0:
        raise_info(info, _inv_msg)
    return r


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def cond(A, p=None):
    """Condition number in the ``p`` norm (2-norm by default: s_max / s_min).

    >>> import torchlike as torch
    >>> torch.linalg.cond(torch.diag(torch.tensor([4., 2.]))).item()
    2.0
    """
    check_matrix(A, "linalg.cond")
    check_float(A, "linalg.cond")
    if p is None or p in (2, -2):
        _check_svd_input(A)  # (torch's cond runs linalg.svdvals, which refuses a NaN)
        s = dispatch(_svdvals_for_cond, (A,), (), name="LinalgCondBackward0")
        smax, smin = s.select(-1, 0), s.select(-1, -1)
        return smax / smin if p in (None, 2) else smin / smax
    check_square(A, f"linalg.cond(ord={_ord_text(p)})")
    if p == "nuc":  # from the singular values: sum(s) * sum(1 / s), with no nan fix (0 * inf stays nan)
        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    # ATen's _linalg_cond_helper: a singular matrix's inverse is all inf (no error), and the product's nan
    # (0 * inf, or a NaN input) is inf
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), float("inf"))
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num(float("inf"), float("inf"), float("-inf"))


def _svdvals_for_cond(a):
    return jnp.linalg.svd(a, compute_uv=False)


# --- tensorinv / tensorsolve / vander ----------------------------------------------------------
@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def tensorinv(A, ind=2):
    """Inverse with respect to tensordot over the first ``ind`` dims.

    >>> import torchlike as torch
    >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
    torch.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return inv(A.reshape(rows, cols)).reshape(out_shape)


@register(method=False, namespaces=("linalg",), out=True)
def tensorsolve(A, B, dims=None):
    """Solve ``tensordot(A, X, X.ndim) = B`` for X.

    >>> import torchlike as torch
    >>> torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape
    torch.Size([6])
    """
    if dims is not None:
        nd = A.ndim
        dd = [wrap_dim(d, nd) for d in dims]
        rest = [i for i in range(nd) if i not in dd]
        A = A.permute(*(rest + dd))
    out_shape = tuple(A.shape[B.ndim:])
    rows, cols = B.numel(), math.prod(out_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(out_shape)


def _vander_impl(x, N):
    p = jnp.concatenate([jnp.ones(x.shape + (1,), x.dtype),
                         jnp.cumprod(jnp.broadcast_to(x[..., None], x.shape + (max(N - 1, 0),)), axis=-1)], -1)
    return p[..., :N]


@register(method=False, namespaces=("linalg",))
def vander(x, *, N=None):
    """Vandermonde matrix with increasing powers ``x**0 ... x**(N-1)``.

    >>> import torchlike as torch
    >>> torch.linalg.vander(torch.tensor([2, 3])).tolist()
    [[1, 2], [1, 3]]
    """
    if x.dtype is _dtype.bool:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x.ndim == 0:   # torch treats a scalar as a one-element vector
        x = x.reshape(1)
    N = x.shape[-1] if N is None else int(N)
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    dt = _dtype.int64 if x.dtype._kind <= 1 else x.dtype
    return dispatch(_vander_impl, (x.to(dt) if dt is not x.dtype else x,), (("N", N),),
                    name="LinalgVanderBackward0")
