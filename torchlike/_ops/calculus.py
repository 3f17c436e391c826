"""Numerical calculus on sampled values: gradient, trapezoid, cumulative_trapezoid.
"""
from __future__ import annotations

import numbers
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype
from ._util import Tensor, cast, dispatch, exact_div, float_dtype_for, register, round_to, wrap_dim

__all__ = ["gradient", "cumulative_trapezoid"]


# --- gradient / cumulative_trapezoid ------------------------------------------------------------------
def _rounder(dt):
    # torch's gradient is a composite: in float16/bfloat16 each tensor op's result is stored in the type
    # (computed in float32, a Python scalar taken as float32), so every intermediate here is rounded
    # (``mul``: a product that feeds a sum; rounded in the half types, which also keeps it out of XLA's fused
    # multiply-adds there; float32/float64 sums of products may still fuse: last-ulp differences)
    if np.dtype(dt) in (np.dtype(np.float16), np.dtype(jnp.bfloat16)):
        return jnp.float32, lambda v: round_to(v, dt), lambda a, b: round_to(a * b, dt)
    return dt, lambda v: v, lambda a, b: a * b


def _grad_uniform(y, h, dim, edge_order, dt):
    # torch's order: (y[2:] - y[:-2]) / h, then / 2 (not / (2 h): a float32 h that is not a power of two
    # rounds otherwise); edges -1.5 * y0 + 2 * y1 - 0.5 * y2 (each product and sum an op) / h
    ct, r, m = _rounder(dt)
    y, h = cast(y, ct), cast(h, ct)
    n = y.shape[dim]
    take = lambda a, b: lax.slice_in_dim(y, a, b, axis=dim)  # noqa: E731
    mid = r(r(exact_div(r(take(2, n) - take(0, n - 2)), h)) / 2)
    if edge_order == 1:
        first = r(exact_div(r(take(1, 2) - take(0, 1)), h))
        last = r(exact_div(r(take(n - 1, n) - take(n - 2, n - 1)), h))
    else:
        first = r(exact_div(r(r(m(-1.5, take(0, 1)) + m(2, take(1, 2))) - m(0.5, take(2, 3))), h))
        last = r(exact_div(r(r(m(0.5, take(n - 3, n - 2)) - m(2, take(n - 2, n - 1))) + m(1.5, take(n - 1, n))), h))
    return jnp.concatenate([first, mid, last], axis=dim).astype(dt)


def _grad_coords(y, x, dim, edge_order, dt):
    ct, r, m = _rounder(dt)
    y, x = cast(y, ct), cast(x, ct)
    n = y.shape[dim]
    ax = r(jnp.diff(x))
    dx = ax.reshape([1] * dim + [n - 1] + [1] * (y.ndim - dim - 1)) if y.ndim else ax
    take = lambda a, b: lax.slice_in_dim(y, a, b, axis=dim)  # noqa: E731
    tdx = lambda a, b: lax.slice_in_dim(dx, a, b, axis=dim)  # noqa: E731
    h1, h2 = tdx(0, n - 2), tdx(1, n - 1)
    a = r(exact_div(-h2, r(h1 * r(h1 + h2))))
    b = r(exact_div(r(h2 - h1), r(h1 * h2)))
    c = r(exact_div(h1, r(h2 * r(h1 + h2))))
    mid = r(r(m(a, take(0, n - 2)) + m(b, take(1, n - 1))) + m(c, take(2, n)))
    if edge_order == 1:
        first = r(exact_div(r(take(1, 2) - take(0, 1)), tdx(0, 1)))
        last = r(exact_div(r(take(n - 1, n) - take(n - 2, n - 1)), tdx(n - 2, n - 1)))
    else:
        d1, d2 = tdx(0, 1), tdx(1, 2)
        a = r(exact_div(-r(r(2 * d1) + d2), r(d1 * r(d1 + d2))))
        b = r(exact_div(r(d1 + d2), r(d1 * d2)))
        c = r(exact_div(-d1, r(d2 * r(d1 + d2))))
        first = r(r(m(a, take(0, 1)) + m(b, take(1, 2))) + m(c, take(2, 3)))
        d1, d2 = tdx(n - 3, n - 2), tdx(n - 2, n - 1)  # (torch's ax_dx[-2], ax_dx[-1])
        a = r(exact_div(d2, r(d1 * r(d2 + d1))))
        b = r(exact_div(-r(d2 + d1), r(d2 * d1)))
        c = r(exact_div(r(r(2 * d2) + d1), r(d2 * r(d2 + d1))))
        last = r(r(m(a, take(n - 3, n - 2)) + m(b, take(n - 2, n - 1))) + m(c, take(n - 1, n)))
    return jnp.concatenate([first, mid, last], axis=dim).astype(dt)


def _gradient_impl(y, *spacings, dims, kinds, edge_order, dt):
    y = cast(y, dt)
    out = []
    for d, kind, s in zip(dims, kinds, spacings):
        if kind == "coords":
            out.append(_grad_coords(y, cast(s, dt), d, edge_order, dt))
        else:
            out.append(_grad_uniform(y, s, d, edge_order, dt))
    return tuple(out)


@register(method=False, promote="float")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central-difference estimate of the gradient along each of ``dim`` (torch.gradient).

    ``spacing`` is a scalar, one scalar per dim, or one coordinate tensor per dim.

    >>> import torchlike
    >>> torchlike.gradient(torchlike.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
    """
    nd = input.ndim
    if dim is None:
        dims = tuple(range(nd))
    elif isinstance(dim, numbers.Integral):
        dims = (wrap_dim(dim, nd),)
    else:
        dims = tuple(wrap_dim(d, nd) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    if spacing is None:
        spacing = 1
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(dims) and dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {nd}', since dim argument was not given, but got a list "
                               f"of length {len(sp)}")
        if len(sp) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(sp)} and a dim argument of length {len(dims)}.")
    else:
        sp = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    kinds, args = [], []
    dt = float_dtype_for(input.dtype)
    for d, s in zip(dims, sp):
        if isinstance(s, Tensor) and s.ndim == 1:
            if s.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and to have "
                                   f"the same size as the corresponding dimension of input, got {s.shape[0]} "
                                   f"and {input.shape[d]}")
            kinds.append("coords")
            dt = _dtype.promote_types(dt, float_dtype_for(s.dtype)) if not s.dtype.is_complex else dt
        else:
            kinds.append("scalar")
            if isinstance(s, Tensor):
                s = s.item()
        args.append(s)
    return dispatch(_gradient_impl, (input, *args), (("dims", dims), ("kinds", tuple(kinds)),
                                                     ("edge_order", int(edge_order)), ("dt", dt.np)),
                    name="GradientBackward0")


def _x_steps(x, y, dim):
    d = jnp.diff(x, axis=dim if x.ndim == y.ndim else -1)
    if x.ndim == 1 and y.ndim > 1:
        shape = [1] * y.ndim
        shape[dim] = d.shape[0]
        d = d.reshape(shape)
    return d


def _int_trapz(y, x, dx, dim, has_x, din, dt, cumulative):
    # torch's formulas on integer samples: sums of neighbours (and x steps) in the integer dtype, so they
    # wrap; sum/cumsum into int64; the float constants (0.5, dx, / 2.) give the default float dtype
    n = y.shape[dim]
    lo, hi = lax.slice_in_dim(y, 0, n - 1, axis=dim), lax.slice_in_dim(y, 1, n, axis=dim)
    pair = lo + hi
    acc = jnp.cumsum if cumulative else jnp.sum
    if has_x:
        p = pair.astype(din) * _x_steps(x, y, dim).astype(din)
        wide = None if jnp.issubdtype(din, jnp.inexact) else jnp.int64
        return acc(p, axis=dim, dtype=wide).astype(dt) / 2
    if cumulative:
        return jnp.cumsum((dx / 2) * pair.astype(dt), axis=dim)
    ends = lax.index_in_dim(y, 0, dim, keepdims=False) + lax.index_in_dim(y, n - 1, dim, keepdims=False)
    return (jnp.sum(y, axis=dim, dtype=jnp.int64).astype(dt) - ends.astype(dt) * 0.5) * dx


def _cumtrapz_impl(y, x, dx, dim, has_x, din, dt):
    if not jnp.issubdtype(y.dtype, jnp.inexact):
        return _int_trapz(y, x, dx, dim, has_x, din, dt, True)
    n = y.shape[dim]
    lo, hi = lax.slice_in_dim(y, 0, n - 1, axis=dim), lax.slice_in_dim(y, 1, n, axis=dim)
    if has_x:
        return jnp.cumsum(_x_steps(x, y, dim) * (lo + hi) / 2, axis=dim)
    return jnp.cumsum(dx * (lo + hi) / 2, axis=dim)


def _check_not_bool(name, y, x):
    if y.dtype is _dtype.bool or (isinstance(x, Tensor) and x.dtype is _dtype.bool):
        which = "`x` or `y`" if isinstance(x, Tensor) else "`y`"
        raise RuntimeError(f"{name}: received a bool input for {which}, but bool is not supported")


def _trapz_dtypes(y, x):
    din = _dtype.result_type(y, x) if isinstance(x, Tensor) else y.dtype
    dt = din if (din.is_floating_point or din.is_complex) else _dtype.get_default_dtype()
    return (("din", din.np), ("dt", dt.np))


@register(method=False, promote="float")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Cumulative trapezoid rule along ``dim`` (one element shorter than ``y`` there).

    >>> import torchlike
    >>> torchlike.cumulative_trapezoid(torchlike.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
    """
    d = wrap_dim(dim, y.ndim)
    if x is not None and not isinstance(x, Tensor):  # (a number is ``dx=``: see trapezoid)
        raise TypeError(f"cumulative_trapezoid(): x must be a Tensor, not {type(x).__name__}")
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments")
    _check_not_bool("cumulative_trapezoid", y, x)
    if x is not None and x.ndim == 1 and x.shape[0] != y.shape[d]:
        raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
    if y.shape[d] == 0:
        y2 = y if (y.dtype.is_floating_point or y.dtype.is_complex) else y.to(_dtype.get_default_dtype())
        return y2.narrow(d, 0, 0) * 1
    return dispatch(_cumtrapz_impl, (y, x if x is not None else 0.0),
                    (("dx", 1.0 if dx is None else float(dx)), ("dim", d), ("has_x", x is not None))
                    + _trapz_dtypes(y, x), name="CumulativeTrapezoidBackward0")


def _trapz_impl(y, x, dx, dim, has_x, din, dt):
    if not jnp.issubdtype(y.dtype, jnp.inexact):
        return _int_trapz(y, x, dx, dim, has_x, din, dt, False)
    if has_x:
        return jnp.sum(_x_steps(x, y, dim) * (jnp.take(y, jnp.arange(1, y.shape[dim]), axis=dim) +
                                              jnp.take(y, jnp.arange(0, y.shape[dim] - 1), axis=dim)) / 2, axis=dim)
    return dx * (jnp.sum(y, axis=dim) - (jnp.take(y, 0, axis=dim) + jnp.take(y, -1, axis=dim)) / 2)


@register(method=False, aliases=("trapz",))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim`` (spacing ``dx`` or sample points ``x``)."""
    d = wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return y.sum(d) * 0
    if x is not None and not isinstance(x, Tensor):  # a number is ``dx=``, keyword-only in torch's signatures (the
        raise TypeError(f"trapezoid(): x must be a Tensor, not {type(x).__name__}")  # wrapper: torch's parser error)
    _check_not_bool("trapezoid", y, x)
    if x is not None and x.ndim == 1 and x.shape[0] != y.shape[d]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    return dispatch(_trapz_impl, (y, x if x is not None else 0.0),
                    (("dx", 1.0 if dx is None else float(dx)), ("dim", d), ("has_x", x is not None))
                    + _trapz_dtypes(y, x), name="TrapezoidBackward0")
