"""The summation orders of ATen's vectorized CPU reductions (``at::vec::vec_reduce_all``,
``map2_reduce_all``...), whose float32 results depend on ``Vectorized<float>::size()``: 16 lanes where torch
runs its AVX512 kernels, 8 with its AVX2 ones (``_cpu_features.aten_vector_bytes``). Each function takes the
float32 terms along the last axis of a JAX array (a static length) and adds them in the kernel's order.

>>> import jax.numpy as jnp
>>> float(lane_tree_sum([jnp.float32(v) for v in (1, 2, 3, 4)]))
10.0
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as _np
from jax import lax

from ._cpu_features import aten_vector_bytes

__all__ = ["lane_tree_sum", "reduced_map2_sum", "rowwise_moments"]


def _seq(terms):
    acc = terms[0]
    for t in terms[1:]:
        acc = acc + t
    return acc


def lane_tree_sum(lanes):
    """``vec_reduce_all`` over a whole vector: lane i adds lane i + w for w = size/2, size/4 ... 1 (the
    shuffle tree of its AVX2/AVX512 specialisations); the result is lane 0."""
    lanes = list(lanes)
    while len(lanes) > 1:
        w = len(lanes) // 2
        lanes = [lanes[i] + lanes[i + w] for i in range(w)]
    return lanes[0]


def reduced_map2_sum(p):
    """``at::vec::map2_reduce_all<Half/BFloat16>(x * y, x + y)`` over the last axis, given the float32
    products ``p``: rows shorter than a half-type vector (2 float vectors) add their lanes one after another
    (``vec_reduce_all`` with a size); longer ones accumulate two float vectors, add them and reduce the
    vector as a tree."""
    f = aten_vector_bytes() // 4
    n = p.shape[-1]
    col = [p[..., i] for i in range(n)]
    if n < 2 * f:
        if n > f:
            return _seq([col[i] + col[i + f] if i < n - f else col[i] for i in range(f)])
        return _seq(col)
    acc0, acc1 = col[:f], col[f:2 * f]
    d = 2 * f
    while d < n - n % (2 * f):
        acc0 = [a + col[d + i] for i, a in enumerate(acc0)]
        acc1 = [a + col[d + f + i] for i, a in enumerate(acc1)]
        d += 2 * f
    if n - d > f:
        acc0 = [a + col[d + i] for i, a in enumerate(acc0)]
        acc1 = [a + col[d + f + i] if i < n - d - f else a for i, a in enumerate(acc1)]
    elif n - d > 0:
        acc0 = [a + col[d + i] if i < n - d else a for i, a in enumerate(acc0)]
    return lane_tree_sum([a + b for a, b in zip(acc0, acc1)])



def _r(x):
    """A float64 value rounded to float32's precision, staying float64. The models below compute in float64
    and round after every operation: XLA's CPU float32 code fuses ``a * b + c``, divides through a reciprocal
    and takes ``1 / sqrt`` as an approximate ``rsqrt``, none of which torch's kernels do."""
    return lax.reduce_precision(x, exponent_bits=8, mantissa_bits=23)


def rowwise_moments(x):
    """``(mean, biased variance)`` of float32 rows (the last axis), as float64 arrays holding float32 values,
    computed as torch's ``RowwiseMoments`` does for its CPU layer norm: Welford over 8-lane vectors in chunks
    of 16, the chunks cascaded pairwise, the scalar tail added one value at a time, then the 8 lanes merged
    into it one by one. torch registers that kernel without an AVX512 build, so AVX-512 CPUs run the AVX2 one:
    8 lanes on both kinds of CPU. Its compiler fuses Welford's multiply-adds and those of the lane merges, not
    the vector merges of the cascade nor the scalar tail's.

    >>> import jax.numpy as jnp
    >>> m, v = rowwise_moments(jnp.arange(20, dtype=jnp.float32).reshape(1, 20))
    >>> float(m[0]), float(v[0])
    (9.5, 33.25)
    """
    x = x.astype(jnp.float64)
    lanes, chunk = aten_vector_bytes(avx512_kernel=False) // 4, 16
    n_all = x.shape[-1]
    n = n_all // lanes
    m = -(-n // chunk)
    depth = 1 if m <= 2 else (m - 1).bit_length()
    zero = jnp.zeros(x.shape[:-1] + (lanes,), jnp.float64)
    stk = [[0, zero, zero] for _ in range(depth)]

    def frac(a, b):
        return 0.0 if b == 0 else float(_np.float32(a) / _np.float32(b))

    def add_vec(add, into):  # AddMomentsVec(add..., into...), unfused
        m0_add, m1_add, m2_add = add
        m0, m1, m2 = into
        c = frac(m0_add, m0 + m0_add)
        delta = _r(m1_add - m1)
        t = _r(_r(_r(delta * delta) * c) * float(m0))
        return [m0 + m0_add, _r(m1 + _r(c * delta)), _r(m2 + _r(m2_add + t))]

    for i in range(m):
        cnt = min(chunk, n - i * chunk)
        m1v = m2v = zero
        for j in range(cnt):
            xv = x[..., (i * chunk + j) * lanes:(i * chunk + j + 1) * lanes]
            d = _r(xv - m1v)
            m1v = _r(d * frac(1, j + 1) + m1v)
            m2v = _r(d * _r(xv - m1v) + m2v)
        stk[0] = add_vec((cnt, m1v, m2v), stk[0])
        mask, j = i + 1, 1
        while j < depth and (mask & 1) == 0:
            stk[j] = add_vec(stk[j - 1], stk[j])
            stk[j - 1] = [0, zero, zero]
            mask >>= 1
            j += 1
    for i in range(1, depth):
        stk[0] = add_vec(stk[i], stk[0])
    m0, m1, m2 = 0, jnp.zeros(x.shape[:-1], jnp.float64), jnp.zeros(x.shape[:-1], jnp.float64)
    for i in range(n * lanes, n_all):
        d = _r(x[..., i] - m1)
        m0 += 1
        m1 = _r(m1 + _r(d / m0))
        m2 = _r(m2 + _r(d * _r(x[..., i] - m1)))
    for k in range(lanes):  # AddMoments(n, lane k's moments, the running ones)
        c = frac(n, m0 + n)
        delta = _r(stk[0][1][..., k] - m1)
        m1 = _r(c * delta + m1)
        m2 = _r(m2 + _r(_r(_r(delta * delta) * c) * float(m0) + stk[0][2][..., k]))
        m0 += n
    return m1, _r(m2 / n_all)
