"""Statistics of samples: cov, corrcoef, histogramdd.
"""
from __future__ import annotations

import numbers
import jax.numpy as jnp
import numpy as np
import jax

from .. import _autocast as _amp
from .. import _dtype
from .._dispatch import not_implemented_node
from .._errors import torch_warn
from ._util import Tensor, cast, dispatch, exact_div, register
from .. import return_types
from .sorting import _auto_edges_impl, _linspace_np, check_histogram_dtypes

__all__ = []


def _cov_impl(x, fw, aw, correction, has_fw, has_aw):
    """aten's cov step by step, each in torch's dtype: the weights, their sums and the normalization factor in
    the weights' dtype (float32 aweights of a float64 input: a float32 factor), a 0-dim sum or factor cast to
    the dtype of what it divides (it does not promote), and ``in @ (in * w).conj().T``."""
    x = x if x.ndim == 2 else x[None, :]
    n = x.shape[1]
    w = fw if has_fw else None
    if has_aw:
        w = aw if w is None else w * aw
    if w is None:
        avg = exact_div(jnp.sum(x, axis=1), n)
        norm = jnp.asarray(n - correction, jnp.int64)
    else:
        wsum = jnp.sum(w)
        s = jnp.sum(x * w, axis=1)
        avg = exact_div(s, wsum.astype(s.dtype))
        if has_aw and correction:
            norm = wsum - exact_div(correction * jnp.sum(w * aw), wsum)
        else:
            norm = wsum - correction
    xc = x - avg[:, None]
    c = xc @ jnp.conj(xc if w is None else xc * w).T
    norm = jnp.where(norm <= 0, jnp.zeros_like(norm), norm)  # torch warns and zeroes the factor
    return jnp.squeeze(exact_div(c, norm.astype(c.dtype)))


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


def _warn_cov_dof(n_obs, correction, fweights, aweights):
    """torch's warning when cov's normalization factor (its degrees of freedom) is <= 0 (it then zeroes it)."""
    ws = [w for w in (fweights, aweights) if w is not None]
    if any(isinstance(w._value, jax.core.Tracer) for w in ws):
        return
    norm = n_obs - correction
    if ws:
        w = np.ones(n_obs)
        for v in ws:
            w = w * np.asarray(v._value, np.float64).reshape(-1)
        wsum = w.sum()
        norm = wsum - (correction * (w * np.asarray(aweights._value, np.float64).reshape(-1)).sum() / wsum
                       if aweights is not None and correction else correction)
    if norm <= 0:
        torch_warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                   "observations.", "aten/src/ATen/native/Correlation.cpp:129")


@register()
@_amp.lower_result()  # torch's cov ends in an mm: its result is in the autocast dtype
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (torch.cov)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.ndim == 0:  # (one observation of one variable, as torch's view of it as a row)
        input = input.reshape(1)
    n_obs = input.shape[-1]
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is not None:
            _check_cov_weights(name, w, n_obs)
    _warn_cov_dof(n_obs, int(correction), fweights, aweights)
    # an integer input promotes with float aweights (int * half weights: a half result), else true division by
    # the count makes it the default dtype
    x = input if (input.dtype.is_floating_point or input.dtype.is_complex) else \
        input.to(aweights.dtype if aweights is not None else _dtype.get_default_dtype())
    args = (x, fweights if fweights is not None else 1.0, aweights if aweights is not None else 1.0)
    return dispatch(_cov_impl, args, (("correction", int(correction)), ("has_fw", fweights is not None),
                                      ("has_aw", aweights is not None)), name="CovBackward0")


@register()
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``."""
    if isinstance(input, Tensor) and input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev[:, None] / stddev[None, :]
    return c.clip(-1, 1) if not c.dtype.is_complex else c


# --- histogramdd --------------------------------------------------------------------------------------
def _hdd_impl(x, w, *edges, density, has_w):
    dt = x.dtype
    n, D = x.shape
    flat = jnp.zeros((n,), jnp.int64)
    inside = jnp.ones((n,), bool)
    nbs = []
    for d, e in enumerate(edges):
        nb = e.shape[0] - 1
        col = x[:, d]
        inside = inside & (col >= e[0]) & (col <= e[-1])
        pos = jnp.clip(jnp.searchsorted(e, col, side="right") - 1, 0, nb - 1)  # the last edge is inclusive
        flat = flat * nb + pos
        nbs.append(nb)
    wt = jnp.where(inside, cast(w, dt) if has_w else jnp.ones((n,), dt), 0)
    hist = jnp.zeros((int(np.prod(nbs)),), dt).at[flat].add(wt).reshape(tuple(nbs))
    if density:
        vol = jnp.ones((), dt)
        for d, e in enumerate(edges):
            shp = [1] * D
            shp[d] = -1
            vol = vol * jnp.diff(e).reshape(shp)
        hist = hist / (jnp.sum(hist) * vol)
    return hist


@register(method=False, differentiable="_histogramdd_from_bin_cts", promote="none")
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Multi-dimensional histogram of the rows of ``input`` (shape ``(..., D)``): (hist, bin_edges).

    ``bins`` is an int, one int per dim, or one edge tensor per dim; ``range`` is
    ``[lo0, hi0, lo1, hi1, ...]`` (default: each column's min and max).

    >>> import torchlike
    >>> torchlike.histogramdd(torchlike.tensor([[0., 1.], [1., 2.]]), bins=2).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    D = input.shape[-1]
    x = input.reshape(-1, D)
    w = None if weight is None else weight.reshape(-1)
    if isinstance(bins, numbers.Integral):
        bins = [int(bins)] * D
    bins = list(bins)
    if len(bins) != D:
        if any(isinstance(b, Tensor) for b in bins):
            raise RuntimeError(f"torch.histogramdd: expected {D} sequences of bin edges for a {D}-dimensional "
                               f"histogram but got {len(bins)}")
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    check_histogram_dtypes(input, bins, range is None and any(not isinstance(b, Tensor) for b in bins),
                           weight=weight)
    edges = []
    auto = range is None and any(not isinstance(b, Tensor) for b in bins)  # edges from the data's range
    traced = auto and isinstance(x._value, jax.core.Tracer)  # under compile: computed in the same program
    data = np.asarray(x.detach()._value) if auto and not traced else None
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b)
            continue
        if int(b) < 0:  # (torch makes the edges first: linspace of b + 1 < 1 points)
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements "
                               f"in the bins tensor for dimension {d}")
        if int(b) == 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}")
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: expected leftmost_edge to be less than or equal to "
                                   f"rightmost_edge, but got leftmost_edge {lo} > rightmost_edge {hi}")
        elif traced:
            edges.append(dispatch(_auto_edges_impl, (x[:, d], int(b)), (("n", int(b) + 1),), diff=False))
            continue
        elif data.shape[0]:
            lo, hi = float(data[:, d].min()), float(data[:, d].max())
        else:
            lo, hi = 0.0, 1.0  # (torch's edges of an empty input)
        if lo == hi:  # torch widens a degenerate range by 1/2 on each side
            lo, hi = lo - 0.5, hi + 0.5
        e = _linspace_np(lo, hi, int(b) + 1, input.dtype.np)
        edges.append(Tensor._wrap(jnp.asarray(e), input._dev))
    hist = dispatch(_hdd_impl, (x, w if w is not None else 0.0, *edges),
                    (("density", bool(density)), ("has_w", w is not None)), diff=False)
    op = "_histogramdd_from_bin_tensors" if all(isinstance(b, Tensor) for b in bins) else "_histogramdd_from_bin_cts"
    hist, *edges = not_implemented_node(op, (input, weight, *bins), (hist, *edges))
    return return_types.make("histogramdd", ("hist", "bin_edges"))(hist, tuple(edges))
