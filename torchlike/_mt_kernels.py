"""torch's CPU sampling kernels over an :class:`~torchlike._mt.MTEngine`, vectorized with numpy.

Each function consumes the engine's words in the order torch's CPU kernel does and returns a numpy
array with the values torch's kernel writes (C order of a contiguous output):

* uniform: float32/float16/bfloat16 take 24 bits of one word, float64 53 bits of a 64-bit draw;
  ``x * (to - from) + from`` is one fused multiply-add (torch's kernels are built with FMA), a result
  that rounds up to ``to`` becomes ``from``.
* normal: tensors of >= 16 elements fill uniforms, then Box-Muller over chunks of 16 (8 pairs; a tail
  redraws the last 16); float32 uses torch's AVX2 polynomial log/sincos (emulated op for op), other
  dtypes libm.  Smaller tensors take the scalar path (two 53-bit uniforms per pair, the second normal
  cached in the generator).
* integers: ``random() % range`` (or ``random64()`` for ranges >= 2**28); randperm shuffles like torch.

>>> from torchlike._mt import MTEngine
>>> uniform(MTEngine(0), 3, np.float32, 0.0, 1.0)
array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
"""
from __future__ import annotations

import math

import numpy as np
from ._mt_avx_consts import _COSCOF, _DP, _FOPI, _LOG_P, _LOG_Q1, _LOG_Q2, _SINCOF, _SQRTHF
from ._stl_order import topk_order
from ._mt_xla import normal_rows

__all__ = ["uniform", "normal", "random_from_to", "random_default", "random_full64", "bernoulli_scalar",
           "bernoulli_tensor", "exponential", "geometric", "cauchy", "log_normal", "randperm", "multinomial",
           "poisson", "uniform_unit53", "normal_scalar", "cast"]

_M24 = np.uint64(0xFFFFFF)
_M53 = np.uint64((1 << 53) - 1)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _fma64(a, b, c):
    """a * b + c with one rounding (error-free product and sum; exact except in rare double-rounding ties)."""
    a, b, c = np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64)
    p = a * b
    sa, sb = a * 134217729.0, b * 134217729.0
    ah, bh = sa - (sa - a), sb - (sb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    z = s - p
    t = (p - (s - z)) + (c - z)
    return s + (t + e)


def _fma32(a, b, c):
    """Single-precision fused multiply-add (the float32 product is exact in float64): three ufunc calls, as
    small draws are bound by numpy's per-call cost."""
    return np.add(np.multiply(a, b, dtype=_F64), c, dtype=_F64).astype(_F32)


_U24 = np.float32(2.0 ** -24)


def unit24(w):
    """float32 in [0, 1) from the low 24 bits of each word (exact: 24-bit integers and a power of two).
    ``w`` is a fresh array of words: it is masked in place (small draws are bound by numpy's per-call cost)."""
    x = np.bitwise_and(w, _M24, out=w).astype(_F32)
    x *= _U24
    return x


def uniform_unit53(e, n):
    """``n`` doubles in [0, 1) from 53 bits of ``random64()`` each."""
    return (e.words64(n) & _M53).astype(_F64) * 2.0 ** -53


def uniform(e, n, dt, low, high):
    if dt is _F32 and low == 0.0 and high == 1.0:  # rand()'s case first
        return unit24(e.words(n))
    dt = np.dtype(dt)
    unit = float(low) == 0.0 and float(high) == 1.0  # x * 1 + 0 is x, and x < 1: no FMA, no clamp
    if dt == _F64:
        x = uniform_unit53(e, n)
        if unit:
            return x
        lo, hi = float(low), float(high)
        r = _fma64(x, hi - lo, lo)
        return np.where(r >= hi, lo, r) if hi > lo else r
    x = unit24(e.words(n))
    lo, hi = np.float32(low), np.float32(high)
    if unit and dt == _F32:
        return x
    r = x if unit else _fma32(x, hi - lo, lo)
    if dt == _F32:
        return np.where(r >= hi, lo, r)
    out = r.astype(dt)
    top = np.asarray(hi).astype(dt)
    return np.where(out >= top, np.asarray(lo).astype(dt), out)


# --- normal -----------------------------------------------------------------------------------------------
_f = np.float32
_ONE, _HALF = _f(1.0), _f(0.5)


def _log_ps(x):
    """Cephes-style float32 log (torch's log256_ps), op for op; x > 0."""
    x = np.maximum(x, _f(1.17549435e-38))
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(_F32) + _ONE
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _f(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _f(0))
    x = x + tmp
    z = x * x
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = _fma32(y * x, z, e * _LOG_Q1)  # GCC fuses the first product of ``y*z + e*q1``
    y = _fma32(-z, _HALF, y)
    return _fma32(e, _LOG_Q2, x + y)


def _sincos_ps(x):
    """Cephes-style float32 sin and cos (torch's sincos256_ps), op for op; x >= 0."""
    j = ((x * _FOPI).astype(np.int32) + 1) & ~1
    y = j.astype(_F32)
    sin_neg = (j & 4) != 0
    poly = (j & 2) == 0
    cos_neg = ((~(j - 2)) & 4) != 0
    x = _fma32(y, _DP[0], x)
    x = _fma32(y, _DP[1], x)
    x = _fma32(y, _DP[2], x)
    z = x * x
    c = _fma32(_fma32(_COSCOF[0], z, _COSCOF[1]), z, _COSCOF[2]) * z
    c = _fma32(c, z, -(z * _HALF)) + _ONE
    s = _fma32(_fma32(_fma32(_SINCOF[0], z, _SINCOF[1]), z, _SINCOF[2]) * z, x, x)
    sin = np.where(poly, s, c)
    cos = np.where(poly, c, s)
    return np.where(sin_neg, -sin, sin), np.where(cos_neg, -cos, cos)


def _box_muller16_f32(d, mean, std):
    """In place over rows of 16 float32 uniforms: torch's AVX2 normal_fill_16."""
    u1 = _ONE - d[:, :8]
    u2 = d[:, 8:]
    radius = np.sqrt(_f(-2.0) * _log_ps(u1))
    theta = _f(2.0 * math.pi) * u2
    s, c = _sincos_ps(theta)
    d[:, :8] = _fma32(radius * c, std, mean)
    d[:, 8:] = _fma32(radius * s, std, mean)


def _libm(f, x):
    """``f`` (a ``math`` function: glibc's, as torch's kernels call it) over a float64 array, element by
    element. numpy's float64 ``log``/``log1p``/``exp``/``tan`` take its own SIMD code on AVX-512 machines, which
    rounds 0.3-7% of results differently from glibc (on AVX2 machines numpy calls glibc): ~110 ns an element."""
    x = np.asarray(x, _F64)
    return np.fromiter(map(f, x.ravel().tolist()), _F64, count=x.size).reshape(x.shape)


def _box_muller16_f64(d, mean, std):
    u1 = 1.0 - d[:, :8]
    u2 = d[:, 8:]
    radius = np.sqrt(-2.0 * _libm(math.log, u1))
    theta = 2.0 * math.pi * u2
    d[:, :8] = _fma64(radius * np.cos(theta), std, mean)
    d[:, 8:] = _fma64(radius * np.sin(theta), std, mean)


def _unit(e, n, dt):
    return uniform(e, n, dt, 0.0, 1.0)


_BLOCK = 2048  # rows of 16
_XLA_MIN = 16  # float32 normals from here on run as an XLA program (_box_muller16_f32 stays the reference)


def normal(e, n, dt, mean=0.0, std=1.0):
    dt = np.dtype(dt)
    if n < 16:
        return cast(normal_scalar(e, n, mean, std), dt)
    low = dt not in (_F32, _F64)
    work = _F32 if low else dt
    full = n - n % 16
    # float/double fill all n uniforms first; half/bfloat16 draw 16 per chunk into a float buffer
    d = _unit(e, full if low else n, work)
    if work == _F32 and n >= _XLA_MIN:  # one compiled program over all rows (the tail row too): _mt_xla
        rows = d[:full].reshape(-1, 16)
        if n % 16:
            rows = np.concatenate([rows, _unit(e, 16, work).reshape(1, 16)])
        z = normal_rows(rows, mean, std).reshape(-1)
        if n % 16:  # the tail redraw overwrites the last 16 elements
            z = np.concatenate([z[:n - 16], z[full:]])
        return z.astype(dt) if low else z
    fill = _box_muller16_f64 if work == _F64 else _box_muller16_f32
    m, s = (float(mean), float(std)) if work == _F64 else (_f(mean), _f(std))
    rows = d[:full].reshape(-1, 16)
    for i in range(0, len(rows), _BLOCK):  # blocks that stay in cache: the transform is ~40 numpy passes
        fill(rows[i:i + _BLOCK], m, s)
    if n % 16:
        tail = _unit(e, 16, work).reshape(1, 16)
        fill(tail, m, s)
        d = np.concatenate([d[:n - 16], tail[0]]) if low else d
        d[n - 16:] = tail[0]
    return d.astype(dt) if low else d


def normal_scalar(e, n, mean=0.0, std=1.0):
    """torch's normal_distribution<double>, element by element: Box-Muller on two 53-bit uniforms per
    pair, the sine half cached in the generator for the next element (vectorized over the pairs)."""
    out = np.empty(n, _F64)
    k = 0
    if n and e.next_double_normal is not None:
        out[0], e.next_double_normal, k = e.next_double_normal, None, 1
    pairs = (n - k + 1) // 2
    if pairs:
        u = uniform_unit53(e, 2 * pairs)
        r = np.sqrt(-2.0 * _libm(math.log1p, -u[1::2]))
        theta = 2.0 * math.pi * u[0::2]
        z = np.empty(2 * pairs, _F64)
        z[0::2], z[1::2] = r * np.cos(theta), r * np.sin(theta)
        out[k:] = z[:n - k]
        if (n - k) % 2:
            e.next_double_normal = float(z[-1])
    return _fma64(out, float(std), float(mean))


def cast(x, dt):
    """A float64 result stored as ``dt`` (half/bfloat16 go through float, as c10's conversions do)."""
    dt = np.dtype(dt)
    if dt.kind == "f" and dt.itemsize == 2 or dt.name == "bfloat16":
        return x.astype(_F32).astype(dt)
    return x.astype(dt)


# --- integers -----------------------------------------------------------------------------------------------
def random_from_to(e, n, low, high):
    """Integers ``from + draw % (to - from)`` as int64: ``random()``, or ``random64()`` for ranges >= 2**28
    (torch 2.13 switches there, measured, which keeps the modulo bias small)."""
    rng = int(high) - int(low)
    w = e.words64(n) if rng >= 1 << 28 else e.words(n)
    if rng < 1 << 63:  # (remainders below 2**63: int64's bits as they are; in place, few numpy calls)
        r = np.remainder(w, np.uint64(rng), out=w).view(np.int64)
        if low:
            r += np.int64(low)
        return r
    return ((w % np.uint64(rng)) + np.uint64(int(low) & 0xFFFF_FFFF_FFFF_FFFF)).view(np.int64)


_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def random_default(e, n, dt):
    """``random_()`` without bounds: ``random()`` (``random64()`` for int64/float64) modulo the dtype's range."""
    dt = np.dtype(dt)
    wide = dt.name in ("int64", "float64")
    w = e.words64(n) if wide else e.words(n)
    if dt.kind == "b":
        return (w & np.uint64(1)).astype(bool)
    if dt.name in _DIGITS:
        return (w % np.uint64((1 << _DIGITS[dt.name]) + 1)).astype(dt)
    return (w % np.uint64(int(np.iinfo(dt).max) + 1)).astype(dt)


def random_full64(e, n):
    return e.words64(n).view(np.int64)


# --- bernoulli / continuous transforms -------------------------------------------------------------------------
def bernoulli_scalar(e, n, p):
    """torch's default (non-MKL) scalar kernel: a 53-bit uniform per element, ``u < p``.

    ``u = k * 2**-53`` with ``k`` the low 53 bits of ``random64()``, so ``u < p`` is ``k < ceil(p * 2**53)``
    (``p * 2**53`` is exact for p in [0, 1] above 2**-1021): one integer comparison, no float pass."""
    p = float(p)
    if p < 2.0 ** -1000:
        return uniform_unit53(e, n) < p
    w = e.words(2 * n)
    k = ((w[0::2] & np.uint64(0x1FFFFF)) << np.uint64(32)) | w[1::2]
    return k < np.uint64(math.ceil(p * 2.0 ** 53))


def bernoulli_tensor(e, p):
    """Per-element probabilities ``p`` (float64: 53-bit uniforms compared in double; else 24-bit, float)."""
    p = np.asarray(p)
    if p.dtype == _F64:
        return uniform_unit53(e, p.size).reshape(p.shape) < p
    return unit24(e.words(p.size)).reshape(p.shape) < p.astype(_F32)


def exponential(e, n, lambd):
    u = uniform_unit53(e, n)
    return -1.0 / float(lambd) * _libm(math.log1p, -u)


def geometric(e, n, p):
    u = uniform_unit53(e, n)
    return np.ceil(_libm(math.log, u) / math.log1p(-float(p)))


def cauchy(e, n, median, sigma):
    u = uniform_unit53(e, n)
    return float(median) + float(sigma) * _libm(math.tan, math.pi * (u - 0.5))


def log_normal(e, n, mean, std):
    return _libm(math.exp, normal_scalar(e, n, mean, std))


# --- permutations / categorical ------------------------------------------------------------------------------
_SWAP_LOOP_MAX = 768  # measured: up to here a list loop beats the vectorized swap resolution


def randperm(e, n):
    """torch's randperm: for n < 2**32 / 20 Fisher-Yates (swap r[i] with r[i + random() % (n - i)] for
    i = 0 .. n-2); above, the inside-out shuffle on ``random64() % (i + 1)``.  Both without a Python loop."""
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    if n < (1 << 32) // 20:
        w = e.words(n - 1)
        z = (w % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64) + np.arange(n - 1, dtype=np.int64)
        if n <= _SWAP_LOOP_MAX:  # the swaps themselves: cheaper than the ~40 numpy calls of the resolution
            r = list(range(n))
            for i, j in enumerate(z.tolist()):
                r[i], r[j] = r[j], r[i]
            return np.array(r, np.int64)
        return _forward_swaps(z, n)
    w = e.words64(n)
    return _inside_out(((w % np.arange(1, n + 1, dtype=np.uint64))).astype(np.int64), n)


def _roots(parent):
    """Follow ``parent`` pointers to their fixed points (pointer doubling: log(depth) passes)."""
    while True:
        nxt = parent[parent]
        if np.array_equal(nxt, parent):
            return parent
        parent = nxt


def _group_prev(z):
    """For each i, the largest j < i with z[j] == z[i] (-1 if none), and the stable order by z."""
    order = np.argsort(z, kind="stable")
    zs = z[order]
    prev = np.full(len(z), -1, np.int64)
    same = zs[1:] == zs[:-1]
    prev[order[1:][same]] = order[:-1][same]
    return prev, order, zs


def _forward_swaps(z, n):
    """The result of swapping r[i] <-> r[z[i]] (z[i] >= i) for i = 0 .. n-2 on r = arange(n).

    Step t fixes position t to the value then at z[t]: the value the last earlier swap into z[t] left
    there, or z[t] itself.  What position t holds when its step comes is, likewise, what the last
    earlier swap into t left there; those chains are resolved by pointer doubling."""
    m = n - 1
    prev, order, zs = _group_prev(z)
    ends = np.flatnonzero(np.r_[zs[1:] != zs[:-1], True])
    v, last = zs[ends], order[ends]
    into = np.full(n, -1, np.int64)  # into[t]: last step j < t with z[j] == t
    into[v] = np.where(last == v, prev[last], last)
    held = _roots(np.where(into >= 0, into, np.arange(n)))  # value at position t when step t starts
    out = np.empty(n, np.int64)
    out[:m] = np.where(prev >= 0, held[np.maximum(prev, 0)], z)
    out[m] = held[m]
    return out


def _inside_out(z, n):
    """The inside-out shuffle: for i = 0 .. n-1, r[i] = r[z[i]]; r[z[i]] = i (z[i] <= i).

    Position p ends with the last step i > p with z[i] == p, if any; else with what step p copied
    from z[p] (p itself when z[p] == p): the same question one position down, resolved by doubling."""
    prev, order, zs = _group_prev(z)
    ends = np.flatnonzero(np.r_[zs[1:] != zs[:-1], True])
    last_writer = np.full(n, -1, np.int64)
    last_writer[zs[ends]] = order[ends]
    idx = np.arange(n)
    later = last_writer > idx  # a later step wrote p
    # value at position q just before step p (q = z[p] < p): the last step j < p with z[j] == q, else
    # what q was created with; prev[] walks the writers of q backwards from p
    before = prev  # the writer of z[p] just before step p (its index j < p, or -1)
    copied = np.where(z == idx, idx, -1)
    # resolve: value(p) = last writer j > p of p; else created(p); created(p) = p if z[p] == p, else
    # (before[p] >= 0 and before[p] > z[p]) ? before[p] : created(z[p])
    direct = np.where(copied >= 0, copied, np.where((before >= 0) & (before > z), before, -1))
    parent = np.where(direct >= 0, idx, z)
    root = _roots(parent)
    created = np.where(direct >= 0, direct, -1)[root]
    return np.where(later, last_writer, created)


def multinomial(e, probs, n, replacement):
    """Rows of ``probs`` (2-D numpy, the input's dtype) -> int64 indices of shape (rows, n)."""
    rows, k = probs.shape
    if not replacement or n == 1:
        # torch: q ~ Exp(1) in the input's dtype, then argmax / topk of p / q
        q = cast(exponential(e, probs.size, 1.0), probs.dtype).reshape(probs.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (probs / q).astype(probs.dtype)
        if n == 1:
            return np.argmax(r, axis=1)[:, None].astype(np.int64)
        out = np.argsort(-r.astype(_F64), axis=1, kind="stable")[:, :n].astype(np.int64)
        for i, row in enumerate(r.astype(_F64)):
            if np.unique(row).size < k:  # ties (or NaNs): torch's topk leaves them in libstdc++'s order
                out[i] = topk_order(row.tolist(), n)
        return out
    acc = probs.dtype if probs.dtype in (_F32, _F64) else _F32
    out = np.empty((rows, n), np.int64)
    for i in range(rows):
        cum = np.cumsum(probs[i].astype(acc), dtype=acc)
        total = cum[-1]
        if total > 0:
            cum = (cum / total).astype(acc)
        cum[-1] = 1
        u = uniform_unit53(e, n)
        out[i] = np.searchsorted(cum.astype(_F64), u, side="left")
    return out


def poisson(e, rates):
    """Poisson draws (torch's CPU sampler: transformed rejection for rate >= 10, multiplication below)."""
    rates = np.asarray(rates, _F64)
    out = np.empty(rates.size, _F64)
    for i, lam in enumerate(rates.reshape(-1).tolist()):
        out[i] = _poisson_one(e, lam)
    return out.reshape(rates.shape)


def _poisson_one(e, lam):
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _std_uniform(e) - 0.5
            v = _std_uniform(e)
            us = 0.5 - abs(u)
            k = int(math.floor((2 * a / us + b) * u + lam + 0.43))
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                    (-lam + k * loglam - math.lgamma(k + 1)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= _std_uniform(e)
        if prod > enlam:
            x += 1
        else:
            return x


def _std_uniform(e):
    return float(uniform_unit53(e, 1)[0])
