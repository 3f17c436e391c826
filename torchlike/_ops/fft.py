"""torchlike.fft: discrete Fourier transforms with torch's argument rules and dtypes.

Real and integer inputs promote to complex64 (float32/ints) or complex128 (float64); ``n``/``s``
pad or trim, ``norm`` is 'backward' (default), 'ortho' or 'forward'.

    >>> import torchlike as torch
    >>> torch.fft.fft(torch.ones(4)).tolist()
    [(4+0j), 0j, 0j, 0j]
"""
from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from ._util import Tensor, dispatch, register, wrap_dim
from .. import _autocast as _amp
from .._creation import tensor

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _fft_impl(x, kind, s, axes, norm, cdt):
    rdt = np.dtype(cdt).type(0).real.dtype
    if kind in ("fft", "ifft"):
        f = jnp.fft.fftn if kind == "fft" else jnp.fft.ifftn
        return f(x.astype(cdt), s=s, axes=axes, norm=norm).astype(cdt)
    if kind == "rfft":
        return jnp.fft.rfftn(x.astype(rdt), s=s, axes=axes, norm=norm).astype(cdt)
    if kind == "irfft":
        return jnp.fft.irfftn(x.astype(cdt), s=s, axes=axes, norm=norm).astype(rdt)
    if kind == "hfft":  # Hermitian-input transform: irfft of the conjugate, opposite normalisation
        return jnp.fft.irfftn(jnp.conj(x.astype(cdt)), s=s, axes=axes, norm=_SWAP[norm]).astype(rdt)
    # ihfft
    return jnp.conj(jnp.fft.rfftn(x.astype(rdt), s=s, axes=axes, norm=_SWAP[norm])).astype(cdt)


def _complex_dt(d):
    if d in (_dtype.float16, _dtype.bfloat16, _dtype.complex32):
        raise RuntimeError(f"Unsupported dtype {_dtype._CAP[d.name]}")
    if d.is_complex:
        return d
    if d.is_floating_point:
        return d.to_complex()
    return _dtype.get_default_dtype().to_complex()


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in ("backward", "ortho", "forward"):
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")
    return norm


def _check_real(x, name, nd=False):
    if x.dtype.is_complex:
        cap = _dtype._CAP[x.dtype.name]
        if nd and name == "ihfft":
            raise RuntimeError(f"Only supports floating-point dtypes, but found: {cap}")
        raise RuntimeError(f"{name}n expects a real-valued input tensor, but got {cap}" if nd else
                           f"{name} expects a real input tensor, but got {cap}")


def _run(x, kind, s, axes, norm):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{kind}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    cdt = _complex_dt(x.dtype)
    if s is not None:
        for n in s:
            if n < 1:
                raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dispatch(_fft_impl, (x,), (("kind", kind), ("s", s), ("axes", axes), ("norm", _norm(norm)),
                                      ("cdt", cdt.np)), name=_node_name(kind, x, axes))


def _node_name(kind, x, axes):
    """torch's backward node: ATen computes every transform as one of _fft_r2c / _fft_c2c / _fft_c2r
    (ifft and ihfft of a real 1-D signal as the conjugate of an r2c)."""
    if kind == "rfft":
        return "FftR2CBackward0"
    if kind in ("irfft", "hfft"):
        return "FftC2RBackward0"
    one = axes is not None and len(axes) == 1
    if kind == "ihfft":
        return "ConjBackward0" if one else "FftC2CBackward0"
    if x.dtype.is_complex or not one:
        return "FftC2CBackward0"
    return "FftR2CBackward0" if kind == "fft" else "ConjBackward0"


def _wrap(d, x):
    """torch wraps FFT dims without the scalar allowance: a 0-dim input has no dim to transform."""
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {int(d)} but tensor has no dimensions")
    return wrap_dim(d, x.ndim)


def _not_int(n):  # (torch's parser takes no bool, float or other for an int: the op table's wrapper words it)
    if n is True or n is False or not isinstance(n, (numbers.Integral, Tensor)):
        raise TypeError("n")


def _one(x, n, dim, norm, kind):
    if n is not None and type(n) is not int:
        _not_int(n)
    d = _wrap(dim, x)
    return _run(x, kind, None if n is None else (int(n),), (d,), norm)


def _many(x, s, dim, norm, kind):
    """Resolve torch's (s, dim) rules for the n-dimensional transforms."""
    if s is not None:
        s = tuple(int(v) for v in s)
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(_wrap(d, x) for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = tuple(range(x.ndim - len(s), x.ndim))
    else:
        dims = tuple(range(x.ndim))
    if s is not None:
        s = tuple(x.shape[d] if v == -1 else v for v, d in zip(s, dims))
    if not dims and kind != "fft" and kind != "ifft":  # a one-sided transform needs a last axis
        raise RuntimeError(f"{kind}n must transform at least one axis")
    return _run(x, kind, s, dims, norm)


def _decl(name, doc, one=True, default_dim=None, real_in=False):
    base = name.rstrip("n2") if not one else name  # fft2 / fftn -> the kind "fft", etc.

    if one:
        def fn(input, n=None, dim=-1, norm=None):
            if real_in:
                _check_real(input, name)
            return _one(input, n, dim, norm, base)
    else:
        def fn(input, s=None, dim=default_dim, norm=None):
            if real_in:
                _check_real(input, base, True)
            return _many(input, s, dim, norm, base)
    fn.__name__ = name
    fn.__doc__ = doc
    return register(name, namespaces=("fft",), method=False, out=True, promote="complex")(_amp.fp32(fn))


_EX1 = "\n\n    >>> import torchlike as torch\n    >>> torch.fft.{0}(torch.ones(4)).shape\n    torch.Size([{1}])\n    "
_EX2 = "\n\n    >>> import torchlike as torch\n    >>> torch.fft.{0}(torch.ones(4, 4)).shape\n    torch.Size([{1}])\n    "

fft = _decl("fft", "1-D discrete Fourier transform along ``dim``." + _EX1.format("fft", 4))
ifft = _decl("ifft", "1-D inverse DFT." + _EX1.format("ifft", 4))
rfft = _decl("rfft", "1-D DFT of a real signal (the n//2 + 1 non-negative frequencies)." + _EX1.format("rfft", 3),
             real_in=True)
irfft = _decl("irfft", "Inverse of rfft: a real signal of length ``n`` (default 2*(m-1))." + _EX1.format("irfft", 6))
hfft = _decl("hfft", "DFT of a Hermitian-symmetric signal given by its first half (real output)."
             + _EX1.format("hfft", 6))
ihfft = _decl("ihfft", "Inverse of hfft for a real signal." + _EX1.format("ihfft", 3), real_in=True)
fft2 = _decl("fft2", "2-D DFT over ``dim`` (default the last two)." + _EX2.format("fft2", "4, 4"), False, (-2, -1))
ifft2 = _decl("ifft2", "2-D inverse DFT." + _EX2.format("ifft2", "4, 4"), False, (-2, -1))
rfft2 = _decl("rfft2", "2-D DFT of a real signal." + _EX2.format("rfft2", "4, 3"), False, (-2, -1), True)
irfft2 = _decl("irfft2", "Inverse of rfft2." + _EX2.format("irfft2", "4, 6"), False, (-2, -1))
hfft2 = _decl("hfft2", "2-D hfft." + _EX2.format("hfft2", "4, 6"), False, (-2, -1))
ihfft2 = _decl("ihfft2", "2-D ihfft." + _EX2.format("ihfft2", "4, 3"), False, (-2, -1), True)
fftn = _decl("fftn", "N-D DFT over ``dim`` (default all dims, or the last len(s))." + _EX2.format("fftn", "4, 4"),
             False)
ifftn = _decl("ifftn", "N-D inverse DFT." + _EX2.format("ifftn", "4, 4"), False)
rfftn = _decl("rfftn", "N-D DFT of a real signal." + _EX2.format("rfftn", "4, 3"), False, None, True)
irfftn = _decl("irfftn", "Inverse of rfftn." + _EX2.format("irfftn", "4, 6"), False)
hfftn = _decl("hfftn", "N-D hfft." + _EX2.format("hfftn", "4, 6"), False)
ihfftn = _decl("ihfftn", "N-D ihfft." + _EX2.format("ihfftn", "4, 3"), False, None, True)


# --- frequencies and shifts --------------------------------------------------------------------
def _freq(n, d, dtype, device, requires_grad, rfreq):
    dt = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    half = -(-n // 2) if n < 0 else n // 2  # (C++'s n / 2, truncating)
    k = np.arange(half + 1) if rfreq else np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    # torch: arange in the result dtype, then multiply by the scalar 1 / (n * d) in that dtype
    with np.errstate(divide="ignore"):
        vals = (k.astype(dt.np) * dt.np.type(np.float64(1.0) / np.float64(n * d))).astype(dt.np)
    return tensor(vals, dtype=dt, device=device, requires_grad=requires_grad)


@register(namespaces=("fft",), method=False)
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of an n-point DFT with spacing ``d``.

    >>> import torchlike as torch
    >>> torch.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    if type(n) is not int:
        _not_int(n)
    if n < 0:  # (torch's empty(n) first; rfftfreq's arange(n // 2 + 1) takes some negative n)
        raise RuntimeError(f"Trying to create tensor with negative dimension {int(n)}: [{int(n)}]")
    r = _freq(int(n), d, dtype, device, requires_grad, False)
    return r if out is None else out.copy_(r)


@register(namespaces=("fft",), method=False)
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Non-negative sample frequencies of an n-point real DFT.

    >>> import torchlike as torch
    >>> torch.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    if type(n) is not int:
        _not_int(n)
    r = _freq(int(n), d, dtype, device, requires_grad, True)
    return r if out is None else out.copy_(r)


def _shift_impl(x, axes, inverse):
    return (jnp.fft.ifftshift if inverse else jnp.fft.fftshift)(x, axes=axes)


def _shift(input, dim, inverse):
    if dim is None:
        axes = tuple(range(input.ndim))
    else:
        axes = tuple(wrap_dim(d, input.ndim) for d in ((dim,) if isinstance(dim, int) else dim))
    return dispatch(_shift_impl, (input,), (("axes", axes), ("inverse", inverse)), name="RollBackward0",
                    saves=False)


@register(namespaces=("fft",), method=False)
def fftshift(input, dim=None):
    """Move the zero frequency to the centre (a roll by n//2 along ``dim``).

    >>> import torchlike as torch
    >>> torch.fft.fftshift(torch.arange(4)).tolist()
    [2, 3, 0, 1]
    """
    return _shift(input, dim, False)


@register(namespaces=("fft",), method=False)
def ifftshift(input, dim=None):
    """Inverse of fftshift.

    >>> import torchlike as torch
    >>> torch.fft.ifftshift(torch.arange(5)).tolist()
    [2, 3, 4, 0, 1]
    """
    return _shift(input, dim, True)
