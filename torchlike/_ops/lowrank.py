"""Randomized low-rank SVD and PCA (torch.svd_lowrank, torch.pca_lowrank).

Both follow Halko, Martinsson & Tropp (2009): a random Gaussian test matrix, a few power (subspace)
iterations with QR re-orthonormalisation give an orthonormal basis ``Q`` of A's dominant range; the
small matrix ``Q^H A`` is then decomposed exactly.  Everything is composed of differentiable torchlike
ops (randn, matmul, linalg.qr, linalg.svd), so gradients flow through like torch's.  The random draws
come from torchlike's generator, so values differ from torch's run to run; ``U @ diag(S) @ V^H``
still approximates A (exactly when rank(A) <= q).
"""
from __future__ import annotations

from .. import _dtype
from ._util import Tensor, register
from .. import linalg
from .random_ops import randn

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating(A):
    return A.dtype if (A.dtype.is_floating_point or A.dtype.is_complex) else _dtype.float32


def _minus(X, M, f):
    """``f(A) - f(M)`` written as X - f(M) (M is the implicit offset subtracted from A)."""
    return X if M is None else X - f(M)


def _approximate_basis(A, q, niter, M):
    R = randn(A.shape[-1], q, dtype=_floating(A), device=A.device)
    Q = linalg.qr(_minus(A @ R, M, lambda m: m @ R)).Q
    for _ in range(niter):
        Q = linalg.qr(_minus(A.mH @ Q, M, lambda m: m.mH @ Q)).Q
        Q = linalg.qr(_minus(A @ Q, M, lambda m: m @ Q)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:   # work on the tall matrix A^H and swap U and V at the end
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = _minus(Q.mH @ A, M, lambda mm: Q.mH @ mm)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if wide else (U, S, V)


@register(method=False, promote="float")
def svd_lowrank(A, q=6, niter=2, M=None):
    """Approximate rank-``q`` SVD ``(U, S, V)`` of ``A - M`` with ``A - M ≈ U @ diag(S) @ V.mH``.

    >>> import torchlike as torch
    >>> A = torch.randn(6, 2) @ torch.randn(2, 5)
    >>> U, S, V = torch.svd_lowrank(A, q=2)
    >>> (U.shape, S.shape, V.shape)
    (torch.Size([6, 2]), torch.Size([2]), torch.Size([5, 2]))
    >>> bool(torch.allclose(U @ torch.diag(S) @ V.mT, A, atol=1e-4))
    True
    """
    if not isinstance(A, Tensor):  # (torch's Python reads A.shape first)
        raise AttributeError(f"'{type(A).__name__}' object has no attribute 'shape'", name="shape", obj=A)
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


@register(method=False, promote="float")
def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components ``(U, S, V)`` of ``A`` (centred over rows unless ``center=False``).

    >>> import torchlike as torch
    >>> U, S, V = torch.pca_lowrank(torch.randn(10, 4), q=3)
    >>> V.shape
    torch.Size([4, 3])
    """
    if not isinstance(A, Tensor):  # (torch's Python reads A.shape first)
        raise AttributeError(f"'{type(A).__name__}' object has no attribute 'shape'", name="shape", obj=A)
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)
