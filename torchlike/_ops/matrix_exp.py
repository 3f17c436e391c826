"""torch.linalg.matrix_exp the way torch's kernel computes it (aten's ``mexp``).

torch evaluates the optimized Taylor polynomials of Bader, Blanes and Casas (Mathematics 2019, 7, 1174) of
degree 1, 2, 4, 8, 12 or 18, chosen by the 1-norm of the matrix, in the input's own precision; past the
degree-12 bound it scales by a power of two, applies the degree-18 polynomial and squares back.  A batch of
more than one matrix always takes the scaled degree-18 path.  Following the same steps (same thresholds,
same coefficient rounding, same product order) gives torch's values, including its truncation error in
single precision (jax.scipy's Pade approximant is more accurate there and differs from torch by ~1e-3).
It runs on the host (numpy, through ``jax.pure_callback``): XLA fuses the products' multiplies and adds,
torch's kernels do not, and on an ill-conditioned matrix the squarings amplify that last bit to ~1e-3.

float16/bfloat16: torch reads its table of double coefficients through a pointer of the half type, so the
polynomials use the bit patterns of those doubles taken as half values; reproduced here (``_coefficients``).

The gradient is torch's: the upper-right block of exp([[A^H, G], [0, A^H]]).

    >>> import torchlike as torch
    >>> torch.linalg.matrix_exp(torch.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


from .. import _dtype
from ._util import dispatch, register
from .linalg import check_square

__all__ = ["matrix_exp"]

_THETAS_SINGLE = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
                  1.461661507209034e+00, 3.010066362817634e+00)
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
                  2.996158913811580e-01, 1.090863719290036e+00)

# Bader-Blanes-Casas coefficients: rows of the linear combinations of {I, A, A^2, A^3(, A^6)}
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _t8_constants(scalar):
    """T8's x1..x7, y2 as torch's constexprs: scalar-typed operands, double arithmetic, scalar-typed result."""
    s177, x3 = scalar(0.1330413469565007072504e+2), scalar(2. / 3.)
    s, t = float(s177), float(x3)
    return (t * ((1. + s) / 88.), t * ((1. + s) / 352.), t, (-271. + 29. * s) / (315. * t),
            (-11. + 11. * s) / (1260. * t), (-99. + 11. * s) / (5040. * t), (89. - s) / (5040. * t),
            (857. - 58. * s) / 630.)


def _coefficients(values, real):
    """The coefficient table as torch hands it to the kernel: values of torch's ``scalar_t`` (float for
    single precision, double otherwise) read as an array of the input's real dtype (for the half types, the
    leading bytes of the double table reinterpreted)."""
    scalar = np.float32 if real == np.float32 else np.float64
    arr = np.asarray(values, dtype=scalar)
    n = arr.size
    return arr.reshape(-1).view(np.uint8)[:n * real.itemsize].view(real).reshape(arr.shape)


def _opmath(dt):
    return np.dtype(np.float32) if dt.itemsize == 2 else dt


def _mm(x, y):
    """Batched product as torch's CPU bmm: below 400 multiply-adds per matrix its plain loop (one sum per
    element, k in order, in float32 for the half types, no fused multiply-add; XLA's dot fuses them, which
    the squarings then amplify to ~1e-3 on ill-conditioned matrices), else the BLAS product (numpy's here)."""
    dt, ct = x.dtype, _opmath(x.dtype)
    if x.shape[-2] * x.shape[-1] * y.shape[-1] >= 400:
        return np.matmul(x.astype(ct), y.astype(ct)).astype(dt)
    xc, yc = x.astype(ct), y.astype(ct)
    acc = np.zeros(x.shape[:-1] + y.shape[-1:], ct)
    for k in range(x.shape[-1]):
        acc = acc + _times(xc[..., :, k, None], yc[..., None, k, :])
    return acc.astype(dt)


def _times(a, b):
    """``a * b``; complex as c10::complex multiplies, (ac - bd) + (ad + bc)i without fused multiply-adds
    (numpy's complex loops fuse them)."""
    if a.dtype.kind != "c":
        return a * b
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), a.dtype)
    out.real = a.real * b.real - a.imag * b.imag
    out.imag = a.real * b.imag + a.imag * b.real
    return out


def _scale(m, c):
    """``m * c`` for a real coefficient ``c`` (a complex ``m`` scales both parts, as c10::complex * T)."""
    if m.dtype.kind == "c":
        out = np.empty_like(m)
        out.real, out.imag = m.real * c, m.imag * c
        return out
    return m * c


def _lincomb(mats, coeffs):
    """sum_j c[j] * mats[j], added left to right from zero in the matrices' own type (torch's
    linear-combination kernel: a half type rounds each product and each sum)."""
    out = np.zeros_like(mats[0])
    for m, c in zip(mats, coeffs):
        out = out + _scale(m, c)
    return out


def _sum0(mats):
    """``stack(mats).sum(0)``: accumulated in float32 for the half types, rounded once."""
    ct = _opmath(mats[0].dtype)
    out = np.zeros(mats[0].shape, ct)
    for m in mats:
        out = out + m.astype(ct)
    return out.astype(mats[0].dtype)


class _Poly:
    """The six Taylor polynomials for one dtype (numpy arrays of shape (batch, n, n))."""

    def __init__(self, dt):
        self.dt = np.dtype(dt)
        self.real = np.dtype(np.zeros((), dt).real.dtype)
        single = self.real == np.float32
        self.thetas = _THETAS_SINGLE if single else _THETAS_DOUBLE
        self.b12 = _coefficients(_B12, self.real)
        self.b18 = _coefficients(_B18, self.real)
        self.c4 = _coefficients([1 / 2.0, 1 / 6.0, 1 / 24.0], self.real)
        self.l4 = _coefficients([1.0, 1.0, 0.0, 1.0], self.real)
        x1, x2, x3, x4, x5, x6, x7, y2 = _t8_constants(np.float32 if single else np.float64)
        self.c8a = _coefficients([x1, x2], self.real)
        self.c8b = _coefficients([x3, 1.0], self.real)
        self.c8c = _coefficients([x4, x5, x6, x7], self.real)
        self.l8 = _coefficients([1.0, 1.0, y2, 0.0, 1.0], self.real)

    def powers(self, a, k):
        ps = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape), a]
        if k > 2:
            ps.append(_mm(a, a))
        if k > 3:
            ps.append(_mm(a, ps[2]))
        if k > 4:
            ps.append(_mm(ps[3], ps[3]))
        return ps

    def t1(self, a):
        return _sum0(self.powers(a, 2))

    def t2(self, a):
        i, a1, a2 = self.powers(a, 3)
        return _sum0([i, a1, (a2 / self.real.type(2)).astype(a.dtype)])

    def t4(self, a):
        ps = self.powers(a, 3)
        ps.append(_mm(ps[2], _lincomb(ps, self.c4)))
        return _lincomb(ps, self.l4)

    def t8(self, a):
        ps = self.powers(a, 3)
        ps.append(_mm(ps[2], _lincomb(ps[1:3], self.c8a)))
        ps.append(_mm(_lincomb(ps[2:4], self.c8b), _lincomb(ps[0:4], self.c8c)))
        return _lincomb(ps, self.l8)

    def t12(self, a):
        ps = self.powers(a, 4)
        b = [_lincomb(ps, row) for row in self.b12]
        b2 = b[2] + _mm(b[3], b[3])
        return b[0] + _mm(b[1] + b2, b2)

    def t18(self, a):
        ps = self.powers(a, 5)
        b = [_lincomb(ps, row) for row in self.b18]
        b3 = b[3] + _mm(b[0], b[4])
        return b[1] + _mm(b[2] + b3, b3)

    def t18_scale_square(self, a, norm):
        """Scale by 2^-s, s = max(ceil(log2(norm / theta18)), 0), then square each matrix s times."""
        ct, rt = _opmath(self.real), self.real.type  # half types: each step in float32, rounded
        q = (norm.astype(ct) / ct.type(self.thetas[-1])).astype(self.real)
        s = np.maximum(np.ceil(np.log2(q.astype(ct))).astype(self.real), rt(0))
        x = self.t18(a * np.exp2(-s.astype(ct)).astype(self.real)[:, None, None])
        steps = np.where(np.isfinite(s), s, 0).astype(np.int64)
        for i in range(x.shape[0]):
            for _ in range(steps[i]):
                x[i] = _mm(x[i], x[i])
        return x


_POLYS = {}


def _mexp(a):
    """exp of each matrix of the (batch, n, n) numpy array ``a``, n >= 2, as torch's ``mexp``."""
    p = _POLYS.get(a.dtype)
    if p is None:
        p = _POLYS[a.dtype] = _Poly(a.dtype)
    with np.errstate(all="ignore"):
        ct = _opmath(p.real)
        norm = np.max(np.abs(a).astype(ct).sum(-2), axis=-1, initial=-np.inf).astype(p.real)
        if a.shape[0] != 1:  # an empty batch or several matrices: the scaled degree-18 polynomial for all
            return p.t18_scale_square(a, norm)
        th = [p.real.type(t) for t in p.thetas]
        n0 = norm[0]
        # by norm interval (-1, th1], (th1, th2], ... (th8, th12); th12 and beyond: scaled degree 18;
        # a NaN norm matches none of them and keeps torch's NaN-filled result
        for i, t in enumerate((p.t1, p.t2, p.t4, p.t8)):
            if n0 <= th[i]:
                return t(a)
        if n0 < th[4]:
            return p.t12(a)
        if n0 >= th[4]:
            return p.t18_scale_square(a, norm)
        return np.full_like(a, np.nan)


def _mexp_host(a):
    n = a.shape[-1]
    return np.ascontiguousarray(_mexp(np.asarray(a).reshape((-1, n, n)))).reshape(a.shape)


@jax.custom_vjp
def _matrix_exp_impl(a):
    n = a.shape[-1]
    if n == 0:
        return a
    if n == 1:
        return jnp.exp(a)
    # computed on the host (numpy): XLA contracts the products' multiply-adds, torch's kernel does not
    return jax.pure_callback(_mexp_host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, vmap_method="expand_dims")


def _fwd(a):
    return _matrix_exp_impl(a), a


def _bwd(a, g):
    # torch's backward_analytic_function_of_a_matrix: exp([[A^H, G], [0, A^H]]) holds the gradient top right
    n = a.shape[-1]
    ah = jnp.conj(jnp.swapaxes(a, -1, -2))
    top = jnp.concatenate([ah, g.astype(a.dtype)], axis=-1)
    bottom = jnp.concatenate([jnp.zeros_like(ah), ah], axis=-1)
    return (_matrix_exp_impl(jnp.concatenate([top, bottom], axis=-2))[..., :n, n:],)


_matrix_exp_impl.defvjp(_fwd, _bwd)


@register(method=True, namespaces=("torch", "linalg"))
def matrix_exp(A):
    """Matrix exponential of a matrix or a batch of matrices (torch's Taylor-polynomial kernel).

    >>> import torchlike as torch
    >>> torch.linalg.matrix_exp(torch.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    check_square(A, "linalg.matrix_exp")
    d = A.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[d.name]}")
    return dispatch(_matrix_exp_impl, (A,), (), name="LinalgMatrixExpBackward0")
