"""The summation orders of ATen's vectorized CPU reductions (``at::vec::vec_reduce_all``,
``map2_reduce_all``...), whose float32 results depend on ``Vectorized<float>::size()``: 16 lanes where torch
runs its AVX512 kernels, 8 with its AVX2 ones (``_cpu_features.aten_vector_bytes``). Each function takes the
float32 terms along the last axis of a JAX array (a static length) and adds them in the kernel's order.

>>> import jax.numpy as jnp
>>> float(lane_tree_sum([jnp.float32(v) for v in (1, 2, 3, 4)]))
10.0
"""
from __future__ import annotations

from ._cpu_features import aten_vector_bytes

__all__ = ["lane_tree_sum", "reduced_map2_sum"]


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
