"""fbgemm's uint8 x int8 accumulation on CPUs without AVX512-VNNI, where torch's x86 backend runs both quantized
linear and quantized convolution through fbgemm (oneDNN takes convolutions only on VNNI CPUs).

There fbgemm multiplies with ``vpmaddubsw``: the products of two neighbouring reduction elements (the reduction
ordered input-channel fastest, as fbgemm's NHWC im2col lays it out, and padded with zeros to an even length) are
added and *saturated to int16* before they reach the int32 sum.  Raw (not zero-point shifted) activations enter the
products; the zero points are taken out afterwards with row/column sums, and padded pixels hold the activation's zero
point.  On VNNI CPUs (``vpdpbusd``) the sum is exact.  Measured against torch 2.13 on an AVX2 EPYC
(tests/test_quantized_static.py): every output that differs from the exact sum is one whose pairs saturate.

>>> import numpy as np
>>> from torchlike.ao.nn.quantized._fbgemm import saturated_acc
>>> x = np.array([[[[255], [255]]]], np.uint8)   # (N, G, K*C, L): one pair of 255s
>>> w = np.array([[[127, 127]]], np.int8)         # (G, O, K*C)
>>> int(saturated_acc(x, w)[0, 0, 0, 0])          # 2*255*127 = 64770 saturates to 32767
32767
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .... import _cpu_features

__all__ = ["saturates", "saturated_acc"]


def saturates() -> bool:
    """Whether this CPU's fbgemm kernels saturate neighbouring products to int16 (no AVX512-VNNI)."""
    return "avx512_vnni" not in _cpu_features.flags()


def saturated_acc(x, w):
    """``sum_k x[n, g, k, l] * w[g, o, k]`` with fbgemm's int16 saturation of each (even, odd) pair of ``k``:
    ``x`` (N, G, R, L) raw uint8 activations, ``w`` (G, O, R) int8 weights, R ordered as fbgemm reduces it.
    Returns int32 (N, G, O, L)."""
    x = jnp.asarray(x).astype(jnp.int32)
    w = jnp.asarray(w).astype(jnp.int32)
    r = x.shape[2]
    if r % 2:
        x = jnp.pad(x, ((0, 0), (0, 0), (0, 1), (0, 0)))
        w = jnp.pad(w, ((0, 0), (0, 0), (0, 1)))
    n, g, _, l_ = x.shape
    xs = jnp.moveaxis(x.reshape(n, g, -1, 2, l_), 2, 0)  # (P, N, G, 2, L)
    ws = jnp.moveaxis(w.reshape(g, w.shape[1], -1, 2), 2, 0)  # (P, G, O, 2)

    def step(acc, pair):
        xp, wp = pair
        return acc + jnp.clip(jnp.einsum("ngjl,goj->ngol", xp, wp), -32768, 32767), None

    acc, _ = jax.lax.scan(step, jnp.zeros((n, g, w.shape[1], l_), jnp.int32), (xs, ws))
    return acc
