"""The float32 constants of torch's AVX2 ``log256_ps`` / ``sincos256_ps`` (cephes polynomials), which its CPU
normal kernel's Box-Muller uses: shared by the numpy reference (``_mt_kernels``) and the XLA program that runs
the same arithmetic op for op (``_mt_xla``).

>>> from torchlike._mt_avx_consts import _FOPI
>>> float(_FOPI) == float(__import__("numpy").float32(4 / __import__("math").pi))
True
"""
from __future__ import annotations

import numpy as np

__all__ = []

_f = np.float32
_LOG_P = [_f(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
                          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2, _SQRTHF = _f(-2.12194440e-4), _f(0.693359375), _f(0.707106781186547524)
_DP = [_f(-0.78515625), _f(-2.4187564849853515625e-4), _f(-3.77489497744594108e-8)]
_SINCOF = [_f(-1.9515295891E-4), _f(8.3321608736E-3), _f(-1.6666654611E-1)]
_COSCOF = [_f(2.443315711809948E-005), _f(-1.388731625493765E-003), _f(4.166664568298827E-002)]
_FOPI = _f(1.27323954473516)
