"""fbgemm's uint8 x int8 accumulation, and which library torch's x86 backend gives a quantized op to: linear always
runs through fbgemm, a convolution through oneDNN on CPUs with AVX512-VNNI when it has at most 100 groups
(``onednn_conv``), through fbgemm otherwise.

Without AVX512-VNNI fbgemm multiplies with ``vpmaddubsw``: the products of two neighbouring reduction elements
(the reduction ordered input-channel fastest, as fbgemm's NHWC im2col lays it out, and padded with zeros to an even
length) are added and *saturated to int16* before they reach the int32 sum.  Raw (not zero-point shifted) activations
enter the products; the zero points are taken out afterwards with row/column sums, and padded pixels hold the
activation's zero point.  On VNNI CPUs (``vpdpbusd``) the sum is exact, but for fbgemm's depthwise convolution kernels:
those are AVX2 code on every CPU and saturate there too (``conv_saturates``).  Measured against torch 2.13 on an AVX2
EPYC and on an AVX-512 (VNNI) EPYC (tests/test_quantized_static.py): every output that differs from the exact sum is
one whose pairs saturate.  ``FBGEMM_ENABLE_INSTRUCTIONS`` (``AVX2``, ``AVX512``, ``AVX512_256``: ISAs without VNNI)
lowers fbgemm's choice of GEMM kernels, and ours with it; it does not move convolutions off oneDNN.

>>> import numpy as np
>>> from torchlike.ao.nn.quantized._fbgemm import saturated_acc
>>> x = np.array([[[[255], [255]]]], np.uint8)   # (N, G, K*C, L): one pair of 255s
>>> w = np.array([[[127, 127]]], np.int8)         # (G, O, K*C)
>>> int(saturated_acc(x, w)[0, 0, 0, 0])          # 2*255*127 = 64770 saturates to 32767
32767
"""
from __future__ import annotations

import os

import jax
import jax.numpy as jnp

from .... import _cpu_features

__all__ = ["saturates", "saturated_acc", "onednn_conv", "conv_saturates"]

# the ISAs FBGEMM_ENABLE_INSTRUCTIONS can force that have no VNNI (fbgemm takes a forced ISA the CPU has)
_FORCED_NO_VNNI = ("AVX2", "AVX512", "AVX512_256")


def _vnni() -> bool:
    return "avx512_vnni" in _cpu_features.flags()


def saturates() -> bool:
    """Whether fbgemm's GEMM kernels here saturate neighbouring products to int16: on CPUs without AVX512-VNNI, or
    where ``FBGEMM_ENABLE_INSTRUCTIONS`` forces an ISA without it (as fbgemm's ``fbgemmInstructionSet`` reads it)."""
    return not _vnni() or os.environ.get("FBGEMM_ENABLE_INSTRUCTIONS", "").upper() in _FORCED_NO_VNNI


def onednn_conv(groups) -> bool:
    """Whether torch's x86 engine gives a convolution with symmetric weights to oneDNN (``should_use_onednn_quant``:
    an AVX512-VNNI CPU as cpuinfo reports it, at most 100 groups) rather than to fbgemm."""
    return _vnni() and groups <= 100


def _depthwise_fast_path(cin, cout, kernel, stride, padding, dilation, groups) -> bool:
    # fbgemm's takeDepthWiseFastPath (measured): one input channel per group, one or two outputs per group, groups a
    # multiple of 8, a square 3x3/5x5/7x7 kernel with "same" padding (k - 1) // 2, strides 1 or 2, no dilation
    return (cin == groups and cout in (groups, 2 * groups) and groups % 8 == 0 and kernel[0] == kernel[1]
            and kernel[0] in (3, 5, 7) and all(s in (1, 2) for s in stride) and all(d == 1 for d in dilation)
            and all(p == (k - 1) // 2 for p, k in zip(padding, kernel)))


def _groupwise_fast_path(cin, cout, kernel, stride, padding, dilation, groups) -> bool:
    # fbgemm's fbgemmOptimizedGConv: as many inputs as outputs per group, 2/4/8/16 of them, 3x3, padding 1, no
    # dilation, equal strides of 1 or 2 (and enough groups to fill a vector: always so past 100 groups)
    return (cin == cout and cin // groups in (2, 4, 8, 16) and tuple(kernel) == (3, 3) and tuple(padding) == (1, 1)
            and tuple(dilation) == (1, 1) and stride[0] == stride[1] and stride[0] in (1, 2))


def conv_saturates(cin, cout, kernel, stride, padding, dilation, groups) -> bool:
    """Whether fbgemm's convolution of this geometry saturates neighbouring products: its depthwise kernels always
    do (AVX2 code on every CPU); on a VNNI CPU its groupwise kernels never do (they pick their ISA from the CPU, not
    from ``FBGEMM_ENABLE_INSTRUCTIONS``), the others (im2col/pointwise GEMM) as ``saturates``.  Measured against
    torch 2.13 on an AVX-512 (VNNI) EPYC, with and without ``FBGEMM_ENABLE_INSTRUCTIONS=AVX2``.  On CPUs without
    VNNI every path saturates (measured on an AVX2 EPYC for im2col and depthwise convolutions; its groupwise
    kernels there are not measured)."""
    geometry = (cin, cout, kernel, stride, padding, dilation, groups)
    if _depthwise_fast_path(*geometry):
        return True
    if _vnni() and _groupwise_fast_path(*geometry):
        return False
    return saturates()


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
