"""torchlike.signal.windows: window functions with scipy/torch.signal.windows conventions.

Every window takes the length ``M`` and keyword-only ``sym`` (True: symmetric, for filter design;
False: periodic, for spectral analysis), ``dtype`` (float32/float64), ``layout``, ``device`` and
``requires_grad``, plus its own shape parameters.  Values are computed in float64 with numpy (window
creation is not differentiable) and then cast, like a factory function.

    >>> import torchlike
    >>> torchlike.signal.windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import ml_dtypes

from .. import _dtype
from .._creation import tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _make(name, M, sym, dtype, layout, device, requires_grad, body):
    """Shared frame: checks, the M == 0 / M == 1 cases, then ``body(M, sym)`` (a float64 array)."""
    dt = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    _checks(name, M, dt, layout)
    if M == 0:
        vals = np.zeros(0)
    elif M == 1:
        vals = np.ones(1)
    else:
        vals = body(M, sym)
    return tensor(np.asarray(vals, dtype=np.float64), dtype=dt, device=device, requires_grad=requires_grad)


def _steps(start, constant, M):
    """``start, start + constant, ...`` (M values), as torch.linspace(start, start + (M-1) c, M)."""
    return np.linspace(start, start + (M - 1) * constant, M)


def _denom(M, sym):
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """Exponential (Poisson) window ``exp(-|k - center| / tau)``.

    >>> import torchlike
    >>> torchlike.signal.windows.exponential(3, tau=1.0)
    tensor([0.3679, 1.0000, 0.3679])
    """
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def body(M, sym):
        c = (M if not sym and M > 1 else M - 1) / 2.0 if center is None else center
        return np.exp(-np.abs(_steps(-c / tau, 1.0 / tau, M)))
    return _make("exponential", M, sym, dtype, layout, device, requires_grad, body)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Cosine (sine) window ``sin(pi (k + 1/2) / M)``.

    >>> import torchlike
    >>> torchlike.signal.windows.cosine(2)
    tensor([0.7071, 0.7071])
    """
    def body(M, sym):
        c = math.pi / (M + 1 if not sym and M > 1 else M)
        return np.sin(_steps(0.5 * c, c, M))
    return _make("cosine", M, sym, dtype, layout, device, requires_grad, body)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Gaussian window ``exp(-(k - center)^2 / (2 std^2))``.

    >>> import torchlike
    >>> torchlike.signal.windows.gaussian(3)
    tensor([0.6065, 1.0000, 0.6065])
    """
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def body(M, sym):
        start = -(M if not sym and M > 1 else M - 1) / 2.0
        c = 1 / (std * math.sqrt(2))
        return np.exp(-_steps(start * c, c, M) ** 2)
    return _make("gaussian", M, sym, dtype, layout, device, requires_grad, body)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Kaiser window ``I0(beta sqrt(1 - (2k/(M-1) - 1)^2)) / I0(beta)``.

    >>> import torchlike
    >>> torchlike.signal.windows.kaiser(3, beta=0.0)
    tensor([1., 1., 1.])
    """
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    dt = (_dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)).np

    def body(M, sym):
        c = 2.0 * beta / _denom(M, sym)
        end = min(beta, -beta + (M - 1) * c)
        k = np.linspace(-beta, end, M)
        # torch computes both Bessel values in the window's dtype (Cephes: exp(x) * ...), inf once exp(x)
        # overflows (x > ~88.7 in float32), so the window is 0 or NaN there
        big = np.log(ml_dtypes.finfo(dt).max)

        def i0(x):
            return np.where(x > big, np.inf, np.i0(np.minimum(x, big))).astype(dt)
        with np.errstate(over="ignore", invalid="ignore"):
            num = i0(np.sqrt(np.maximum(beta * beta - k ** 2, 0.0)))
            return (num / i0(np.asarray(beta))).astype(np.float64)
    return _make("kaiser", M, sym, dtype, layout, device, requires_grad, body)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Sum of cosines ``sum_i (-1)^i a_i cos(2 pi i k / (M-1))``.

    >>> import torchlike
    >>> torchlike.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    if a is None:
        raise TypeError("Coefficients `a` cannot be None")
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients `a` must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")

    def body(M, sym):
        k = _steps(0.0, 2 * math.pi / _denom(M, sym), M)
        return _builtin_sum((-1) ** i * float(w) * np.cos(i * k) for i, w in enumerate(a))
    return _make("general_cosine", M, sym, dtype, layout, device, requires_grad, body)


_builtin_sum = sum


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Generalized Hamming window ``alpha - (1 - alpha) cos(2 pi k / (M-1))``.

    >>> import torchlike
    >>> torchlike.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hamming window (general_hamming with alpha=0.54).

    >>> import torchlike
    >>> torchlike.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window (general_hamming with alpha=0.5).

    >>> import torchlike
    >>> torchlike.signal.windows.hann(3)
    tensor([0., 1., 0.])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window (general_cosine with a = [0.42, 0.5, 0.08]).

    >>> import torchlike
    >>> torchlike.signal.windows.blackman(3)[1]
    tensor(1.)
    """
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Minimum 4-term Blackman-Harris window (Nuttall).

    >>> import torchlike
    >>> torchlike.signal.windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window ``1 - |2k/(M-1) - 1|``.

    >>> import torchlike
    >>> torchlike.signal.windows.bartlett(3)
    tensor([0., 1., 0.])
    """
    def body(M, sym):
        return 1 - np.abs(_steps(-1.0, 2.0 / _denom(M, sym), M))
    return _make("bartlett", M, sym, dtype, layout, device, requires_grad, body)
