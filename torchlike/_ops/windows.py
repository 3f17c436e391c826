"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window).
"""
from __future__ import annotations

import numpy as np
import math

from .. import _dtype
from .._errors import caller_op, int_arg
from ._util import register
from .._creation import tensor

__all__ = []


def _window(n, fn, periodic, dtype, device, requires_grad):
    """``fn(k, m, s)`` on ``k = arange(m)`` in the window's dtype (``s`` makes its scalars), as torch computes
    it: op by op in that precision (a float32 Blackman window ends at -2.98e-08, not 0)."""
    n = int_arg(n, "window_length", 1)
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if n < 0:
        op = caller_op()  # (the window called: hann_window, not the hamming_window it is)
        raise RuntimeError(f"{op} requires non-negative window_length, got window_length={n}")
    if n == 0:
        vals = np.zeros(0)
    elif n == 1:
        vals = np.ones(1)
    else:
        m = n + 1 if periodic else n
        npdt = np.dtype(d.np) if d.is_floating_point else np.dtype(np.float64)
        vals = fn(np.arange(m, dtype=np.float64).astype(npdt), m, npdt.type)[:n]
    return tensor(vals, dtype=d, device=device, requires_grad=requires_grad)


def _cos(x):
    """cos rounded once to ``x``'s precision (torch's vectorized cos is within an ulp of that)."""
    return np.cos(x.astype(np.float64)).astype(x.dtype)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window: ``0.5 - 0.5 cos(2 pi k / (N - 1))``."""
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Hamming window: ``alpha - beta cos(2 pi k / (N - 1))``."""
    return _window(window_length, lambda k, m, s: _cos(k * s(math.pi * 2.0 / (m - 1))) * s(-beta) + s(alpha),
                   periodic, dtype, device, requires_grad)


def _blackman(k, m, s):
    w = k * s(math.pi / (m - 1))
    return _cos(w * s(4)) * s(0.08) - _cos(w * s(2)) * s(0.5) + s(0.42)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window."""
    return _window(window_length, _blackman, periodic, dtype, device, requires_grad)


def _bartlett(k, m, s):
    w = k * s(2.0 / (m - 1))
    half = ((m - 1) >> 1) + 1
    w[half:] = w[half:] * s(-1) + s(2)
    return w


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window."""
    return _window(window_length, _bartlett, periodic, dtype, device, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """Kaiser window with shape parameter ``beta``."""
    def kaiser(k, m, s):   # torch's kernel in its opmath precision (float32 for half types); i0 rounded once
        ct = np.float64 if k.dtype == np.float64 else np.float32
        x = k.astype(ct)
        alpha = ct((m - 1) / 2.0)
        arg = ct(beta) * np.sqrt(np.abs(ct(1) - ((x - alpha) / alpha) ** ct(2)))
        return (np.i0(arg.astype(np.float64)) / np.i0(float(ct(beta)))).astype(ct).astype(k.dtype)
    return _window(window_length, kaiser, periodic, dtype, device, requires_grad)


for _f in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    register(method=False, differentiable=False)(_f)
