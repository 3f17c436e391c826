"""torch's CPU rejection samplers (gamma, Dirichlet, binomial) over an :class:`~torchlike._mt.MTEngine`.

A rejection sampler consumes a data-dependent number of draws per element, and the next element
starts where the previous one stopped, so these run element by element (as torch's serial CPU
kernels do) on scalar draws: ``uniform()`` is torch's ``uniform_real_distribution<double>`` (53 bits
of one ``random64()``) and ``normal()`` its ``normal_distribution<double>`` (Box-Muller on two
uniforms, the second value cached in the generator).  Arithmetic follows torch's types: the
concentration/count/probability stay in the tensor's dtype (float32 math for float32 tensors) where
torch keeps them in ``scalar_t``, everything else is double; ``math`` calls glibc like torch does.

>>> from torchlike._mt import MTEngine
>>> standard_gamma(MTEngine(0), np.array([0.5, 2.0], np.float32))
array([0.00078936, 0.6315406 ], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np
import ml_dtypes

__all__ = ["standard_gamma", "dirichlet_gammas", "dirichlet_normalize", "binomial"]

_M53 = (1 << 53) - 1
_F32 = np.dtype(np.float32)


class _Scalar:
    """Scalar draws from an engine, words fetched in blocks; ``close()`` leaves the engine exactly
    after the words used (the unused rest of the block is given back)."""

    __slots__ = ("e", "buf", "i", "start", "used")

    def __init__(self, e):
        self.e, self.buf, self.i, self.used = e, [], 0, 0
        self.start = e.bitgen.state

    def _word2(self):
        if self.i + 2 > len(self.buf):
            self.used += self.i
            self.buf, self.i = self.e.bitgen.random_raw(512).tolist(), 0
        a, b = self.buf[self.i], self.buf[self.i + 1]
        self.i += 2
        return a, b

    def uniform(self):
        a, b = self._word2()
        return (((a << 32) | b) & _M53) * 2.0 ** -53

    def normal(self):
        e = self.e
        if e.next_double_normal is not None:
            v, e.next_double_normal = e.next_double_normal, None
            return v
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        e.next_double_normal = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self):
        used = self.used + self.i
        self.e.bitgen.state = self.start
        if used:
            self.e.words(used)


def _gamma_one(s, alpha, f32):
    """Marsaglia-Tsang with torch's boost for alpha < 1; ``alpha`` is a float32 scalar when ``f32``."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(np.float32(1.0) / alpha) if f32 else 1.0 / alpha
        scale *= math.pow(1.0 - s.uniform(), inv)
        alpha = np.float32(alpha + np.float32(1.0)) if f32 else alpha + 1.0
    d = float(np.float32(alpha - np.float32(1.0 / 3.0))) if f32 else alpha - float(np.float32(1.0 / 3.0))
    c = 1.0 / math.sqrt(9.0 * d)
    c0331 = float(np.float32(0.0331))
    while True:
        while True:
            x = s.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - s.uniform()
        xx = x * x
        if u < 1.0 - c0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(e, alpha):
    """torch's ``_standard_gamma`` on the CPU: one Gamma(alpha, 1) draw per element (C order), in
    ``alpha``'s dtype, at least the dtype's smallest normal number."""
    alpha = np.asarray(alpha)
    f32 = alpha.dtype == _F32
    s = _Scalar(e)
    try:
        vals = [_gamma_one(s, a, f32) for a in (alpha.reshape(-1) if f32 else alpha.reshape(-1).tolist())]
    finally:
        s.close()
    out = np.asarray(vals, np.float64).astype(alpha.dtype).reshape(alpha.shape)
    return np.maximum(out, ml_dtypes.finfo(alpha.dtype).tiny)


def dirichlet_gammas(e, alpha):
    """The double Gamma(alpha, 1) draws of torch's CPU ``_sample_dirichlet`` (alpha cast to double), each
    at least DBL_MIN; :func:`dirichlet_normalize` turns them into the sample."""
    alpha = np.asarray(alpha)
    s = _Scalar(e)
    try:
        g = [_gamma_one(s, a, False) for a in alpha.astype(np.float64).reshape(-1).tolist()]
    finally:
        s.close()
    return np.maximum(np.asarray(g, np.float64).reshape(alpha.shape), np.finfo(np.float64).tiny)


def _row_sum(g):
    """Sums over the last dim in the order of torch's AVX2 double sum kernel (4 lanes, 4 vector accumulators
    over whole groups of 4 vectors, leftover vectors into the first; scalar tail first, then the lanes).
    Rows over 256 long (torch then sums in cascade levels) use numpy's sum: last-ulp differences there."""
    n = g.shape[-1]
    if n > 256:
        return g.sum(-1, keepdims=True)
    nv = n // 4
    full = nv - nv % 4
    acc = [None] * 4
    for j in range(nv):
        a = j % 4 if j < full else 0
        v = g[..., 4 * j:4 * j + 4]
        acc[a] = v if acc[a] is None else acc[a] + v
    lanes = None
    for a in acc:
        if a is not None:
            lanes = a if lanes is None else lanes + a
    f = np.zeros(g.shape[:-1], np.float64)
    for j in range(4 * nv, n):
        f = f + g[..., j]
    if lanes is not None:
        for k in range(4):
            f = f + lanes[..., k]
    return f[..., None]


def dirichlet_normalize(g, dt):
    """torch's second pass: ``g / g.sum(-1)`` in double, cast to ``dt``, kept in [tiny, 1 - ulp]."""
    dt = np.dtype(dt)
    x = (g / _row_sum(g)).astype(dt)
    return np.minimum(np.maximum(x, ml_dtypes.finfo(dt).tiny), np.nextafter(dt.type(1), dt.type(0)))


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
         0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _btrs(s, n, p, T):
    one = T(1)
    stddev = math.sqrt(float(T(n * p) * (one - p)))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(p)
    c = float(n * p) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(p / (one - p))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((n + one) * p))
    n = float(n)
    while True:
        u = s.uniform() - 0.5
        v = s.uniform()
        us = 0.5 - abs(u)
        k = float(T(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1))) + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                 + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1)) + _stirling_tail(m) + _stirling_tail(n - m)
                 - _stirling_tail(k) - _stirling_tail(n - k))
        if v <= bound:
            return k


def _inversion(s, n, p, T):
    logprob = float(T(np.log1p(-p)))
    total, k = 0.0, 0
    n = float(n)
    while True:
        total += math.ceil(math.log(s.uniform()) / logprob)
        if total > n:
            return float(k)
        k += 1


def _binomial_one(s, n, p, T):
    if n <= 0 or p <= 0:
        return 0.0
    if p >= 1:
        return float(n)
    if p <= 0.5:
        return _btrs(s, n, p, T) if n * p >= 10 else _inversion(s, n, p, T)
    q = T(T(1) - p)
    return float(n) - (_btrs(s, n, q, T) if n * q >= 10 else _inversion(s, n, q, T))


def binomial(e, count, prob):
    """torch's ``binomial`` on the CPU: BTRS for n * min(p, 1 - p) >= 10, inversion below; in the inputs' dtype."""
    count, prob = np.broadcast_arrays(np.asarray(count), np.asarray(prob))
    dt = count.dtype
    T = dt.type
    s = _Scalar(e)
    try:
        vals = [_binomial_one(s, T(n), T(p), T) for n, p in zip(count.reshape(-1), prob.reshape(-1).astype(dt))]
    finally:
        s.close()
    return np.asarray(vals, np.float64).astype(dt).reshape(count.shape)
