"""torchlike.linalg's LU family: lu_factor(_ex), lu, lu_unpack, lu_solve and the deprecated torch.lu/lu_solve.

Factorisations follow LAPACK's getrf (1-based int32 pivots, ``info`` for an exactly zero pivot); solves reuse
the triangular solves of linalg.py.

    >>> import torchlike as torch
    >>> LU, piv = torch.linalg.lu_factor(2 * torch.eye(2))
    >>> torch.linalg.lu_solve(LU, piv, torch.ones(2, 1)).tolist()
    [[0.5], [0.5]]
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, return_types
from .._errors import bool_arg, torch_warn
from .._mutation import write_out
from ._util import dispatch, register
from .lapack_layout import column_major
from .linalg import _linalg, _lu_info, lu_solve_core, mH, mT, raise_info

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack", "linalg_lu", "linalg_lu_solve"]


# --- LU ----------------------------------------------------------------------------------------
def _lu_factor_impl(a):
    if 0 in a.shape[-2:]:  # (nothing to factor: getrf returns the empty matrix and no pivots)
        return a, jnp.zeros(a.shape[:-2] + (0,), np.int32), jnp.zeros(a.shape[:-2], np.int32)
    lu, piv, _ = lax.linalg.lu(a)
    return lu, (piv + 1).astype(np.int32), _lu_info(lu)


def _lu_factor(A, fname, pivot):
    if A.ndim < 2:  # (torch's linalg_lu_factor_ex_out check, in torch.lu_factor's words)
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
                           "instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_dtype._CAP[A.dtype.name]}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return column_major(dispatch(_lu_factor_impl, (A,), (), name="LinalgLuFactorExBackward0"), (0,))


@register(method=False, namespaces=("linalg",), out=True)
def lu_factor(A, *, pivot=True):
    """Compact LU factorisation (LU, 1-based int32 pivots), as LAPACK's getrf.

    >>> import torchlike as torch
    >>> torch.linalg.lu_factor(torch.eye(2)).pivots.tolist()
    [1, 2]
    """
    LU, piv, info = _lu_factor(A, "linalg.lu_factor", pivot)
    raise_info(info, lambda k, pre="": f"torch.linalg.lu_factor: {pre}U[{k},{k}] is zero and using it on "
                                       "lu_solve would result in a division by zero. If you still want to perform "
                                       "the factorization, consider calling linalg.lu(A, pivot) or "
                                       "linalg.lu_factor_ex(A, pivot)", RuntimeError)  # (torch's TORCH_CHECK)
    return return_types.linalg_lu_factor(LU, piv)


@register(method=False, namespaces=("linalg",), out=True)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info) version of lu_factor.

    >>> import torchlike as torch
    >>> torch.linalg.lu_factor_ex(torch.eye(2)).info.item()
    0
    """
    LU, piv, info = _lu_factor(A, "linalg.lu_factor_ex", pivot)
    return return_types.make("linalg_lu_factor_ex", ("LU", "pivots", "info"))(LU, piv, info)


def _pivots_to_perm(piv, m):
    """LAPACK row swaps (0-based) -> permutation with A[perm] = L U."""
    return lax.linalg.lu_pivots_to_permutation(piv, m)


def _lu_unpack_impl(lu, piv, unpack_data, unpack_pivots):
    m, n = lu.shape[-2:]
    k = min(m, n)
    if unpack_pivots:
        perm = _pivots_to_perm(piv.astype(np.int32) - 1, m)
        P = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=lu.dtype), -1, -2)
    else:
        P = jnp.zeros((0,), lu.dtype)
    if unpack_data:
        L = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
        U = jnp.triu(lu[..., :k, :])
    else:
        L = U = jnp.zeros((0,), lu.dtype)
    return P, L, U


@register(method=False, namespaces=("torch",))
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's output.

    >>> import torchlike as torch
    >>> [t.shape for t in torch.lu_unpack(*torch.linalg.lu_factor(torch.eye(2)))]
    [torch.Size([2, 2]), torch.Size([2, 2]), torch.Size([2, 2])]
    """
    r = dispatch(_lu_unpack_impl, (LU_data, LU_pivots), (("unpack_data", bool(unpack_data)),
                                                         ("unpack_pivots", bool(unpack_pivots))),
                 name="LuUnpackBackward0")
    if out is not None:
        for o, v in zip(out, r):
            write_out(o, v, "lu_unpack")
        r = tuple(out)
    return return_types.lu_unpack(*r)


def _lu_impl(a):
    lu, _, perm = lax.linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    P = jnp.swapaxes(jax.nn.one_hot(perm, m, dtype=a.dtype), -1, -2)
    L = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
    U = jnp.triu(lu[..., :k, :])
    return P, L, U


@_linalg("lu")
def linalg_lu(A, *, pivot=True, out=None):
    """LU decomposition with partial pivoting: ``A = P L U``.

    >>> import torchlike as torch
    >>> [t.shape for t in torch.linalg.lu(torch.ones(3, 2))]
    [torch.Size([3, 3]), torch.Size([3, 2]), torch.Size([2, 2])]
    """
    if A.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_dtype._CAP[A.dtype.name]}'")
    r = return_types.linalg_lu(*dispatch(_lu_impl, (A,), (), name="LinalgLuBackward0"))
    if out is not None:
        return write_out(out, r, "linalg_lu")
    return r


linalg_lu.__name__ = "lu"
_lu_with_info = return_types.make("_lu_with_info", ("LU", "pivots", "info"))


@register(method=False, namespaces=("torch",))
def lu(A, pivot=True, get_infos=False, out=None):
    """Deprecated torch.lu: ``(LU, pivots)`` (plus ``infos`` with ``get_infos=True``), as linalg.lu_factor.

    >>> import torchlike as torch
    >>> torch.lu(2 * torch.eye(2))[1].tolist()
    [1, 2]
    """
    torch_warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
               "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
               "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
               "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots)", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2073",
               once=True)
    bool_arg(pivot, "pivot", "_lu_with_info")
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
                           "instead")
    LU, piv, info = _lu_factor(A, "linalg.lu_factor", pivot)
    r = _lu_with_info(LU, piv, info) if get_infos else (LU, piv)
    if out is not None:
        return tuple(write_out(out, r, "linalg_lu"))
    return r


@register("lu", namespaces=(), promote="none")
def _lu_method(self, pivot=True, get_infos=False):
    """``Tensor.lu``: a plain tuple (not torch.lu's named one), even with ``get_infos=True``."""
    return tuple(lu(self, pivot, get_infos))


def _lu_solve_impl(lu, piv, b, left, adjoint):
    n = lu.shape[-1]
    batch = jnp.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = jnp.broadcast_to(lu, batch + lu.shape[-2:])
    piv = jnp.broadcast_to(piv, batch + piv.shape[-1:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    perm = _pivots_to_perm(piv.astype(np.int32) - 1, n)
    if left:
        return lu_solve_core(lu, perm, b, 2 if adjoint else 0)
    # X A = B  <=>  A^T X^T = B^T ;  X A^H = B  <=>  A X^H = B^H
    if adjoint:
        return mH(lu_solve_core(lu, perm, mH(b), 0))
    return mT(lu_solve_core(lu, perm, mT(b), 1))


@_linalg("lu_solve")
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve ``A X = B`` from lu_factor's (LU, pivots).

    >>> import torchlike as torch
    >>> LU, piv = torch.linalg.lu_factor(2 * torch.eye(2))
    >>> torch.linalg.lu_solve(LU, piv, torch.ones(2, 1)).tolist()
    [[0.5], [0.5]]
    """
    r = dispatch(_lu_solve_impl, (LU, pivots, B), (("left", bool(left)), ("adjoint", bool(adjoint))),
                 name="LinalgLuSolveBackward0")
    if left:  # (torch's left=False solve transposes a left one)
        column_major(r)
    if out is not None:
        return write_out(out, r, "linalg_lu_solve")
    return r


linalg_lu_solve.__name__ = "lu_solve"


@register(method=True, namespaces=("torch",), out=True)
def lu_solve(input, LU_data, LU_pivots):
    """Deprecated torch.lu_solve(b, LU_data, LU_pivots).

    >>> import torchlike as torch
    >>> LU, piv = torch.linalg.lu_factor(2 * torch.eye(2))
    >>> torch.lu_solve(torch.ones(2, 1), LU, piv).tolist()
    [[0.5], [0.5]]
    """
    torch_warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
               "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, "
               "pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
               "aten/src/ATen/native/BatchLinearAlgebra.cpp:2230", once=True)
    return linalg_lu_solve(LU_data, LU_pivots, input)
