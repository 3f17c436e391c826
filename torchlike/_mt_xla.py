"""torch's float32 Box-Muller (AVX2 ``normal_fill_16``) as a compiled XLA program, and the fast host->device copy.

The same operations as ``_mt_kernels._box_muller16_f32`` (Cephes-style float32 log and sincos, op for op,
fused multiply-adds as float64 products rounded once to float32), so the values are bit-identical;
XLA runs them as one fused vectorized loop instead of ~150 numpy passes.  Rows go through in padded chunks
of three fixed sizes (``TINY``, ``SMALL``, ``BIG``), so the program compiles at most three times per process
whatever the tensor sizes (a new size costs no compilation).  It runs on the CPU backend (GPU backends contract
multiply-adds).  ``_mt_kernels.normal`` uses it for every float32/half/bfloat16 tensor of 16 or more elements.

>>> import numpy as np
>>> u = np.full((1, 16), 0.5, np.float32)
>>> float(normal_rows(u, 0.0, 1.0)[0, 0])
-1.1774100065231323
"""
from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from . import _mt_avx_consts as _K

__all__ = ["normal_rows", "to_device", "TINY", "SMALL", "BIG"]

TINY = 16  # rows of 16 a call of the tiny program (256 floats)
SMALL = 256  # rows a call of the small one (4096 floats)
BIG = 4096  # rows a call of the big one (64k floats)
_f32, _f64 = jnp.float32, jnp.float64


def _fma(a, b, c):
    return (a.astype(_f64) * jnp.asarray(b).astype(_f64) + jnp.asarray(c).astype(_f64)).astype(_f32)


def _c(v):
    return np.float32(v)


def _log_ps(x):
    x = jnp.maximum(x, _c(1.17549435e-38))
    bits = jax.lax.bitcast_convert_type(x, jnp.uint32)
    e = ((bits >> 23).astype(jnp.int32) - 127).astype(_f32) + _c(1.0)
    x = jax.lax.bitcast_convert_type((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000), _f32)
    mask = x < _K._SQRTHF
    tmp = jnp.where(mask, x, _c(0))
    x = x - _c(1.0)
    e = e - jnp.where(mask, _c(1.0), _c(0))
    x = x + tmp
    z = x * x
    y = jnp.full_like(x, _K._LOG_P[0])
    for p in _K._LOG_P[1:]:
        y = _fma(y, x, p)
    y = _fma(y * x, z, e * _K._LOG_Q1)
    y = _fma(-z, _c(0.5), y)
    return _fma(e, _K._LOG_Q2, x + y)


def _sincos_ps(x):
    j = ((x * _K._FOPI).astype(jnp.int32) + 1) & ~1
    y = j.astype(_f32)
    sin_neg = (j & 4) != 0
    poly = (j & 2) == 0
    cos_neg = ((~(j - 2)) & 4) != 0
    x = _fma(y, _K._DP[0], x)
    x = _fma(y, _K._DP[1], x)
    x = _fma(y, _K._DP[2], x)
    z = x * x
    c = _fma(_fma(jnp.full_like(z, _K._COSCOF[0]), z, _K._COSCOF[1]), z, _K._COSCOF[2]) * z
    c = _fma(c, z, -(z * _c(0.5))) + _c(1.0)
    s = _fma(_fma(_fma(jnp.full_like(z, _K._SINCOF[0]), z, _K._SINCOF[1]), z, _K._SINCOF[2]) * z, x, x)
    sin = jnp.where(poly, s, c)
    cos = jnp.where(poly, c, s)
    return jnp.where(sin_neg, -sin, sin), jnp.where(cos_neg, -cos, cos)


@jax.jit
def _halves(u1, u2, ms):
    """The cosine and sine halves of each row, from its first and last 8 uniforms (flat, contiguous:
    XLA fuses this into one vectorized loop, which the strided (r, 16) layout defeats)."""
    mean, std = ms[0], ms[1]
    radius = jnp.sqrt(_c(-2.0) * _log_ps(_c(1.0) - u1))
    s, c = _sincos_ps(_c(2.0 * math.pi) * u2)
    return _fma(radius * c, std, mean), _fma(radius * s, std, mean)


_put = None  # (device, sharding) of JAX's default device, found on first use


@functools.lru_cache(maxsize=1024)
def _aval(shape, dt):
    from jax._src import core  # noqa: PLC0415 (private; imported on first use)
    return core.ShapedArray(shape, dt)


def to_device(x):
    """``jnp.asarray(x)`` for a fresh numpy array ``x`` (the same uncommitted array on JAX's default device),
    through the transfer call JAX's own jit dispatch uses: ~10x less overhead than ``jnp.asarray`` for small
    arrays, no compilation.  ``x`` must not be written afterwards (the CPU backend may alias it)."""
    global _put
    if _put is None:
        try:
            from jax._src.lib import xla_client
            from jax.sharding import SingleDeviceSharding
            dev = jax.local_devices()[0]  # (jax.devices()[0] is rank 0's device in a multi-process job)
            _put = (dev, SingleDeviceSharding(dev), xla_client.batched_device_put)
        except Exception:  # an internal API moved: the public route
            _put = False
    if _put is False or jax.config.jax_default_device is not None or not x.flags.c_contiguous:
        return jnp.asarray(x)
    dev, sharding, put = _put
    return put(_aval(x.shape, x.dtype), sharding, [x], [dev], False)


_cpu_default = None


def _cpu_array(x):
    """``x`` on the CPU backend (where the program must run: other backends contract multiply-adds)."""
    global _cpu_default
    if _cpu_default is None:
        _cpu_default = jax.default_backend() == "cpu"
    if _cpu_default:
        return to_device(x)
    return jax.device_put(x, jax.local_devices(backend="cpu")[0])


def normal_rows(d, mean, std):
    """Rows of 16 float32 uniforms (numpy, shape (r, 16)) -> torch's 16 normals per row (numpy float32).

    A rest of at most ``TINY`` (``SMALL``) rows goes in one padded call of that size; more than
    ``BIG / 4`` rows go in chunks of ``BIG`` (the last one padded), in between in chunks of ``SMALL``:
    three programs in all, whatever the sizes."""
    r = d.shape[0]
    out = np.empty((r, 16), np.float32)
    ms = _cpu_array(np.array([mean, std], np.float32))
    i = 0
    while i < r:
        rest = r - i
        b = TINY if rest <= TINY else SMALL if rest <= BIG // 4 else BIG
        k = min(rest, b)
        u1 = np.full((b, 8), 0.5, np.float32)
        u2 = np.zeros((b, 8), np.float32)
        u1[:k] = d[i:i + k, :8]
        u2[:k] = d[i:i + k, 8:]
        c, s = _halves(_cpu_array(u1.reshape(-1)), _cpu_array(u2.reshape(-1)), ms)
        out[i:i + k, :8] = np.asarray(c).reshape(b, 8)[:k]
        out[i:i + k, 8:] = np.asarray(s).reshape(b, 8)[:k]
        i += k
    return out
