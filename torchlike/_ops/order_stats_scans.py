"""Order statistics (median, nanmedian, mode, quantile, nanquantile), scans (cumsum, cumprod, cummax,
cummin, logcumsumexp), diff, trace, renorm.

    >>> import torchlike
    >>> torchlike.tensor([1, 5, 2]).cumsum(0)
    tensor([1, 6, 8])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype
from .. import _memory_format as _mfmt
from .._stl_order import REPLAY_LIMIT, mode_index
from .._errors import int_arg
from .._shape_churn import as_exact, host_impl, quiet
from ..return_types import make
from ._util import Tensor, as_tensor_arg, cast, dispatch, register, wrap_dim
from .sorting import host_rows, select_at_impl
from .reduction import acc_np, _evenly, _int_acc, check_nonempty, norm_kind, vnorm
from .. import _autocast as _amp

__all__ = ["median", "nanmedian", "mode", "quantile", "nanquantile", "cumsum", "cumprod", "cummax", "cummin",
           "logcumsumexp", "diff", "trace", "renorm"]

_sg = lax.stop_gradient


def _stable_argsort(x, axis):
    # Float keys + 0.0 turn -0.0 into 0.0 so they tie (torch compares, lax.sort orders the bits);
    # lax.sort puts NaN last, like torch.
    k = x + jnp.zeros((), x.dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x
    return jnp.argsort(k, axis=axis, stable=True)


def _kth_index(x, axis, nan_mode):
    """Index (keepdims) along ``axis`` of the lower median: 'propagate' picks the first NaN when any,
    'ignore' the lower median of the non-NaN values."""
    order = _stable_argsort(x, axis)
    n = x.shape[axis]
    if jnp.issubdtype(x.dtype, jnp.inexact):
        nn = jnp.sum(jnp.isnan(x), axis=axis, keepdims=True)
        if nan_mode == "propagate":
            k = jnp.where(nn > 0, n - nn, (n - 1) // 2)
        else:
            k = jnp.maximum((n - nn - 1) // 2, 0)
    else:
        k = jnp.full([1 if i == axis else s for i, s in enumerate(x.shape)], (n - 1) // 2)
    return jnp.take_along_axis(order, k, axis=axis)


def _median_all_impl(x, nan_mode):
    x = x.reshape(-1)
    if x.size == 0:
        return jnp.full((), jnp.nan, x.dtype)
    val = x[_kth_index(x, 0, nan_mode)[0]]
    return _evenly(x, val)


def _median_dim_impl(x, dim, keepdim, nan_mode):
    # Values are gathered at the chosen index so jax.vjp routes the gradient to that index only, as
    # torch's value_selecting_reduction_backward does.
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = _kth_index(x, dim, nan_mode)
    vals = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx.astype(jnp.int64)


def _median(name, nan_mode):
    def fn(input, dim=None, keepdim=False):
        d = None if dim is None else wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
        if input.dtype is _dtype.bool or input.dtype.is_complex:
            raise NotImplementedError(f'"median_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
        if dim is None:
            return dispatch(_median_all_impl, (input,), (("nan_mode", nan_mode),),
                            name=f"{name.capitalize()}Backward0")
        check_nonempty(input, (d,), name)
        v, i = dispatch(_median_dim_impl, (input,), (("dim", d), ("keepdim", bool(keepdim)),
                                                     ("nan_mode", nan_mode)), name=f"{name.capitalize()}Backward1")
        return make(name)(v, i)
    fn.__name__ = name
    fn.__doc__ = (f"The lower median{' ignoring NaNs' if nan_mode == 'ignore' else ' (NaN if any NaN)'}; with "
                  f"``dim`` returns (values, indices).\n\n    >>> import torchlike\n    >>> torchlike.{name}("
                  f"torchlike.tensor([4., 1., 3., 2.]))\n    tensor(2.)\n    ")
    return fn


median = register("median", out=True)(_median("median", "propagate"))
nanmedian = register("nanmedian", out=True)(_median("nanmedian", "ignore"))


# --- mode --------------------------------------------------------------------------------------
def _mode_impl(x, dim, keepdim):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    x = jnp.moveaxis(x, dim, -1)
    order = _stable_argsort(x, -1)
    s = jnp.take_along_axis(x, order, axis=-1)
    n = s.shape[-1]
    pos = jnp.arange(n)
    start = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], axis=-1)
    run_start = lax.cummax(jnp.where(start, pos, 0), axis=s.ndim - 1)
    count = pos - run_start + 1
    # The first position reaching the top count ends the run of the smallest most-frequent value; with a
    # stable sort that position holds its last occurrence, which is the index torch returns.
    best = jnp.argmax(count, axis=-1, keepdims=True)
    idx = jnp.take_along_axis(order, best, axis=-1)
    vals = jnp.take_along_axis(x, idx, axis=-1)
    vals, idx = jnp.moveaxis(vals, -1, dim), jnp.moveaxis(idx, -1, dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx.astype(jnp.int64)


@register(out=True)
def mode(input, dim=-1, keepdim=False):
    """(values, indices) of the most frequent value along ``dim`` (smallest on ties, last index).

    >>> import torchlike
    >>> torchlike.mode(torchlike.tensor([1, 2, 2, 1, 3])).values
    tensor(1)
    """
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
    if input.dtype.is_complex:
        raise NotImplementedError(f'"mode_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    check_nonempty(input, (d,), "mode")
    idx = _cpu_mode_indices(input, d)
    if idx is not None:
        v, i = dispatch(select_at_impl, (input, idx), (("dim", d), ("keepdim", bool(keepdim))), name="ModeBackward0")
    else:
        v, i = dispatch(_mode_impl, (input,), (("dim", d), ("keepdim", bool(keepdim))), name="ModeBackward0")
    return make("mode")(v, i)


def _cpu_mode_indices(input, d):
    """The indices torch's CPU mode picks where its std::sort leaves equal values out of input order (a
    dim longer than 16 with repeats, see _stl_order), with the reduced dim kept; else None."""
    if input.ndim == 0 or input.shape[d] <= 16 or input.numel() > REPLAY_LIMIT:
        return None
    flat = host_rows(input, d)
    if flat is None or (flat.dtype.kind == "f" and np.isnan(flat).any()):
        return None
    rest = tuple(input.shape[:d]) + tuple(input.shape[d + 1:])
    idx = np.array([mode_index(r) for r in flat], np.int64).reshape(rest + (1,))
    return Tensor._wrap(jnp.asarray(np.moveaxis(idx, -1, d)), input._dev)


# --- quantile ----------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(a, b, w):
    # torch's lerp formula, for bit-identical results.
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile_impl(x, q, dim, keepdim, interp, ignore_nan, q_scalar):
    dt = x.dtype
    nd = x.ndim
    if dim is None:
        x = x.reshape(-1)
        ax = 0
    else:
        ax = dim
        x = jnp.moveaxis(x, dim, -1) if nd else x.reshape(1)
    q = jnp.reshape(cast(q, dt), (-1,))
    order = _stable_argsort(x, -1)
    s = jnp.take_along_axis(x, order, axis=-1)
    n = s.shape[-1]
    nan_cnt = jnp.sum(jnp.isnan(s), axis=-1, keepdims=True)
    last = jnp.asarray(n - 1, dt)
    if ignore_nan:
        cnt = (n - nan_cnt).astype(dt)
        ranks = q * (cnt - 1)
        ranks = jnp.where(ranks < 0, jnp.zeros((), dt), ranks)  # all-NaN rows read element 0 (NaN), as torch
    else:
        ranks = q * last
        ranks = jnp.where(nan_cnt > 0, last, ranks)  # any NaN: the result is NaN (the last element)
    ranks = jnp.broadcast_to(ranks, s.shape[:-1] + (q.shape[0],))
    if interp == "lower":
        ranks = jnp.floor(ranks)
    elif interp == "higher":
        ranks = jnp.ceil(ranks)
    elif interp == "nearest":
        ranks = jnp.round(ranks)
    below = jnp.clip(_sg(ranks).astype(jnp.int64), 0, n - 1)
    lo = jnp.take_along_axis(s, below, axis=-1)
    if interp in ("linear", "midpoint"):
        above = jnp.clip(jnp.ceil(_sg(ranks)).astype(jnp.int64), 0, n - 1)
        hi = jnp.take_along_axis(s, above, axis=-1)
        w = jnp.full_like(ranks, 0.5) if interp == "midpoint" else ranks - below.astype(dt)
        r = _lerp(lo, hi, w)
    else:
        r = lo
    r = jnp.moveaxis(r, -1, 0)  # (Q, *reduced)
    if keepdim:
        if dim is None:
            r = r.reshape((r.shape[0],) + (1,) * nd)
        elif nd:
            r = jnp.expand_dims(r, ax + 1)
    if q_scalar:
        r = r[0]
    return r


def _quantile(name, ignore_nan):
    def fn(input, q, dim=None, keepdim=False, *, interpolation="linear"):
        d = input.dtype
        if d not in (_dtype.float32, _dtype.float64):
            raise RuntimeError("quantile() input tensor must be either float or double dtype")
        if input.numel() == 0:
            raise RuntimeError("quantile() input tensor must be non-empty")
        if isinstance(q, Tensor):
            if q.ndim > 1:
                raise RuntimeError("quantile() q must be a scalar or 1D tensor")
            if q.dtype is not d:
                raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
            qa = q._value
            if not isinstance(qa, jax.core.Tracer) and not np.all((np.asarray(qa) >= 0) & (np.asarray(qa) <= 1)):
                raise RuntimeError("quantile() q values must be in the range [0, 1]")
            q_scalar = q.ndim == 0
        else:
            if not 0 <= q <= 1:
                raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
            q, q_scalar = float(q), True
        if interpolation not in _INTERP:
            raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or "
                               f"nearest, but got {interpolation}")
        dim = None if dim is None else wrap_dim(dim, input.ndim)
        return dispatch(_quantile_impl, (input, q), (("dim", dim), ("keepdim", bool(keepdim)),
                                                     ("interp", interpolation), ("ignore_nan", ignore_nan),
                                                     ("q_scalar", q_scalar)), name="QuantileBackward0")
    fn.__name__ = name
    fn.__doc__ = (f"The ``q``-quantile(s) over ``dim`` (flattened when None){', ignoring NaNs' if ignore_nan else ''}"
                  f"; a 1-D ``q`` adds a leading dim.\n\n    >>> import torchlike\n    >>> torchlike.{name}("
                  f"torchlike.tensor([1., 2., 3., 4.]), 0.5)\n    tensor(2.5000)\n    ")
    return fn


quantile = register("quantile", out=True)(_quantile("quantile", False))
nanquantile = register("nanquantile", out=True)(_quantile("nanquantile", True))


# --- scans -------------------------------------------------------------------------------------
def _cumsum_impl(x, dim, dt, kind):
    x = cast(x, dt)
    if x.ndim == 0:
        return x
    # torch accumulates half/bfloat16 scans in float32
    acc = np.dtype(np.float32) if dt.itemsize == 2 and jnp.issubdtype(dt, jnp.floating) else dt
    x = cast(x, acc)
    r = jnp.cumsum(x, axis=dim, dtype=acc) if kind == "sum" else jnp.cumprod(x, axis=dim, dtype=acc)
    return cast(r, dt)


def _cumsum_host(x, dim, dt, kind):  # (_shape_churn: integer scans are exact)
    x = as_exact(x, dt)
    if x is None:
        return None
    if x.ndim == 0:
        return x
    return quiet(np.cumsum if kind == "sum" else np.cumprod, x, axis=dim, dtype=dt)


host_impl(_cumsum_impl, _cumsum_host)


def _cum(kind):
    def fn(input, dim, *, dtype=None):
        d = wrap_dim(dim, input.ndim)
        dt = _int_acc(input.dtype, dtype)
        return dispatch(_cumsum_impl, (input,), (("dim", d), ("dt", dt.np), ("kind", kind)),
                        name=f"Cum{kind}Backward0", saves=kind == "prod")
    fn.__name__ = "cum" + kind
    fn.__doc__ = (f"Cumulative {kind} along ``dim`` (ints and bools accumulate in int64).\n\n    >>> import "
                  f"torchlike\n    >>> torchlike.cum{kind}(torchlike.tensor([1, 2, 3]), 0)\n    tensor("
                  f"{'[1, 3, 6]' if kind == 'sum' else '[1, 2, 6]'})\n    ")
    return fn


cumsum = register("cumsum", out=True, out_overlap="partial")(_cum("sum"))
cumprod = register("cumprod", out=True, out_overlap="partial")(_cum("prod"))


def _cum_(kind):
    def fn(self, dim, *, dtype=None):
        if self.dtype is _dtype.bool:
            raise NotImplementedError(f'"cum{kind}_out_cpu" not implemented for \'Bool\'')
        # in place, the scan runs in self's dtype (no int64 accumulation)
        return self._inplace_update(_cum(kind)(self, dim, dtype=dtype or self.dtype))
    fn.__name__ = f"cum{kind}_"
    fn.__doc__ = f"In-place :meth:`Tensor.cum{kind}`."
    return fn


register("cumsum_", namespaces=(), promote="none")(_cum_("sum"))
register("cumprod_", namespaces=(), promote="none")(_cum_("prod"))


def _cummax_impl(x, dim, kind):
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    inexact = jnp.issubdtype(x.dtype, jnp.inexact)

    def combine(a, b):
        # Sequential torch semantics: a later element wins when NaN or >= (<=) the running value
        # (so ties take the latest index); a NaN running value is sticky until the next NaN.
        av, ai = a
        bv, bi = b
        better = (bv >= av) if kind == "max" else (bv <= av)
        if inexact:
            take_b = jnp.isnan(bv) | (~jnp.isnan(av) & better)
        else:
            take_b = better
        return jnp.where(take_b, bv, av), jnp.where(take_b, bi, ai)

    iota = lax.broadcasted_iota(jnp.int64, x.shape, dim)
    _, idx = lax.associative_scan(combine, (_sg(x), iota), axis=dim)
    # values gathered at the indices so the gradient goes to the selected elements (torch's
    # cummaxmin_backward scatter-adds into indices).
    return jnp.take_along_axis(x, idx, axis=dim), idx


def _cummaxmin(kind):
    def fn(input, dim):
        if input.numel() == 0 and input.ndim:  # (torch returns empty results unchecked: any dim, any dtype)
            if not isinstance(dim, (int, np.integer)):
                wrap_dim(dim, input.ndim)  # (a tuple or None: the parser's error still)
            return make("cum" + kind)(Tensor._wrap(jnp.zeros(input.shape, input._value.dtype), input.device),
                                      Tensor._wrap(jnp.zeros(input.shape, jnp.int64), input.device))
        d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
        if input.dtype.is_complex:
            raise NotImplementedError(f'"cum{kind}_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
        v, i = dispatch(_cummax_impl, (input,), (("dim", d), ("kind", kind)), name=f"Cum{kind}Backward0")
        return make("cum" + kind)(v, i)
    fn.__name__ = "cum" + kind
    fn.__doc__ = (f"(values, indices) of the running {kind}imum along ``dim`` (ties take the latest index).\n\n"
                  f"    >>> import torchlike\n    >>> torchlike.cum{kind}(torchlike.tensor([2, 1, 3]), 0).values\n"
                  f"    tensor({'[2, 2, 3]' if kind == 'max' else '[2, 1, 1]'})\n    ")
    return fn


cummax = register("cummax", out=True)(_cummaxmin("max"))
cummin = register("cummin", out=True)(_cummaxmin("min"))


def _cumlse(x, dim, reverse=False):
    # torch's CPU scan accumulates real inputs in double and rounds each output once
    wide = jnp.float64 if jnp.issubdtype(x.dtype, jnp.floating) else jnp.complex128
    return lax.cumlogsumexp(x.astype(wide), axis=dim, reverse=reverse).astype(x.dtype)


def _lcse_real(x, dim):
    return _cumlse(x, dim)


def _lcse_real_fwd(x, dim):
    r = _cumlse(x, dim)
    return r, (x, r)


def _lcse_real_bwd(dim, res, g):
    # torch's gradient (its rounding differs visibly from jax.vjp's in float32 with large inputs):
    # grad_j = sum_{i >= j} g_i exp(x_j - out_i), with the positive and negative parts of g summed
    # separately in log space by reverse cumulative logsumexps.
    x, r = res
    if x.shape[dim] <= 1:
        return (g,)
    low = jnp.finfo(x.dtype).min
    lg = jnp.log(jnp.abs(g))
    pos = _cumlse(jnp.where(g > 0, lg, low) - r, dim, reverse=True)
    neg = _cumlse(jnp.where(g < 0, lg, low) - r, dim, reverse=True)
    return (jnp.exp(pos + x) - jnp.exp(neg + x),)


_lcse_real = jax.custom_vjp(_lcse_real, nondiff_argnums=(1,))
_lcse_real.defvjp(_lcse_real_fwd, _lcse_real_bwd)


def _log_add_exp_complex(x, acc):
    # torch's complex step: the operand with the larger real part is kept whole (its imaginary part is
    # not wrapped into (-pi, pi]) and log1p(exp(min - max)) is added, so the branch of the log follows
    # the running maximum; NaN in either operand gives NaN, two equal infinite real parts are special.
    nan = jnp.isnan(x.real) | jnp.isnan(x.imag) | jnp.isnan(acc.real) | jnp.isnan(acc.imag)
    lt = x.real < acc.real
    mn, mx = jnp.where(lt, x, acc), jnp.where(lt, acc, x)
    both_inf = ~jnp.isfinite(mn.real) & (mn.real == mx.real)
    step = jnp.log1p(jnp.exp(mn - mx)) + mx
    inf_case = jnp.where(mn.real < 0, mn, jnp.log(jnp.exp(mn) + jnp.exp(mx)))
    out = jnp.where(both_inf, inf_case, step)
    return jnp.where(nan, jnp.array(complex(np.nan, np.nan), x.dtype), out)


def _lcse_complex(x, dim):
    # a sequential scan (torch's CPU kernel order), accumulated in complex128, starting from -inf + 0j
    xs = jnp.moveaxis(x.astype(jnp.complex128), dim, 0)

    def body(acc, v):
        acc = _log_add_exp_complex(v, acc)
        return acc, acc

    init = jnp.full(xs.shape[1:], complex(-np.inf, 0.0), jnp.complex128)
    _, ys = lax.scan(body, init, xs)
    return jnp.moveaxis(ys, 0, dim).astype(x.dtype)


def _logcumsumexp_impl(x, dim):
    if x.ndim == 0:
        return x
    xa = cast(x, acc_np(x.dtype))
    out = _lcse_real(xa, dim) if jnp.issubdtype(xa.dtype, jnp.floating) else _lcse_complex(xa, dim)
    return cast(out, x.dtype)


@register(out=True, out_overlap="partial")
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))`` computed stably (floating inputs only).

    >>> import torchlike
    >>> torchlike.logcumsumexp(torchlike.tensor([0., 0.]), 0)
    tensor([0.0000, 0.6931])
    """
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    return dispatch(_logcumsumexp_impl, (input,), (("dim", d),), name="LogcumsumexpBackward0")


# --- diff / trace / renorm ---------------------------------------------------------------------
def _diff_impl(x, *extra, n, dim, dt, has_pre):
    parts = [cast(e, dt) for e in extra]
    x = cast(x, dt)
    if parts:
        parts = ([parts[0], x] + parts[1:]) if has_pre else [x] + parts
        x = jnp.concatenate(parts, axis=dim)
    for _ in range(n):
        m = x.shape[dim]
        if m == 0:
            break
        a, b = lax.slice_in_dim(x, 1, m, axis=dim), lax.slice_in_dim(x, 0, m - 1, axis=dim)
        x = (a != b) if dt == np.bool_ else a - b
    return x


@register(out=True, out_overlap="partial")
@_mfmt.pointwise_follows((0, "input"), sliced=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``, after optional ``prepend``/``append``.

    >>> import torchlike
    >>> torchlike.diff(torchlike.tensor([1, 3, 6, 10]))
    tensor([2, 3, 4])
    """
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    n = int_arg(n, "n")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    if n == 0:  # torch: a copy of the input itself, prepend/append unused
        return input.clone()
    extra = tuple(as_tensor_arg(e) for e in (prepend, append) if e is not None)
    extra = tuple(e if e.ndim else e.expand(*[1 if i == d else s for i, s in enumerate(input.shape)])
                  for e in extra)
    dt = _dtype.result_type(input, *extra) if extra else input.dtype
    return dispatch(_diff_impl, (input,) + extra, (("n", n), ("dim", d), ("dt", dt.np),
                                                   ("has_pre", prepend is not None)), name="DiffBackward0",
                    saves=False)


def _trace_impl(x, dt):
    acc = np.float32 if dt in (np.float16, _dtype.bfloat16.np) else dt  # half types: float32 sum, as torch
    return cast(jnp.trace(cast(x, acc), dtype=acc), dt)


@register()
@_amp.fp32
def trace(input):
    """Sum of the main diagonal of a 2-D tensor (ints accumulate in int64).

    >>> import torchlike
    >>> torchlike.trace(torchlike.tensor([[1, 2], [3, 4]]))
    tensor(5)
    """
    if input.dtype is _dtype.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return dispatch(_trace_impl, (input,), (("dt", _int_acc(input.dtype, None).np),), name="TraceBackward0",
                    saves=False)


def _renorm_impl(x, p, maxnorm, dim, kind):
    dims = tuple(i for i in range(x.ndim) if i != dim)
    # torch: the norm and the factor in the accumulation type (float32 for halves), the factor rounded to the
    # input's type, the product rounded once
    xa = x.astype(acc_np(x.dtype))
    nrm = vnorm(xa, p, dims, True, kind)
    factor = jnp.where(nrm > maxnorm, maxnorm / (nrm + 1e-7), jnp.ones((), nrm.dtype)).astype(x.dtype)
    return (xa * factor.astype(xa.dtype)).astype(x.dtype)


@register(out=True, inplace=True, out_overlap="partial")
def renorm(input, p, dim, maxnorm):
    """Rescale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm ``maxnorm``.

    >>> import torchlike
    >>> torchlike.renorm(torchlike.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    d = wrap_dim(dim, input.ndim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # (torch's norms are linalg.vector_norm)
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[input.dtype.name]}")
    return dispatch(_renorm_impl, (input, float(p), float(maxnorm)), (("dim", d), ("kind", norm_kind(p))),
                    name="RenormBackward0")

