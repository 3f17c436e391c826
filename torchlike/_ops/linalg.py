"""torchlike.linalg, part 1: inverses, solves, determinants and Cholesky (LU: linalg_lu.py).

Singular / non-positive-definite inputs raise ``torchlike.linalg.LinAlgError`` (a RuntimeError) with
torch's message; the check reads a small ``info`` array the jitted kernel returns.

    >>> import torchlike as torch
    >>> torch.linalg.inv(2 * torch.eye(2)).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
"""
from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, return_types
from .._errors import argument_error, bool_arg, torch_warn
from .. import linalg as _ns
from .._tape import relabel
from ._util import Tensor, dispatch, register, wrap_dim
from .. import _autocast as _amp
from .._mutation import write_out
from .lapack_layout import column_major
from .._memory_format import set_strides
from .views import diagonal

__all__ = ["LinAlgError", "inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "det", "slogdet", "logdet",
           "cholesky", "cholesky_ex", "cholesky_solve", "cholesky_inverse", "triangular_solve", "inverse"]

HI = lax.Precision.HIGHEST


class LinAlgError(RuntimeError):
    """Raised for singular / non-positive-definite inputs (torch.linalg.LinAlgError)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
_ns.LinAlgError = LinAlgError


def _linalg(name):
    """Declare ``fn`` as the table entry ``linalg.<name>`` (torch.<name> is a separate entry: it differs)."""
    return register(name, namespaces=("linalg",), method=False)


# --- argument checks (torch's wording) ---------------------------------------------------------
def check_matrix(A, fname, arg="A"):
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {arg} must have at least 2 dimensions.")


def check_square(A, fname, arg="A"):
    check_matrix(A, fname, arg)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fname}: {arg} must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def check_float(A, fname, low_precision=False):
    """torch's checkFloatingOrComplex (``low_precision``: float16, bfloat16 and complex32 accepted)."""
    d = A.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[d.name]}")
    if not low_precision and d in (_dtype.float16, _dtype.bfloat16, _dtype.complex32):
        raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got {_dtype._CAP[d.name]}")


def check_same(A, B, fname):
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fname}: Expected A and B to have the same dtype, but found A of type "
                           f"{_dtype._CAP[A.dtype.name]} and B of type {_dtype._CAP[B.dtype.name]} instead")


def raise_info(info, msg, exc=None):
    """Raise LinAlgError (or ``exc``) if any entry of the int ``info`` tensor is non-zero; ``msg(k)`` words it."""
    v = info._value
    if isinstance(v, jax.core.Tracer):
        return
    a = np.asarray(v)
    if not a.any():
        return
    exc = exc or LinAlgError
    if a.ndim == 0:
        raise exc(msg(int(a)))
    idx = int(np.flatnonzero(a.reshape(-1))[0])
    raise exc(msg(int(a.reshape(-1)[idx]), f"(Batch element {idx}): "))


def mT(x):
    return jnp.swapaxes(x, -1, -2)


def mH(x):
    return jnp.conj(mT(x))


# --- LU core -----------------------------------------------------------------------------------
def _lu_info(lu):
    """LAPACK getrf's info: 1-based index of the first exactly-zero pivot, 0 if none."""
    d = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    return jnp.where(jnp.any(d, -1), jnp.argmax(d, -1) + 1, 0).astype(np.int32)


def lu_solve_core(lu, perm, b, trans=0):
    """Solve with an LU factorisation ``A[perm] = L U``; trans 0: A, 1: A^T, 2: A^H."""
    if trans == 0:
        y = jnp.take_along_axis(b, jnp.broadcast_to(perm[..., :, None], b.shape[:-1] + (1,)), axis=-2)
        y = lax.linalg.triangular_solve(lu, y, left_side=True, lower=True, unit_diagonal=True)
        return lax.linalg.triangular_solve(lu, y, left_side=True, lower=False)
    conj = trans == 2
    z = lax.linalg.triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    w = lax.linalg.triangular_solve(lu, z, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                                    conjugate_a=conj)
    inv_perm = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(w, jnp.broadcast_to(inv_perm[..., :, None], w.shape[:-1] + (1,)), axis=-2)


def _eye_like(a):
    n = a.shape[-1]
    return jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape)


def _inv_impl(a):
    if a.shape[-1] == 0:
        return a, jnp.zeros(a.shape[:-2], np.int32)
    lu, _, perm = lax.linalg.lu(a)
    return lu_solve_core(lu, perm, _eye_like(a)), _lu_info(lu)


def _inv_msg(k, pre=""):
    return (f"linalg.inv: {pre}The diagonal element {k} is zero, the inversion could not be completed because "
            "the input matrix is singular.")


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def inv(A):
    """Inverse of a square matrix (batched); singular input raises LinAlgError.

    >>> import torchlike as torch
    >>> torch.linalg.inv(torch.tensor([[2., 0.], [0., 4.]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    check_square(A, "linalg.inv")
    check_float(A, "linalg.inv")
    X, info = dispatch(_inv_impl, (A,), (), name="LinalgInvExBackward0")
    raise_info(info, _inv_msg)
    return column_major(X)


@register(method=True, namespaces=("torch",), out=True)
@_amp.fp32
def inverse(input):
    """torch.inverse: alias of linalg.inv.

    >>> import torchlike as torch
    >>> torch.inverse(torch.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return inv(input)


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def inv_ex(A, *, check_errors=False):
    """(inverse, info) without raising unless ``check_errors``.

    >>> import torchlike as torch
    >>> torch.linalg.inv_ex(torch.zeros(2, 2)).info.item()
    1
    """
    check_square(A, "linalg.inv_ex")
    check_float(A, "linalg.inv_ex")
    X, info = dispatch(_inv_impl, (A,), (), name="LinalgInvExBackward0")
    if check_errors:
        raise_info(info, _inv_msg)
    return return_types.linalg_inv_ex(column_major(X), info)


# --- solve -------------------------------------------------------------------------------------
def _solve_impl(a, b, vector, left):
    if not left:
        a = mT(a)
        if not vector:
            b = mT(b)
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    if a.shape[-1] == 0:
        x = b
        info = jnp.zeros(a.shape[:-2], np.int32)
    else:
        lu, _, perm = lax.linalg.lu(a)  # factor A once, before broadcasting; info has A's batch shape
        info = _lu_info(lu)
        lu = jnp.broadcast_to(lu, batch + lu.shape[-2:])
        perm = jnp.broadcast_to(perm, batch + perm.shape[-1:])
        x = lu_solve_core(lu, perm, b)
    if vector:
        x = x[..., 0]
    elif not left:
        x = mT(x)
    return x, info


def _solve_common(A, B, left, fname):
    check_square(A, fname)
    check_float(A, fname)
    check_same(A, B, fname)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    if vector:
        ok = B.shape[-1] == n
        bs = f"{B.shape[-1]}x1" if left else f"1x{B.shape[-1]}"
    else:
        ok = (B.shape[-2] if left else B.shape[-1]) == n
        bs = f"{B.shape[-2]}x{B.shape[-1]}"
    if not ok:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and {bs})")
    batch_b = B.shape[:-1] if vector else B.shape[:-2]
    try:
        np.broadcast_shapes(tuple(A.shape[:-2]), tuple(batch_b))
    except ValueError:
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and {bs})") from None
    X, info = dispatch(_solve_impl, (A, B), (("vector", vector), ("left", bool(left))),
                       name="LinalgSolveExBackward0")
    return (column_major(X) if left else X), info  # (torch's left=False solve transposes a left one)


def _solve_msg(k, pre=""):
    return f"torch.linalg.solve: {pre}The solver failed because the input matrix is singular."


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def solve(A, B, *, left=True):
    """Solve ``A X = B`` (or ``X A = B`` with ``left=False``), batched and broadcasting.

    >>> import torchlike as torch
    >>> torch.linalg.solve(2 * torch.eye(2), torch.ones(2)).tolist()
    [0.5, 0.5]
    """
    X, info = _solve_common(A, B, left, "linalg.solve")
    raise_info(info, _solve_msg)
    return X


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info) version of linalg.solve.

    >>> import torchlike as torch
    >>> torch.linalg.solve_ex(torch.eye(2), torch.ones(2)).info.item()
    0
    """
    X, info = _solve_common(A, B, left, "linalg.solve_ex")
    if check_errors:
        raise_info(info, _solve_msg)
    return return_types.make("linalg_solve_ex", ("result", "info"))(X, info)


def _solve_tri_impl(a, b, upper, left, unitriangular):
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    a = jnp.triu(a) if upper else jnp.tril(a)  # torch reads one triangle only (and so does the gradient)
    return lax.linalg.triangular_solve(a, b, left_side=left, lower=not upper, unit_diagonal=unitriangular)


@register(method=False, namespaces=("linalg",), out=True)
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """Solve a triangular system ``A X = B`` (``X A = B`` with ``left=False``).

    >>> import torchlike as torch
    >>> torch.linalg.solve_triangular(2 * torch.eye(2), torch.ones(2, 1), upper=True).tolist()
    [[0.5], [0.5]]
    """
    fn = "linalg.solve_triangular"
    check_matrix(A, fn)
    check_matrix(B, fn, "B")
    check_square(A, fn)
    check_float(A, fn)
    check_same(A, B, fn)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    return column_major(dispatch(_solve_tri_impl, (A, B), (("upper", bool(upper)), ("left", bool(left)),
                                                           ("unitriangular", bool(unitriangular))),
                                 name="LinalgSolveTriangularBackward0"))


def _triangular_solve_out(out, input, A, upper=True, transpose=False, unitriangular=False):
    r = triangular_solve(input, A, upper, transpose, unitriangular)  # (its argument errors first, as torch's)
    for o in out:
        if o.dtype is not r[0].dtype:  # (torch writes no cast into triangular_solve's out)
            raise RuntimeError(f"Expected out tensor to have dtype {_dtype.C_NAMES[r[0].dtype.name]}, but got "
                               f"{_dtype.C_NAMES[o.dtype.name]} instead")
    return return_types.make("triangular_solve_out", ("solution", "cloned_coefficient"))(
        *write_out(tuple(out), tuple(r), "triangular_solve"))


@register(method=True, namespaces=("torch",), out_form=_triangular_solve_out)
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated torch.triangular_solve(b, A): returns (solution, cloned_coefficient).

    >>> import torchlike as torch
    >>> torch.triangular_solve(torch.ones(2, 1), 2 * torch.eye(2)).solution.tolist()
    [[0.5], [0.5]]
    """
    torch_warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in "
               "a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
               "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
               "with\nX = torch.linalg.solve_triangular(A, B).", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2273",
               once=True)
    A2 = A.mT if transpose else A
    X = solve_triangular(A2, input, upper=(not upper) if transpose else upper, unitriangular=unitriangular)
    X = relabel(X, "TriangularSolveBackward0", only="LinalgSolveTriangularBackward0")
    # (torch's cloned_coefficient is A broadcast to the solution's batch shape)
    A_c = A.expand(tuple(X.shape[:-2]) + tuple(A.shape[-2:])).clone()
    return column_major(return_types.make("triangular_solve", ("solution", "cloned_coefficient"))(X, A_c))


# --- determinants ------------------------------------------------------------------------------
def _det_impl(a):
    if a.shape[-1] == 0:
        return jnp.ones(a.shape[:-2], a.dtype)
    return jnp.linalg.det(a)


@register(method=True, namespaces=("torch", "linalg"), out=True)
def det(A):
    """Determinant (batched).

    >>> import torchlike as torch
    >>> torch.linalg.det(2 * torch.eye(2)).item()
    4.0
    """
    check_square(A, "linalg.det")
    check_float(A, "linalg.det")
    return dispatch(_det_impl, (A,), (), name="LinalgDetBackward0")


def _slogdet_impl(a):
    if a.shape[-1] == 0:
        return jnp.ones(a.shape[:-2], a.dtype), jnp.zeros(a.shape[:-2], jnp.real(a).dtype)
    s, l = jnp.linalg.slogdet(a)
    return s.astype(a.dtype), l


def _slogdet(A, fname):
    check_square(A, fname)
    check_float(A, fname)
    return dispatch(_slogdet_impl, (A,), (), name="LinalgSlogdetBackward0")


@register(method=True, namespaces=("torch",))
def slogdet(input):
    """(sign, log|det|) as torch.return_types.slogdet.

    >>> import torchlike as torch
    >>> torch.slogdet(-torch.eye(3)).sign.item()
    -1.0
    """
    return return_types.slogdet(*_slogdet(input, "linalg.slogdet"))


@_linalg("slogdet")
def linalg_slogdet(A, *, out=None):
    """(sign, log|det|) as torch.return_types.linalg_slogdet.

    >>> import torchlike as torch
    >>> torch.linalg.slogdet(2 * torch.eye(2)).logabsdet.item() > 1.38
    True
    """
    r = return_types.linalg_slogdet(*_slogdet(A, "linalg.slogdet"))
    if out is not None:
        return write_out(out, r, "_linalg_slogdet")
    return r


linalg_slogdet.__name__ = "slogdet"


def _logdet_impl(a):
    s, l = _slogdet_impl(a)
    if jnp.iscomplexobj(a):
        return jnp.log(s) + l.astype(a.dtype)
    return jnp.where(s < 0, jnp.nan, l).astype(a.dtype)


@register(method=True, namespaces=("torch",))
def logdet(input):
    """log(det(A)); nan for a negative determinant, -inf for zero.

    >>> import torchlike as torch
    >>> torch.logdet(torch.eye(2)).item()
    0.0
    """
    check_square(input, "linalg.slogdet")
    check_float(input, "linalg.slogdet")
    # torch composes it from slogdet: where(sign == -1, nan, logabsdet), or sign.log() + logabsdet if complex
    return dispatch(_logdet_impl, (input,), (), name="AddBackward0" if input.dtype.is_complex else "WhereBackward0")


# --- Cholesky ----------------------------------------------------------------------------------
@jax.custom_vjp
def _chol_core(a):
    """Cholesky of the Hermitian matrix given by a's lower triangle (as LAPACK potrf reads it)."""
    return lax.linalg.cholesky(jnp.tril(a) + mH(jnp.tril(a, -1)), symmetrize_input=False)


def _chol_fwd(a):
    L = _chol_core(a)
    return L, L


def _chol_bwd(L, g):
    # torch's cholesky_backward (its gradient is not exactly Hermitian for complex inputs); JAX's
    # cotangents are the conjugates of torch's gradients
    gL = jnp.conj(g)
    gA = jnp.tril(jnp.matmul(mH(L), gL, precision=HI))
    gA = 0.5 * (gA + mH(jnp.tril(gA, -1)))
    gA = lax.linalg.triangular_solve(L, gA, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    gA = lax.linalg.triangular_solve(L, gA, left_side=False, lower=True)
    return (jnp.conj(gA),)


_chol_core.defvjp(_chol_fwd, _chol_bwd)


def _chol_impl(a, upper):
    if a.shape[-1] == 0:
        return a, jnp.zeros(a.shape[:-2], np.int32)
    L = _chol_core(a)
    bad = jnp.any(jnp.isnan(jnp.diagonal(L, axis1=-2, axis2=-1)), -1)
    L = mH(L) if upper else L
    return L, bad.astype(np.int32)


def _chol_orders(A, bad):
    """The 'leading minor of order k' for the failed matrices (error path only, eager numpy)."""
    a = np.asarray(A._value).reshape((-1,) + tuple(A.shape[-2:]))
    b = np.asarray(bad._value).reshape(-1)
    out = np.zeros(b.shape, np.int32)
    for i in np.flatnonzero(b):
        m = np.tril(a[i]) + np.conj(np.tril(a[i], -1)).T
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                out[i] = k
                break
        else:
            out[i] = m.shape[-1]
    return out.reshape(bad.shape)


def _chol_msg(fname):
    return lambda k, pre="": (f"{fname}: {pre}The factorization could not be completed because the input is not "
                              f"positive-definite (the leading minor of order {k} is not positive-definite).")


def _cholesky(A, upper, fname):
    check_square(A, fname)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        if fname.startswith("linalg."):
            raise RuntimeError(f"linalg.cholesky: Expected a floating point or complex tensor as input. Got "
                               f"{_dtype._CAP[A.dtype.name]}")
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{_dtype._CAP[A.dtype.name]}'")
    check_float(A, fname)
    L, bad = dispatch(_chol_impl, (A,), (("upper", bool(upper)),), name="LinalgCholeskyExBackward0")
    return column_major(L), bad


def _info_tensor(A, bad):
    v = bad._value
    if isinstance(v, jax.core.Tracer) or not np.asarray(v).any():
        return bad
    return Tensor._wrap(jnp.asarray(_chol_orders(A, bad)), bad._dev)


@_linalg("cholesky")
def linalg_cholesky(A, *, upper=False, out=None):
    """Cholesky factor L (``A = L L^H``; ``upper=True`` gives ``L^H``).

    >>> import torchlike as torch
    >>> torch.linalg.cholesky(4 * torch.eye(2)).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    L, bad = _cholesky(A, upper, "linalg.cholesky")
    raise_info(_info_tensor(A, bad), _chol_msg("linalg.cholesky"))
    if out is not None:
        return write_out(out, L, "linalg_cholesky_ex")
    return L


linalg_cholesky.__name__ = "cholesky"


@register(method=True, namespaces=("torch",), out=True)
@_amp.fp32
def cholesky(input, upper=False):
    """Deprecated torch.cholesky (use torch.linalg.cholesky).

    >>> import torchlike as torch
    >>> torch.cholesky(torch.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    torch_warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
               "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
               "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
               "transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
               "aten/src/ATen/native/BatchLinearAlgebra.cpp:1765", once=True)
    bool_arg(upper, "upper", "cholesky", 1)
    if isinstance(input, Tensor) and input.numel() == 0:  # (torch's returns empty_like before any check of it)
        return dispatch(jnp.zeros_like, (input,), (), name="CholeskyBackward0", saves=False)
    L, bad = _cholesky(input, upper, "cholesky")
    raise_info(_info_tensor(input, bad), _chol_msg("cholesky"))
    L = relabel(L, "CholeskyBackward0", only="LinalgCholeskyExBackward0")
    return set_strides(L, None) if L.numel() == 0 else L  # (torch returns an empty input's clone)


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info) version of linalg.cholesky; info is the failing leading-minor order (0 = success).

    >>> import torchlike as torch
    >>> torch.linalg.cholesky_ex(-torch.eye(2)).info.item()
    1
    """
    L, bad = _cholesky(A, upper, "linalg.cholesky_ex")
    info = _info_tensor(A, bad)
    if check_errors:
        raise_info(info, _chol_msg("linalg.cholesky"))
    return return_types.linalg_cholesky_ex(L, info)


def _chol_solve_impl(b, l, upper):
    batch = jnp.broadcast_shapes(b.shape[:-2], l.shape[:-2])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    l = jnp.broadcast_to(l, batch + l.shape[-2:])
    L = mH(l) if upper else l
    y = lax.linalg.triangular_solve(L, b, left_side=True, lower=True)
    x = lax.linalg.triangular_solve(L, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    # torch differentiates as if A = L L^H with the full (not masked) factor: route the gradient there
    xg = jnp.linalg.solve(jnp.matmul(L, mH(L), precision=HI), b)
    d = xg - lax.stop_gradient(xg)  # (zero, but not finite where the full factor is singular: the forward
    return lax.stop_gradient(x) + jnp.where(jnp.isfinite(d), d, 0)  # value stays the masked factor's)


@register(method=True, namespaces=("torch",), out=True)
def cholesky_solve(input, input2, upper=False):
    """Solve ``A X = B`` given B=input and A's Cholesky factor input2.

    >>> import torchlike as torch
    >>> torch.cholesky_solve(torch.ones(2, 1), torch.eye(2)).tolist()
    [[1.0], [1.0]]
    """
    for t, arg in ((input, "b"), (input2, "u")):
        if isinstance(t, Tensor) and t.ndim < 2:
            raise RuntimeError(f"{arg} should have at least 2 dimensions, but has {t.ndim} dimensions instead")
    if isinstance(input, Tensor) and isinstance(input2, Tensor):
        if input.dtype is not input2.dtype:
            raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                               f"{_dtype._CAP[input.dtype.name]} and A of type {_dtype._CAP[input2.dtype.name]} instead.")
        a, b = input2.shape, input.shape
        if a[-1] != a[-2]:
            raise RuntimeError(f"A must be batches of square matrices, but they are {a[-2]} by {a[-1]} matrices")
        if a[-1] != b[-2]:
            raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {a[-1]} by {a[-1]} "
                               f"but each b matrix is {b[-2]} by {b[-1]}")
        if not (input.dtype.is_floating_point or input.dtype.is_complex):
            raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    return column_major(dispatch(_chol_solve_impl, (input, input2), (("upper", bool(upper)),),
                                 name="CholeskySolveBackward0"))


def _chol_inv_impl(l, upper):
    return _chol_solve_impl(_eye_like(l), l, upper)


@register(method=True, namespaces=("torch",), out=True)
@_amp.fp32
def cholesky_inverse(input, upper=False):
    """Inverse of A from its Cholesky factor.

    >>> import torchlike as torch
    >>> torch.cholesky_inverse(2 * torch.eye(2)).tolist()
    [[0.25, 0.0], [0.0, 0.25]]
    """
    upper = bool_arg(upper, "upper", "cholesky_inverse", 1)  # (the parser's error first)
    if not isinstance(input, Tensor):  # (a number, a list: torch's parser error)
        raise argument_error(input, "Tensor", "input", "cholesky_inverse", 1)
    check_square(input, "cholesky_inverse")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for "
                                  f"'{_dtype._CAP[input.dtype.name]}'")
    return column_major(dispatch(_chol_inv_impl, (input,), (("upper", upper),), name="CholeskyInverseBackward0"))


@_linalg("diagonal")
def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Batched diagonals (a view), defaulting to the last two dims.

    >>> import torchlike as torch
    >>> torch.linalg.diagonal(torch.eye(2)).tolist()
    [1.0, 1.0]
    """
    return diagonal(A, offset, dim1, dim2)


linalg_diagonal.__name__ = "diagonal"
__all__ += ["check_square", "check_float", "check_matrix", "raise_info", "mH", "mT", "wrap_dim"]
