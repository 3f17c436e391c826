"""Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window).
"""
from __future__ import annotations

import numpy as np
import math

from .. import _dtype
from .._errors import int_arg
from ._util import register
from .._creation import tensor

__all__ = []


def _window(n, fn, periodic, dtype, device, requires_grad):
    n = int_arg(n, "window_length", 1)
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if n == 0:
        vals = np.zeros(0)
    elif n == 1:
        vals = np.ones(1)
    else:
        m = n + 1 if periodic else n
        vals = fn(np.arange(m, dtype=np.float64), m)[:n]
    return tensor(vals, dtype=d, device=device, requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window: ``0.5 - 0.5 cos(2 pi k / (N - 1))``."""
    return _window(window_length, lambda k, m: 0.5 - 0.5 * np.cos(2 * math.pi * k / (m - 1)), periodic, dtype,
                   device, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Hamming window: ``alpha - beta cos(2 pi k / (N - 1))``."""
    return _window(window_length, lambda k, m: alpha - beta * np.cos(2 * math.pi * k / (m - 1)), periodic, dtype,
                   device, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window."""
    return _window(window_length, lambda k, m: 0.42 - 0.5 * np.cos(2 * math.pi * k / (m - 1)) +
                   0.08 * np.cos(4 * math.pi * k / (m - 1)), periodic, dtype, device, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window."""
    return _window(window_length, lambda k, m: 1 - np.abs(2 * k / (m - 1) - 1), periodic, dtype, device,
                   requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """Kaiser window with shape parameter ``beta``."""
    return _window(window_length, lambda k, m: np.i0(beta * np.sqrt(np.clip(1 - (2 * k / (m - 1) - 1) ** 2, 0, None)))
                   / np.i0(beta), periodic, dtype, device, requires_grad)


for _f in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    register(method=False, differentiable=False)(_f)
