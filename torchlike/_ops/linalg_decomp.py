"""torchlike.linalg, part 2: spectral and orthogonal decompositions (svd, qr, eigh, eig).

Eigen/singular vectors are defined up to sign/phase; gradients agree with torch on gauge-invariant
losses (torch raises for gauge-dependent ones, we don't check).

    >>> import torchlike as torch
    >>> torch.linalg.svdvals(torch.diag(torch.tensor([3., 1.]))).tolist()
    [3.0, 1.0]
"""
from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, return_types
from .._errors import bool_arg, torch_warn
from .._grad_mode import is_grad_enabled
from ._util import dispatch, register
from .linalg import LinAlgError, _linalg, check_float, check_matrix, check_square, mH, raise_info
from .. import _autocast as _amp
from .._mutation import write_out
from .lapack_layout import column_major

__all__ = ["svd", "svdvals", "qr", "eigh", "eigvalsh", "eig", "eigvals", "householder_product",
           "geqrf", "ormqr"]


def _check_decomp(A, fname, kernel=None):
    check_matrix(A, fname)
    if kernel and not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype._CAP[A.dtype.name]}'")
    check_float(A, fname)


def _nan_matrices(A):
    """Per matrix of ``A`` (batch dims only): whether it holds a NaN; None while tracing or for an empty ``A``."""
    v = A._value
    if isinstance(v, jax.core.Tracer) or A.numel() == 0 or not (A.dtype.is_floating_point or A.dtype.is_complex):
        return None
    return np.asarray(jnp.isnan(v).any(axis=(-2, -1)))


def _check_svd_input(A):
    """LAPACK's gesdd refuses a matrix with a NaN (info < 0): torch's LinAlgError, naming the batch element."""
    bad = _nan_matrices(A)
    if bad is not None and bad.any():
        where = f": (Batch element {int(np.flatnonzero(bad.reshape(-1))[0])})" if bad.ndim else ""
        raise LinAlgError(f"linalg.svd{where}: The algorithm failed to converge because the input matrix contained "
                          "non-finite values.")


# --- SVD ---------------------------------------------------------------------------------------
def _svd_impl(a, full):
    m, n = a.shape[-2:]
    k = min(m, n)
    if k == 0:
        real = jnp.real(a).dtype
        return (jnp.broadcast_to(jnp.eye(m, m if full else k, dtype=a.dtype), a.shape[:-2] + (m, m if full else k)),
                jnp.zeros(a.shape[:-2] + (0,), real),
                jnp.broadcast_to(jnp.eye(n if full else k, n, dtype=a.dtype), a.shape[:-2] + (n if full else k, n)))
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    if full and m != n:
        # JAX differentiates only the reduced SVD: complete the bases without a gradient
        uf, _, vhf = jnp.linalg.svd(lax.stop_gradient(a), full_matrices=True)
        u = jnp.concatenate([u, uf[..., :, k:]], axis=-1)
        vh = jnp.concatenate([vh, vhf[..., k:, :]], axis=-2)
    return u, s, vh


@_linalg("svd")
def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh`` (torch.return_types.linalg_svd).

    >>> import torchlike as torch
    >>> [t.shape for t in torch.linalg.svd(torch.ones(2, 3), full_matrices=False)]
    [torch.Size([2, 2]), torch.Size([2]), torch.Size([2, 3])]
    """
    _check_decomp(A, "linalg.svd")
    _check_svd_input(A)
    r = column_major(return_types.linalg_svd(*dispatch(_svd_impl, (A,), (("full", bool(full_matrices)),),
                                                       name="LinalgSvdBackward0")), (0, 2))
    if out is not None:
        return write_out(out, r, "_linalg_svd")
    return r


linalg_svd.__name__ = "svd"


def _svd_old_impl(a, some, compute_uv):
    u, s, vh = _svd_impl(a, not some)
    if not compute_uv:
        m, n = a.shape[-2:]
        return (jnp.zeros(a.shape[:-2] + (m, m), a.dtype), s, jnp.zeros(a.shape[:-2] + (n, n), a.dtype))
    return u, s, mH(vh)


@register(method=True, namespaces=("torch",), out=True)
@_amp.fp32
def svd(input, some=True, compute_uv=True):
    """Deprecated torch.svd: returns (U, S, V) with V = Vh^H; ``some=True`` is the reduced SVD.

    >>> import torchlike as torch
    >>> torch.svd(torch.ones(2, 3)).V.shape
    torch.Size([3, 2])
    """
    _check_decomp(input, "linalg.svd")
    _check_svd_input(input)
    some, compute_uv = bool_arg(some, "some", "svd", 1), bool_arg(compute_uv, "compute_uv", "svd", 2)
    # U is LAPACK's; V is Vh^H (row-major), or without compute_uv a column-major block of zeros
    return column_major(return_types.svd(*dispatch(_svd_old_impl, (input,), (("some", some),
                                                                            ("compute_uv", compute_uv)),
                                                   name="LinalgSvdBackward0")), (0,) if compute_uv else (2,))


def _svdvals_impl(a):
    if min(a.shape[-2:]) == 0:
        return jnp.zeros(a.shape[:-2] + (0,), jnp.real(a).dtype)
    return jnp.linalg.svd(a, compute_uv=False)


@jax.custom_jvp
def _svd_for_svdvals(a):
    return _svd_impl(a, False)


@_svd_for_svdvals.defjvp
def _svd_for_svdvals_jvp(primals, tangents):
    # Only S leaves svdvals: its derivative diag(U^H dA V) alone, as torch's svd_backward when gU and gVh
    # are undefined (the full SVD derivative divides by s_i^2 - s_j^2: nan for repeated singular values).
    (a,), (da,) = primals, tangents
    u, s, vh = _svd_for_svdvals(a)
    ds = jnp.real(jnp.einsum("...ji,...jk,...ki->...i", jnp.conj(u), da, mH(vh), precision=lax.Precision.HIGHEST))
    return (u, s, vh), (jnp.zeros_like(u), ds.astype(s.dtype), jnp.zeros_like(vh))


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def svdvals(A, *, driver=None):
    """Singular values, descending (real dtype).

    >>> import torchlike as torch
    >>> torch.linalg.svdvals(2 * torch.eye(2)).tolist()
    [2.0, 2.0]
    """
    _check_decomp(A, "linalg.svd")
    _check_svd_input(A)
    if A.requires_grad and is_grad_enabled():
        # torch's _linalg_svd computes U and Vh too when A requires grad: S is output 1 of its node
        return dispatch(_svd_for_svdvals, (A,), (), name="LinalgSvdBackward0")[1]
    return dispatch(_svdvals_impl, (A,), (), name="LinalgSvdBackward0")


# --- QR ----------------------------------------------------------------------------------------
def _qr_impl(a, mode):
    if mode == "r":
        return jnp.zeros((0,), a.dtype), jnp.linalg.qr(a, mode="r")
    return tuple(jnp.linalg.qr(a, mode=mode))


def _qr(A, mode, fname):
    check_matrix(A, fname)
    check_float(A, fname)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return column_major(dispatch(_qr_impl, (A,), (("mode", mode),), name="LinalgQrBackward0"))


@_linalg("qr")
def linalg_qr(A, mode="reduced", *, out=None):
    """QR decomposition (modes 'reduced', 'complete', 'r').

    >>> import torchlike as torch
    >>> [t.shape for t in torch.linalg.qr(torch.ones(4, 3))]
    [torch.Size([4, 3]), torch.Size([3, 3])]
    """
    r = return_types.linalg_qr(*_qr(A, mode, "linalg.qr"))
    if out is not None:
        return write_out(out, r, "linalg_qr")
    return r


linalg_qr.__name__ = "qr"


@register(method=True, namespaces=("torch",), out=True)
@_amp.fp32
def qr(input, some=True):
    """Deprecated torch.qr(input, some=True).

    >>> import torchlike as torch
    >>> torch.qr(torch.ones(4, 3)).Q.shape
    torch.Size([4, 3])
    """
    bool_arg(some, "some", "qr", 1)
    torch_warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
               "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
               "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
               "'complete')", "aten/src/ATen/native/BatchLinearAlgebra.cpp:2505", once=True)
    return return_types.qr(*_qr(input, "reduced" if some else "complete", "linalg.qr"))


# --- Hermitian eigendecomposition --------------------------------------------------------------
def _herm_input(a, lower):
    """The Hermitian matrix torch sees (one triangle) with the derivative of the symmetrised input."""
    t = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    d = jnp.real(jnp.diagonal(a, axis1=-2, axis2=-1)).astype(a.dtype)
    full = t + mH(t) + jnp.eye(a.shape[-1], dtype=a.dtype) * d[..., None, :]
    sym = (a + mH(a)) / 2
    return sym + lax.stop_gradient(full - sym)


def _eigh_impl(a, lower, vectors):
    if a.shape[-1] == 0:
        w = jnp.zeros(a.shape[:-1], jnp.real(a).dtype)
        return (w, a) if vectors else w
    v, w = lax.linalg.eigh(_herm_input(a, lower), lower=lower, symmetrize_input=False)
    return (w, v) if vectors else w


def _check_uplo(UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper() == "L"


def _check_eigh(A, fname):
    check_square(A, fname)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{_dtype._CAP[A.dtype.name]}'")
    check_float(A, fname)


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def eigh(A, UPLO="L"):
    """Eigenvalues (ascending, real) and eigenvectors of a Hermitian matrix (reads one triangle).

    >>> import torchlike as torch
    >>> torch.linalg.eigh(torch.diag(torch.tensor([2., 1.]))).eigenvalues.tolist()
    [1.0, 2.0]
    """
    lower = _check_uplo(UPLO)
    _check_eigh(A, "linalg.eigh")
    return column_major(return_types.linalg_eigh(*dispatch(_eigh_impl, (A,), (("lower", lower), ("vectors", True)),
                                                           name="LinalgEighBackward0")), (1,))


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def eigvalsh(A, UPLO="L"):
    """Eigenvalues of a Hermitian matrix, ascending.

    >>> import torchlike as torch
    >>> torch.linalg.eigvalsh(torch.eye(2)).tolist()
    [1.0, 1.0]
    """
    lower = _check_uplo(UPLO)
    _check_eigh(A, "linalg.eigh")
    return dispatch(_eigh_impl, (A,), (("lower", lower), ("vectors", False)), name="LinalgEighBackward0")


# --- general eigendecomposition (complex results) ----------------------------------------------
def _eig_impl(a, cdt, vectors):
    a = a.astype(cdt) if jnp.iscomplexobj(a) else a
    if a.shape[-1] == 0:
        w = jnp.zeros(a.shape[:-1], cdt)
        return (w, a.astype(cdt)) if vectors else w
    if vectors:
        # eigenvector derivatives under LAPACK's unit-norm normalisation; they agree with torch's for
        # phase-invariant losses (torch raises for the others) when eigenvalues are distinct
        w, v = lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
        return w.astype(cdt), v.astype(cdt)
    return jnp.linalg.eigvals(a).astype(cdt)


def _check_eig(A, fname):
    check_square(A, fname)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {_dtype._CAP[A.dtype.name]}")
    check_float(A, fname)
    return A.dtype.to_complex()


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def eig(A):
    """Eigenvalues and (unit-norm) eigenvectors of a general square matrix, as complex tensors.

    >>> import torchlike as torch
    >>> torch.linalg.eig(torch.eye(2)).eigenvalues.dtype
    torch.complex64
    """
    cdt = _check_eig(A, "linalg.eig")
    bad = _nan_matrices(A)  # (torch's check before geev: infs too)
    if bad is not None and (bad.any() or not bool(jnp.isfinite(A._value).all())):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    return column_major(return_types.linalg_eig(*dispatch(_eig_impl, (A,), (("cdt", cdt.np), ("vectors", True)),
                                                          name="LinalgEigBackward0")), (1,))


@register(method=False, namespaces=("linalg",), out=True)
@_amp.fp32
def eigvals(A):
    """Eigenvalues of a general square matrix (complex).

    >>> import torchlike as torch
    >>> torch.linalg.eigvals(2 * torch.eye(2)).tolist()
    [(2+0j), (2+0j)]
    """
    cdt = _check_eig(A, "linalg.eigvals")
    return dispatch(_eig_impl, (A,), (("cdt", cdt.np), ("vectors", False)), name="LinalgEigBackward0")


# --- Householder product, matrix exponential ---------------------------------------------------
def _hh_impl(a, tau):
    # explicit reflector products (differentiable; lax.linalg.householder_product has no JVP)
    m, n = a.shape[-2:]
    q = jnp.broadcast_to(jnp.eye(m, n, dtype=a.dtype), a.shape)
    rows = jnp.arange(m)
    for i in reversed(range(tau.shape[-1])):
        v = jnp.where(rows > i, a[..., :, i], (rows == i).astype(a.dtype))
        t = tau[..., i, None, None]
        q = q - t * v[..., :, None] * jnp.matmul(jnp.conj(v)[..., None, :], q, precision=lax.Precision.HIGHEST)
    return q


@register(method=False, namespaces=("linalg",), out=True)
def householder_product(A, tau):
    """First n columns of the product of Householder reflectors (LAPACK orgqr).

    >>> import torchlike as torch
    >>> torch.linalg.householder_product(torch.zeros(3, 2), torch.zeros(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    """
    fn = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if tau.ndim < 1:
        raise RuntimeError(f"{fn}: tau must have at least 1 dimension.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.dtype is not tau.dtype:
        raise RuntimeError(f"{fn}: tau dtype {tau.dtype} does not match input dtype {A.dtype}")
    return column_major(dispatch(_hh_impl, (A, tau), (), name="LinalgHouseholderProductBackward0"))


@register(method=True, namespaces=("torch",), out=True)
def orgqr(input, tau):
    """torch.orgqr: alias of linalg.householder_product.

    >>> import torchlike as torch
    >>> torch.orgqr(torch.zeros(2, 2), torch.zeros(1)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return householder_product(input, tau)


def _geqrf_impl(a):
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return a, jnp.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    h, tau = jnp.linalg.qr(a, mode="raw")        # LAPACK geqrf; numpy's raw mode returns the transpose
    return jnp.swapaxes(h, -1, -2), tau


@register(method=True, namespaces=("torch",), out=True)
def geqrf(input):
    """LAPACK geqrf: R above the diagonal, Householder vectors below, and their scales ``tau``.

    >>> import torchlike as torch
    >>> torch.geqrf(torch.eye(2)).tau.shape
    torch.Size([2])
    """
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    # torch's geqrf has no derivative
    return column_major(return_types.geqrf(*dispatch(_geqrf_impl, (input,), (), name="GeqrfBackward0", diff=False)),
                        (0,))


def _ormqr_impl(a, tau, c, left, transpose):
    # Q = H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^H; apply the reflectors one by one (differentiable)
    mn = a.shape[-2]
    rows = jnp.arange(mn)
    k = tau.shape[-1]
    # order in which the reflectors act on c: Q c applies H_{k-1} first, Q^H c applies H_0^H first, ...
    order = range(k) if left == transpose else reversed(range(k))
    for i in order:
        v = jnp.where(rows > i, a[..., :, i], (rows == i).astype(a.dtype))
        t = tau[..., i, None, None]
        if transpose:
            t = jnp.conj(t)
        if left:    # H c = c - t v (v^H c)
            c = c - t * v[..., :, None] * jnp.matmul(jnp.conj(v)[..., None, :], c, precision=lax.Precision.HIGHEST)
        else:       # c H = c - (c v) t v^H
            c = c - jnp.matmul(c, v[..., :, None], precision=lax.Precision.HIGHEST) * t * jnp.conj(v)[..., None, :]
    return c


@register(method=True, namespaces=("torch",), out=True)
def ormqr(input, tau, other, left=True, transpose=False):
    """Multiply ``other`` by the Q of a geqrf factorisation (LAPACK ormqr): ``op(Q) @ other`` or
    ``other @ op(Q)``, ``op`` the conjugate transpose when ``transpose``.

    >>> import torchlike as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3., 0.], [4., 1.]]))
    >>> torch.ormqr(a, tau, torch.eye(2)).abs().tolist()[0]
    [0.6000000238418579, 0.800000011920929]
    """
    fn = "torch.ormqr"
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    lsc = -2 if left else -1
    if other.shape[lsc] != input.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{lsc}] must be equal to input.shape[-2]")
    if tau.ndim == 0 or tau.shape[-1] != min(other.shape[lsc], input.shape[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{lsc}], input.shape[-1])")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {input.ndim}")
    if other.ndim != input.ndim:
        raise RuntimeError(f"{fn}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                           f"{list(other.shape[:-2])}")
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype is not input.dtype:
            raise RuntimeError(f"{fn}: Expected input and {name} to have the same dtype, but input has dtype"
                               f"{_dtype._CAP[input.dtype.name]} and {name} has dtype {_dtype._CAP[t.dtype.name]}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"ormqr_cpu\" not implemented for '{_dtype._CAP[input.dtype.name]}'")
    return column_major(dispatch(_ormqr_impl, (input, tau, other), (("left", bool(left)),
                                                                    ("transpose", bool(transpose))),
                                 name="OrmqrBackward0"))


__all__ += ["linalg_svd", "linalg_qr", "np"]


# --- LDL^T (Bunch-Kaufman, as LAPACK sytrf/hetrf unblocked, lower) --------------------------------
_BK_ALPHA = (1 + 17 ** 0.5) / 8


def _abs1(x):
    return jnp.abs(jnp.real(x)) + jnp.abs(jnp.imag(x)) if jnp.iscomplexobj(x) else jnp.abs(x)


def _ldl_one(a, herm):
    """One matrix: (LD, 1-based pivots, info). The trailing block is kept as a full symmetric/Hermitian
    matrix so LAPACK's row/column interchanges become one symmetric permutation of that block."""
    n = a.shape[-1]
    idx = jnp.arange(n)
    cj = jnp.conj if herm else (lambda x: x)
    low = jnp.tril(a, -1)
    d = jnp.real(jnp.diagonal(a)).astype(a.dtype) if herm else jnp.diagonal(a)
    s = low + cj(low.T) + jnp.diag(d)
    rdt = jnp.real(a).dtype
    dabs = (lambda x: jnp.abs(jnp.real(x))) if herm else _abs1

    def cond(c):
        return c[0] < n

    def body(c):
        k, s, piv, info = c
        absakk = dabs(s[k, k])
        colv = jnp.where(idx > k, _abs1(s[:, k]), -1).astype(rdt)
        imax = jnp.argmax(colv)
        colmax = jnp.where(k < n - 1, colv[imax], 0).astype(rdt)
        rowv = jnp.where((idx >= k) & (idx != imax), _abs1(s[imax, :]), -1).astype(rdt)
        rowmax = jnp.max(rowv)
        zero = jnp.maximum(absakk, colmax) == 0
        one_a = absakk >= _BK_ALPHA * colmax
        one_b = absakk * rowmax >= _BK_ALPHA * colmax * colmax
        one_c = dabs(s[imax, imax]) >= _BK_ALPHA * rowmax
        kp = jnp.where(zero | one_a | one_b, k, imax)
        kstep = jnp.where(zero | one_a | one_b | one_c, 1, 2)
        kstep = jnp.where(k >= n - 1, 1, kstep)
        kk = k + kstep - 1
        info = jnp.where(zero & (info == 0), k + 1, info)
        # interchange kk <-> kp inside the trailing block (rows and columns >= k)
        p = jnp.where(idx == kk, kp, jnp.where(idx == kp, kk, idx))
        blk = (idx[:, None] >= k) & (idx[None, :] >= k)
        s = jnp.where(blk, s[p][:, p], s)
        trail = idx > k + kstep - 1
        t2 = trail[:, None] & trail[None, :]

        def step1(s):
            r1 = 1 / (jnp.real(s[k, k]) if herm else s[k, k])
            x = jnp.where(idx > k, s[:, k], 0)
            s = s - jnp.where(t2, r1 * x[:, None] * cj(x)[None, :], 0)
            col = jnp.where(idx > k, x * r1, s[:, k])
            return s.at[:, k].set(col)

        def step2(s):
            k1 = jnp.minimum(k + 1, n - 1)
            if herm:
                dd = jnp.abs(s[k1, k])
                d11 = jnp.real(s[k1, k1]) / dd
                d22 = jnp.real(s[k, k]) / dd
                d21 = s[k1, k] / dd
                dd = (1 / (d11 * d22 - 1)) / dd
                wk = dd * (d11 * s[:, k] - d21 * s[:, k1])
                wkp1 = dd * (d22 * s[:, k1] - jnp.conj(d21) * s[:, k])
            else:
                d21 = s[k1, k]
                d11 = s[k1, k1] / d21
                d22 = s[k, k] / d21
                d21 = (1 / (d11 * d22 - 1)) / d21
                wk = d21 * (d11 * s[:, k] - s[:, k1])
                wkp1 = d21 * (d22 * s[:, k1] - s[:, k])
            upd = s[:, k][:, None] * cj(wk)[None, :] + s[:, k1][:, None] * cj(wkp1)[None, :]
            s = s - jnp.where(t2, upd, 0)
            s = s.at[:, k].set(jnp.where(trail, wk, s[:, k]))
            return s.at[:, k1].set(jnp.where(trail, wkp1, s[:, k1]))

        s = lax.cond(kstep == 1, step1, step2, s)
        # keep the trailing block exactly symmetric (LAPACK only ever reads the lower triangle)
        lt = jnp.tril(s, -1)
        sym = lt + cj(lt.T) + jnp.diag(jnp.diagonal(s))
        s = jnp.where(t2, sym, s)
        pv = (kp + 1).astype(np.int32)
        piv = jnp.where(kstep == 1, piv.at[k].set(pv),
                        piv.at[k].set(-pv).at[jnp.minimum(k + 1, n - 1)].set(-pv))
        return k + kstep, s, piv, info

    k0 = jnp.zeros((), np.int32)
    _, s, piv, info = lax.while_loop(cond, body, (k0, s, jnp.zeros(n, np.int32), k0))
    return jnp.tril(s), piv, info


def _ldl_impl(a, herm):
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return a, jnp.zeros(a.shape[:-1], np.int32), jnp.zeros(a.shape[:-2], np.int32)
    f = lambda m: _ldl_one(m, herm)  # noqa: E731
    for _ in range(a.ndim - 2):
        f = jax.vmap(f)
    return f(a)


def _ldl_check(A, fname):
    check_square(A, fname)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[A.dtype.name]}")


@register(method=False, namespaces=("linalg",), out=True)
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """Bunch-Kaufman LDL^T factorisation (LAPACK sytrf, lower): (LD, pivots, info).

    >>> import torchlike as torch
    >>> torch.linalg.ldl_factor_ex(torch.tensor([[4., 2.], [2., 3.]])).LD.tolist()
    [[4.0, 0.0], [0.5, 2.0]]
    """
    _ldl_check(A, "torch.linalg.ldl_factor_ex")
    LD, piv, info = dispatch(_ldl_impl, (A,), (("herm", bool(hermitian) and A.dtype.is_complex),),
                             name="LinalgLdlFactorExBackward0", diff=False)
    if check_errors:
        raise_info(info, lambda k, pre="": f"torch.linalg.ldl_factor_ex: {pre}The factorization could not be "
                                           f"completed because the input is not invertible.")
    return return_types.make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))(column_major(LD), piv, info)


@register(method=False, namespaces=("linalg",), out=True)
def ldl_factor(A, *, hermitian=False):
    """(LD, pivots) of ldl_factor_ex.

    >>> import torchlike as torch
    >>> torch.linalg.ldl_factor(torch.eye(2)).pivots.tolist()
    [1, 2]
    """
    _ldl_check(A, "torch.linalg.ldl_factor_ex")
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    return return_types.make("linalg_ldl_factor", ("LD", "pivots"))(LD, piv)


def _ldl_solve_one(ld, piv, b, herm):
    """LAPACK sytrs (lower): undo the interchanges and unit-L / block-D factors step by step."""
    n = ld.shape[-1]
    idx = jnp.arange(n)
    cj = jnp.conj if herm else (lambda x: x)

    def swap(b, i, j):
        bi, bj = b[i], b[j]
        return b.at[i].set(bj).at[j].set(bi)

    def fwd(c):
        k, b = c
        two = piv[k] < 0
        kp = jnp.where(two, -piv[k], piv[k]) - 1
        k1 = jnp.minimum(k + 1, n - 1)

        def one(b):
            b = swap(b, k, kp)
            b = b - jnp.where((idx > k)[:, None], ld[:, k][:, None] * b[k][None, :], 0)
            return b.at[k].set(b[k] / ld[k, k])

        def pair(b):
            b = swap(b, k1, kp)
            m = (idx > k1)[:, None]
            b = b - jnp.where(m, ld[:, k][:, None] * b[k][None, :] + ld[:, k1][:, None] * b[k1][None, :], 0)
            d11, d21, d22 = ld[k, k], ld[k1, k], ld[k1, k1]
            d12 = jnp.conj(d21) if herm else d21
            det = d11 * d22 - d12 * d21
            x0 = (d22 * b[k] - d12 * b[k1]) / det
            x1 = (d11 * b[k1] - d21 * b[k]) / det
            return b.at[k].set(x0).at[k1].set(x1)

        b = lax.cond(two, pair, one, b)
        return k + jnp.where(two, 2, 1), b

    def bwd(c):
        k, b = c
        two = piv[k] < 0
        kp = jnp.where(two, -piv[k], piv[k]) - 1
        below = (idx > k)[:, None]
        b = b.at[k].add(-jnp.sum(jnp.where(below, cj(ld[:, k])[:, None] * b, 0), 0))
        km = jnp.maximum(k - 1, 0)
        b = jnp.where(two, b.at[km].add(-jnp.sum(jnp.where(below, cj(ld[:, km])[:, None] * b, 0), 0)), b)
        b = swap(b, k, kp)
        return k - jnp.where(two, 2, 1), b

    k0 = jnp.zeros((), np.int32)
    _, b = lax.while_loop(lambda c: c[0] < n, fwd, (k0, b))
    _, b = lax.while_loop(lambda c: c[0] >= 0, bwd, (k0 + n - 1, b))
    return b


def _ldl_solve_impl(ld, piv, b, herm):
    batch = jnp.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
    ld = jnp.broadcast_to(ld, batch + ld.shape[-2:])
    piv = jnp.broadcast_to(piv, batch + piv.shape[-1:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    if ld.shape[-1] == 0 or b.size == 0:
        return b
    f = lambda l, p, x: _ldl_solve_one(l, p, x, herm)  # noqa: E731
    for _ in batch:
        f = jax.vmap(f)
    return f(ld, piv.astype(np.int32), b)


@register(method=False, namespaces=("linalg",), out=True)
def ldl_solve(LD, pivots, B, *, hermitian=False):
    """Solve ``A X = B`` from ldl_factor's (LD, pivots) (LAPACK sytrs).

    >>> import torchlike as torch
    >>> LD, piv = torch.linalg.ldl_factor(torch.tensor([[4., 2.], [2., 3.]]))
    >>> torch.linalg.ldl_solve(LD, piv, torch.tensor([[6.], [5.]])).tolist()
    [[1.0], [1.0]]
    """
    fn = "torch.linalg.ldl_solve"
    check_square(LD, fn, "LD")
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if LD.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected LD and B to have the same dtype, but got LD with dtype "
                           f"{_dtype._CAP[LD.dtype.name]} and B with dtype {_dtype._CAP[B.dtype.name]} instead")
    return column_major(dispatch(_ldl_solve_impl, (LD, pivots, B), (("herm", bool(hermitian) and
                                                                     LD.dtype.is_complex),),
                                 name="LinalgLdlSolveBackward0", diff=False))


__all__ += ["ldl_factor", "ldl_factor_ex", "ldl_solve"]
