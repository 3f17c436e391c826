"""Comparisons of whole tensors, complex construction, statistics helpers and window functions."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from ._util import Tensor, cast, dispatch, register, wrap_dim
from .. import _autocast as _amp
from .._creation import tensor

__all__ = []


def _need_tensors(op, **args):
    """torch's argument parser: these positional arguments must be Tensors (no Python scalars)."""
    for pos, (name, v) in enumerate(args.items()):
        if not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {pos + 1}) must be Tensor, not {type(v).__name__}")


def _isclose_impl(a, b, dt, rtol, atol, equal_nan):
    a, b = cast(a, dt), cast(b, dt)
    return jnp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register(differentiable=False)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (bool tensor)."""
    _need_tensors("isclose", input=input, other=other)
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not tol >= 0:  # NaN fails too, as in torch
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {float(tol):g}")
    if isinstance(other, Tensor) and input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype} did not match {other.dtype}")
    d = _dtype.result_type(input, other)
    return dispatch(_isclose_impl, (input, other), (("dt", d.np), ("rtol", float(rtol)), ("atol", float(atol)),
                                                    ("equal_nan", bool(equal_nan))), diff=False)


@register(differentiable=False)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element is close (see isclose).

    >>> import torchlike
    >>> torchlike.allclose(torchlike.tensor([1.0]), torchlike.tensor([1.0 + 1e-9]))
    True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


@register(differentiable=False)
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input == other).all().item())


def _isin_impl(elements, test, invert):
    r = jnp.isin(elements, test)
    return ~r if invert else r


@register(method=False, differentiable=False)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements``."""
    if not isinstance(elements, Tensor):
        elements = Tensor._wrap(jnp.asarray(elements)) if not isinstance(test_elements, Tensor) else \
            test_elements.new_tensor(elements)
    return dispatch(_isin_impl, (elements, test_elements), (("invert", bool(invert)),), diff=False)


def _complex_impl(re, im):
    return re + 1j * im.astype(re.dtype)


@register(method=False, out=True)
def complex(real, imag):
    """A complex tensor from real and imaginary parts (float32 -> complex64, float64 -> complex128)."""
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype._CAP[real.dtype.name]} but got scalar type "
                           f"{_dtype._CAP[imag.dtype.name]} for second argument")
    if real.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype._CAP[real.dtype.name]} and {_dtype._CAP[imag.dtype.name]}")
    return dispatch(_complex_impl, (real, imag), (), name="ComplexBackward0")


def _polar_impl(abs, angle):
    return abs * jnp.cos(angle) + 1j * (abs * jnp.sin(angle))


@register(method=False, out=True)
@_amp.fp32
def polar(abs, angle):
    """``abs * (cos(angle) + i sin(angle))``."""
    _need_tensors("polar", abs=abs, angle=angle)
    if abs.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16) or \
            angle.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype._CAP[abs.dtype.name]} and {_dtype._CAP[angle.dtype.name]}")
    if abs.dtype is not angle.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype._CAP[abs.dtype.name]} but got scalar type "
                           f"{_dtype._CAP[angle.dtype.name]} for second argument")
    return dispatch(_polar_impl, (abs, angle), (), name="PolarBackward0")


@register()
def ravel(input):
    """The flattened tensor (a view when possible)."""
    return input.reshape(-1)


def _cov_impl(x, fw, aw, correction, has_fw, has_aw):
    x = x if x.ndim == 2 else x[None, :]
    n = x.shape[1]
    w = jnp.ones((n,), x.dtype if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.float32)
    if has_fw:
        w = w * fw
    if has_aw:
        w = w * aw
    wsum = jnp.sum(w)
    avg = jnp.sum(x * w, axis=1) / wsum
    if has_aw:
        norm = wsum - correction * (jnp.sum(w * aw) / wsum if correction else 0)
    else:
        norm = wsum - correction
    xc = x - avg[:, None]
    c = (xc * w) @ jnp.conj(xc).T / jnp.maximum(norm, 0)
    return jnp.squeeze(c)


def _check_cov_weights(name, w, n_obs):
    """torch.cov's validation of ``fweights`` (integral counts) / ``aweights`` (float importances)."""
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w.ndim} dimensions")
    integral = not (w.dtype.is_floating_point or w.dtype.is_complex)
    if name == "fweights" and not integral:
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{_dtype._CAP[w.dtype.name]} dtype")
    if name == "aweights" and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{_dtype._CAP[w.dtype.name]} dtype")
    if w.numel() != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                           f"input but got {w.numel()} != {n_obs}")
    v = w._value
    if not isinstance(v, jax.core.Tracer) and w.numel() and bool(np.any(np.asarray(v) < 0)):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@register()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (torch.cov)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    n_obs = 1 if input.ndim == 0 else input.shape[-1]
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is not None:
            _check_cov_weights(name, w, n_obs)
    x = input if (input.dtype.is_floating_point or input.dtype.is_complex) else input.to(_dtype.get_default_dtype())
    args = (x, fweights if fweights is not None else 1.0, aweights if aweights is not None else 1.0)
    return dispatch(_cov_impl, args, (("correction", int(correction)), ("has_fw", fweights is not None),
                                      ("has_aw", aweights is not None)), name="CovBackward0")


@register()
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev[:, None] / stddev[None, :]
    return c.clip(-1, 1) if not c.dtype.is_complex else c


def _trapz_impl(y, x, dx, dim, has_x):
    if has_x:
        d = jnp.diff(x, axis=dim if x.ndim == y.ndim else -1)
        if x.ndim == 1 and y.ndim > 1:
            shape = [1] * y.ndim
            shape[dim] = d.shape[0]
            d = d.reshape(shape)
        return jnp.sum(d * (jnp.take(y, jnp.arange(1, y.shape[dim]), axis=dim) +
                            jnp.take(y, jnp.arange(0, y.shape[dim] - 1), axis=dim)) / 2, axis=dim)
    return dx * (jnp.sum(y, axis=dim) - (jnp.take(y, 0, axis=dim) + jnp.take(y, -1, axis=dim)) / 2)


@register(method=False, aliases=("trapz",))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim`` (spacing ``dx`` or sample points ``x``)."""
    d = wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return y.sum(d) * 0
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        dx, x = x, None
    y2 = y if (y.dtype.is_floating_point or y.dtype.is_complex) else y.to(_dtype.get_default_dtype())
    return dispatch(_trapz_impl, (y2, x if x is not None else 0.0),
                    (("dx", 1.0 if dx is None else float(dx)), ("dim", d), ("has_x", x is not None)),
                    name="TrapezoidBackward0")


def _window(n, fn, periodic, dtype, device, requires_grad):
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


def _fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal in place (torch.Tensor.fill_diagonal_)."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    idx = np.arange(n)
    if self.ndim == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        rows = np.arange(0, self.shape[0])
        keep = rows % (self.shape[1] + 1) != self.shape[1]
        rows = rows[keep]
        cols = np.arange(rows.size) % self.shape[1]
        index = (Tensor._wrap(jnp.asarray(rows)), Tensor._wrap(jnp.asarray(cols)))
    else:
        index = tuple(Tensor._wrap(jnp.asarray(idx)) for _ in range(self.ndim))
    self[index] = fill_value
    return self


Tensor.fill_diagonal_ = _fill_diagonal_
Tensor.H = property(lambda self: self.mT.conj() if self.ndim == 2 else _h_error(self))
Tensor.mH = property(lambda self: self.mT.conj())


def _h_error(t):
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {t.ndim}-D tensor.")
