"""Reductions: sum/mean/prod/var/std, max/min/arg*, logsumexp, all/any, norms.

Order statistics (median, mode, quantile) and scans (cumsum, cummax, ...) live in order_stats_scans.py.

    >>> import torchlike
    >>> torchlike.tensor([[1., 5.], [3., 2.]]).max(dim=1)
    torch.return_types.max(
    values=tensor([5., 3.]),
    indices=tensor([1, 0]))
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._errors import torch_warn
from ..return_types import make
from . import checks as C
from ._util import Tensor, cast, dims_arg, dispatch, exact_mean, float_dtype_for, register, round_to, wrap_dim
from .. import _autocast as _amp
from .registry import TABLE
from .signatures import Signature
from .._mutation import write_out
from .indexing import c_type_name
from .._shape_churn import as_exact, host_impl, quiet
from .._dispatch import ERR_VAR, QUIET, host_operand
from .._views import HOST_CHAIN as _HOST_CHAIN

__all__ = ["sum", "nansum", "mean", "nanmean", "prod", "var", "std", "var_mean", "std_mean", "max", "min",
           "amax", "amin", "aminmax", "argmax", "argmin", "logsumexp", "all", "any", "count_nonzero", "norm",
           "dist", "rdims", "check_nonempty", "real_of"]

_I64 = np.dtype(np.int64)


def rdims(dim, ndim):
    """torch's reduction ``dim``: None or ``[]`` -> None (all dims); a 0-dim tensor reduces over ()."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return None
    dims = dims_arg(dim, ndim)
    return () if ndim == 0 else dims


def check_nonempty(input, dims, name, sep="():"):
    """torch's IndexError for reducing a zero-size dim with an op that has no identity."""
    if input.numel() == 0:
        shape = input.shape
        for d in (range(input.ndim) if dims is None else dims):
            if shape[d] == 0:
                raise IndexError(f"{name}{sep} Expected reduction dim {d} to have non-zero size.")


def real_of(d):
    return d.to_real() if d.is_complex else d


def acc_np(dt):
    """Accumulation dtype: torch reduces half and bfloat16 in float32."""
    return np.dtype(np.float32) if dt.itemsize == 2 and jnp.issubdtype(dt, jnp.floating) else dt


def _int_acc(d, dtype):
    """Accumulation dtype of sum/prod/cumsum: an explicit dtype, else int64 for ints and bools."""
    if dtype is not None:
        return _dtype.to_dtype(dtype)
    return _dtype.int64 if d._kind <= 1 else d


# --- sum / nansum / mean / nanmean / prod -----------------------------------------------------
def _sum_impl(x, dims, keepdim, dt):
    return cast(jnp.sum(cast(x, acc_np(dt)), axis=dims, keepdims=keepdim, dtype=acc_np(dt)), dt)


def _sum_host(x, dims, keepdim, dt):  # (_shape_churn: integer sums are exact in any order)
    x = as_exact(x, dt)
    return None if x is None else quiet(np.sum, x, axis=dims, keepdims=keepdim, dtype=dt)


host_impl(_sum_impl, _sum_host)


_HOST_SUM = {np.dtype(d): np.dtype(np.int64) for d in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64)}
_HOST_SUM.update({np.dtype(d): np.dtype(d) for d in (np.float32, np.float64)})


def _host_reduce(input, dim, keepdim, mean):
    """``sum``/``mean`` (no ``dtype=``) of a host-resident tensor (``host_operand``) with numpy, before dispatch:
    ints and bools summed in int64 (wrapping as the device's), float32/float64 in their own dtype (numpy's
    pairwise order: last-bit differences from XLA's, docs/differences.md), a mean as that sum divided by the
    element count (torch's true division).  None for the rest (half and complex dtypes, an integer mean's error,
    a bad ``dim``: the general path raises torch's errors)."""
    h = host_operand(input)
    if h is None or ERR_VAR is None:
        return None
    dt = _HOST_SUM.get(h.dtype)
    if dt is None or mean and dt.kind != "f" or type(keepdim) is not bool:  # (an integer mean: torch's error)
        return None
    if dim is None:
        dims = None
    else:
        try:
            dims = rdims(dim, h.ndim)
        except Exception:  # noqa: BLE001 - the general path raises torch's error
            return None
    if dt.kind != "f":
        r = np.add.reduce(h, axis=dims, keepdims=keepdim, dtype=dt)
    else:  # (no numpy overflow warnings: torch gives none)
        tok = ERR_VAR.set(QUIET)
        try:
            r = np.add.reduce(h, axis=dims, keepdims=keepdim)
            if mean:
                n = 1
                for d in (range(h.ndim) if dims is None else dims):
                    n *= h.shape[d]
                r = np.true_divide(r, dt.type(n))
        finally:
            ERR_VAR.reset(tok)
    if type(r) is not np.ndarray:  # (a full reduction gives a numpy scalar)
        r = np.asarray(r)
    return Tensor._from_host(r, input._dev)


_NO_DIM = object()
# torch's sum overloads: the one without a dim takes no out=
_SUM_OUT = Signature("sum", ["Tensor self, *, ScalarType? dtype=None", "Tensor self, int[1]? dim, bool keepdim=False, "
                            "*, ScalarType? dtype=None, Tensor? out=None"])


def _sum_out(out, input, dim=_NO_DIM, keepdim=False, *, dtype=None):
    # torch's sum reduces in out's dtype when no dtype is given (the input cast to it first: a float input summed
    # into an int8 out truncates each element), where other ops compute in theirs and cast the result
    if dim is _NO_DIM:
        err = _SUM_OUT.error((input,), {"out": out, **({} if dtype is None else {"dtype": dtype})})
        raise TypeError(err.as_function)
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(dtype)}, but got {c_type_name(out.dtype)} "
                           "instead")
    return write_out(out, sum(input, dim, keepdim, dtype=out.dtype if dtype is None else dtype), "sum")


@register(out_form=_sum_out)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all dims by default); ints and bools accumulate in int64.

    >>> import torchlike
    >>> torchlike.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    if dtype is None and type(input) is Tensor and input._chain is _HOST_CHAIN:  # (one slot read on the device)
        r = _host_reduce(input, dim, keepdim, False)
        if r is not None:
            return r
    dims = rdims(dim, input.ndim)
    dt = _int_acc(input.dtype, dtype)
    return dispatch(_sum_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", dt.np)),
                    name="SumBackward0" if dims is None else "SumBackward1", saves=False)


@jax.custom_vjp
def _nan_to_zero(x):
    return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)


def _nan_to_zero_fwd(x):
    return _nan_to_zero(x), jnp.isnan(x)


def _nan_to_zero_bwd(nan, g):
    # torch multiplies by the mask (so an inf upstream gradient becomes NaN at NaN inputs, e.g. for
    # all-NaN rows of nanmean) where jnp.where would give exact zeros.  Written as selects because
    # XLA folds g * convert(mask) into a select, losing the 0 * inf = NaN.
    zero = jnp.zeros((), g.dtype)
    return (jnp.where(nan, jnp.where(jnp.isfinite(g), zero, jnp.full((), jnp.nan, g.dtype)), g),)


_nan_to_zero.defvjp(_nan_to_zero_fwd, _nan_to_zero_bwd)


def _nansum_impl(x, dims, keepdim, dt):
    x = cast(x, dt)
    if jnp.issubdtype(dt, jnp.inexact):
        x = _nan_to_zero(x)
    return cast(jnp.sum(cast(x, acc_np(dt)), axis=dims, keepdims=keepdim, dtype=acc_np(dt)), dt)


@register(out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero.

    >>> import torchlike
    >>> torchlike.nansum(torchlike.tensor([1., float('nan'), 2.]))
    tensor(3.)
    """
    if input.dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    dims = rdims(dim, input.ndim)
    dt = _int_acc(input.dtype, dtype)
    return dispatch(_nansum_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", dt.np)),
                    name="NansumBackward0")


def _mean_impl(x, dims, keepdim, dt):
    return exact_mean(cast(x, dt), dims, keepdim)  # torch: sum(x).div_(n), a true division


@register(out=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim``; integer inputs need an explicit float ``dtype``, as in torch.

    >>> import torchlike
    >>> torchlike.tensor([1., 2., 6.]).mean()
    tensor(3.)
    """
    if dtype is None and type(input) is Tensor and input._chain is _HOST_CHAIN:
        r = _host_reduce(input, dim, keepdim, True)
        if r is not None:
            return r
    d = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype "
                           f"must be either a floating point or complex dtype. Got: {_dtype._CAP[d.name]}")
    dims = rdims(dim, input.ndim)
    return dispatch(_mean_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", d.np)),
                    name="MeanBackward0" if dims is None else "MeanBackward1", saves=False)


def _nanmean_impl(x, dims, keepdim, dt):
    x = cast(x, dt)
    nan = jnp.isnan(x)
    s = jnp.sum(_nan_to_zero(x), axis=dims, keepdims=keepdim)
    n = jnp.sum(~nan, axis=dims, keepdims=keepdim)
    return s / n.astype(dt)


@register(out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean ignoring NaNs (all-NaN slices give NaN).

    >>> import torchlike
    >>> torchlike.nanmean(torchlike.tensor([1., float('nan'), 3.]))
    tensor(2.)
    """
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_dtype._CAP[input.dtype.name]}")
    d = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    dims = rdims(dim, input.ndim)
    return dispatch(_nanmean_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", d.np)),
                    name="DivBackward0")


def _prod_impl(x, dims, keepdim, dt):
    return cast(jnp.prod(cast(x, acc_np(dt)), axis=dims, keepdims=keepdim, dtype=acc_np(dt)), dt)


@register(out=True)
@_amp.fp32
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over all elements or one ``dim`` (ints and bools accumulate in int64).

    >>> import torchlike
    >>> torchlike.tensor([[1, 2], [3, 4]]).prod(1)
    tensor([ 2, 12])
    """
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of:\n * (Tensor input, *, torch.dtype dtype = "
                        "None)\n * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
                        "Tensor out = None)\n")
    dims = rdims(dim, input.ndim)
    dt = _int_acc(input.dtype, dtype)
    return dispatch(_prod_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("dt", dt.np)),
                    name="ProdBackward0" if dims is None else "ProdBackward1")


# --- var / std -------------------------------------------------------------------------------
def _var_impl(x, c, dims, keepdim, sq, with_mean):
    dt = x.dtype
    if acc_np(dt) != dt:  # half / bfloat16: compute in float32 as torch does
        r = _var_impl(cast(x, acc_np(dt)), c, dims, keepdim, sq, with_mean)
        return tuple(cast(t, dt) for t in r) if with_mean else cast(r, dt)
    m = jnp.mean(x, axis=dims, keepdims=True)
    d = x - m
    sqd = jnp.real(d * jnp.conj(d)) if jnp.iscomplexobj(d) else d * d
    s = jnp.sum(sqd, axis=dims, keepdims=keepdim)
    n = _count(x, dims)
    v = s / jnp.maximum(n - c, 0).astype(s.dtype)
    r = jnp.sqrt(v) if sq else v
    if with_mean:
        return r, (m if keepdim else jnp.squeeze(m, axis=dims))
    return r


def _count(x, dims):
    return math.prod(x.shape[i] for i in (range(x.ndim) if dims is None else dims))


def _var_args(name, input, dim, unbiased, correction):
    if isinstance(dim, bool):  # the legacy var(input, unbiased) overload
        unbiased, dim = dim, None
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both 'unbiased' and "
                        "'correction'")
    if correction is None:
        correction = 0 if unbiased is False else 1
    d = input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return rdims(dim, input.ndim), correction


def _var_like(name, sq, with_mean):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        dims, c = _var_args(name, input, dim, unbiased, correction)
        if _count(input, dims) - c <= 0:
            torch_warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                       "reduction factor (input numel divided by output numel).", "aten/src/ATen/native/ReduceOps.cpp:1861")
        return dispatch(_var_impl, (input, c), (("dims", dims), ("keepdim", bool(keepdim)), ("sq", sq),
                                                ("with_mean", with_mean)),
                        name=("Std" if sq else "Var") + ("Mean" if with_mean else "") + "Backward0")
    fn.__name__ = name
    what = "standard deviation" if sq else "variance"
    fn.__doc__ = (f"The {what} over ``dim`` with Bessel ``correction`` (default 1; legacy ``unbiased``)"
                  f"{', and the mean, as a tuple' if with_mean else ''}.\n\n    >>> import torchlike\n"
                  f"    >>> torchlike.{name}(torchlike.tensor([1., 3.]), correction=0)\n"
                  f"    {'(tensor(1.), tensor(2.))' if with_mean else 'tensor(1.)'}\n    ")
    return fn


var = register("var", out=True)(_var_like("var", False, False))
std = register("std", out=True)(_var_like("std", True, False))
var_mean = register("var_mean", method=False)(_var_like("var_mean", False, True))
std_mean = register("std_mean", method=False)(_var_like("std_mean", True, True))


# --- max / min / amax / amin / aminmax / argmax / argmin --------------------------------------
def _no_complex(input, name):
    if input.dtype.is_complex:
        raise NotImplementedError(f'"{name}" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')


def _evenly(x, val):
    """``val`` (a value of ``x``) whose gradient is shared evenly by all elements equal to it (NaN
    matching NaN): torch's evenly_distribute_backward for full-reduction median()/max()/min()."""
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        return val
    mask = (x == val) | (jnp.isnan(x) & jnp.isnan(val))
    zero = jnp.zeros((), x.dtype)
    # x - stop_gradient(x) is exactly 0 forward, so the value is exactly val; backward it is 1 / count.
    sg = jax.lax.stop_gradient
    return sg(val) + jnp.sum(jnp.where(mask, x - sg(x), zero)) / jnp.sum(mask).astype(x.dtype)


def _full_impl(x, kind):
    # NaN propagates; the gradient is shared evenly by the tied extrema (NaNs when the result is NaN),
    # torch's evenly_distribute_backward for full-reduction max()/min().
    return _evenly(x, jnp.max(x) if kind == "max" else jnp.min(x))


def _full_host(x, kind):  # (_shape_churn: max/min of integers and bools)
    if not isinstance(x, np.ndarray) or x.dtype.kind not in "biu":
        return None
    return np.asarray(x.max() if kind == "max" else x.min())


host_impl(_full_impl, _full_host)


def _arg_impl(x, dim, keepdim, kind):
    # jnp.argmax/argmin pick the first occurrence and treat NaN as the extremum, like torch.
    return (jnp.argmax if kind == "max" else jnp.argmin)(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _dim_impl(x, dim, keepdim, kind):
    # Values are gathered at the selected indices (not jnp.max) so that jax.vjp sends the whole
    # gradient to that one index, as torch's value_selecting_reduction_backward does.
    if x.ndim == 0:
        return x, jnp.zeros((), jnp.int64)
    idx = (jnp.argmax if kind == "max" else jnp.argmin)(x, axis=dim, keepdims=True)
    vals = jnp.take_along_axis(x, idx, axis=dim)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, dim), jnp.squeeze(idx, dim)
    return vals, idx.astype(jnp.int64)


def _minmax(kind):
    def fn(input, dim=None, keepdim=False, *, other=None):
        if isinstance(dim, Tensor):
            other, dim = dim, None
        if other is not None:
            return TABLE[("torch", "maximum" if kind == "max" else "minimum")].fn(input, other)
        if dim is None:
            _no_complex(input, f"{kind}_all")
        else:
            d = wrap_dim(dim, input.ndim)  # (torch wraps the dim before its dtype check)
            if input.dtype.is_complex:
                raise RuntimeError(f"{kind}(): does not support complex input")
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return dispatch(_full_impl, (input,), (("kind", kind),), name=f"{kind.capitalize()}Backward1")
        check_nonempty(input, (d,), kind)
        v, i = dispatch(_dim_impl, (input,), (("dim", d), ("keepdim", bool(keepdim)), ("kind", kind)),
                        name=f"{kind.capitalize()}Backward0")
        return make(kind)(v, i)
    fn.__name__ = kind
    fn.__doc__ = (f"``{kind}(input)``: the {kind}imum (NaN propagates); ``{kind}(input, dim, keepdim)``: "
                  f"(values, indices) with the first index of the {kind}imum; ``{kind}(input, other)``: "
                  f"elementwise {kind}imum.\n\n    >>> import torchlike\n    >>> torchlike.{kind}("
                  f"torchlike.tensor([1, 3, 3]))\n    tensor({1 if kind == 'min' else 3})\n    ")
    return fn


max = register("max", out=True, out_overlap="partial")(_minmax("max"))
min = register("min", out=True, out_overlap="partial")(_minmax("min"))


def _amax_impl(x, dims, keepdim, kind):
    return (jnp.max if kind == "max" else jnp.min)(x, axis=dims, keepdims=keepdim)


def _amaxmin(kind):
    def fn(input, dim=(), keepdim=False):
        dims = rdims(dim, input.ndim)  # (torch reads the dims, then the sizes, then the dtype)
        if dims is None and input.numel() == 0:
            raise RuntimeError(f"a{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        check_nonempty(input, dims, f"a{kind}")
        _no_complex(input, f"{kind}_values_cpu")
        return dispatch(_amax_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("kind", kind)),
                        name=f"A{kind}Backward0")
    fn.__name__ = "a" + kind
    fn.__doc__ = (f"The {kind}imum over ``dim`` (all dims by default); the gradient is shared evenly "
                  f"between tied elements.\n\n    >>> import torchlike\n    >>> torchlike.a{kind}("
                  f"torchlike.tensor([[1, 4], [3, 2]]), 1)\n    tensor({'[1, 2]' if kind == 'min' else '[4, 3]'})\n"
                  "    ")
    return fn


amax = register("amax", out=True)(_amaxmin("max"))
amin = register("amin", out=True)(_amaxmin("min"))


def _aminmax_impl(x, dims, keepdim):
    return jnp.min(x, axis=dims, keepdims=keepdim), jnp.max(x, axis=dims, keepdims=keepdim)


def _aminmax_out(out, input, *, dim=None, keepdim=False):
    lo, hi = aminmax(input, dim=dim, keepdim=keepdim)  # (its argument errors first, as torch's)
    for o in out:
        if o.dtype is not input.dtype:  # (torch writes no cast into aminmax's out)
            raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(input.dtype)}, but got "
                               f"{c_type_name(o.dtype)} instead")
    return make("aminmax_out", ("min", "max"))(*write_out(tuple(out), (lo, hi), "aminmax"))  # (torch's type)


@register(out_form=_aminmax_out)
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over ``dim`` (all elements by default).

    >>> import torchlike
    >>> torchlike.aminmax(torchlike.tensor([3, 1, 2]))
    torch.return_types.aminmax(
    min=tensor(1),
    max=tensor(3))
    """
    _no_complex(input, "aminmax_cpu")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        dims = None
    else:
        dims = dims_arg(dim, input.ndim)
        dims = () if input.ndim == 0 else dims
        check_nonempty(input, dims, "aminmax", ":")
    lo, hi = dispatch(_aminmax_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim))),
                      name="AminmaxBackward0")
    return make("aminmax")(lo, hi)


def _argminmax(kind):
    def fn(input, dim=None, keepdim=False):
        if dim is not None and not isinstance(dim, (int, np.integer)):
            wrap_dim(dim, input.ndim)  # (a dim of another type: torch's parser error, before the dtype checks)
        if input.dtype.is_complex:
            raise RuntimeError(f"arg{kind}(): does not support complex input")
        if input.dtype is _dtype.bool:
            raise RuntimeError(f"arg{kind}(): does not support bool input")
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"arg{kind}(): Expected reduction dim to be specified for input.numel() == 0.")
            r = dispatch(_arg_impl, (input.reshape(-1),), (("dim", 0), ("keepdim", False), ("kind", kind)),
                         diff=False)
            return r.reshape((1,) * input.ndim) if keepdim else r
        d = wrap_dim(dim, input.ndim)
        check_nonempty(input, (d,), f"arg{kind}")
        if input.ndim == 0:
            return dispatch(_arg_impl, (input.reshape(1),), (("dim", 0), ("keepdim", False), ("kind", kind)),
                            diff=False)
        return dispatch(_arg_impl, (input,), (("dim", d), ("keepdim", bool(keepdim)), ("kind", kind)),
                        diff=False)
    fn.__name__ = "arg" + kind
    fn.__doc__ = (f"Index of the first {kind}imum (over the flattened tensor when ``dim`` is None).\n\n"
                  f"    >>> import torchlike\n    >>> torchlike.arg{kind}(torchlike.tensor([2, 5, 5, 1]))\n"
                  f"    tensor({3 if kind == 'min' else 1})\n    ")
    return fn


argmax = register("argmax", out=True, differentiable=False)(_argminmax("max"))
argmin = register("argmin", out=True, differentiable=False)(_argminmax("min"))


# --- logsumexp ---------------------------------------------------------------------------------
def _logsumexp_impl(x, dims, keepdim, dt):
    return jax.nn.logsumexp(cast(x, dt), axis=dims, keepdims=keepdim)


@register(out=True, promote="float", namespaces=("torch", "special"))
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))`` computed stably; integer inputs give the default float dtype.

    >>> import torchlike
    >>> torchlike.logsumexp(torchlike.tensor([0., 0.]), 0)
    tensor(0.6931)
    """
    dims = rdims(dim, input.ndim)
    return dispatch(_logsumexp_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)),
                                                ("dt", float_dtype_for(input.dtype).np)),
                    name="LogsumexpBackward0")


# --- all / any / count_nonzero -----------------------------------------------------------------
def _allany_impl(x, dims, keepdim, kind, dt):
    nz = x != 0
    r = (jnp.all if kind == "all" else jnp.any)(nz, axis=dims, keepdims=keepdim)
    return r.astype(dt)


def _allany(kind):
    def fn(input, dim=None, keepdim=False):
        dims = rdims(dim, input.ndim)
        dt = np.dtype(np.uint8) if input.dtype is _dtype.uint8 else np.dtype(bool)
        return dispatch(_allany_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim)), ("kind", kind),
                                                 ("dt", dt)), diff=False)
    fn.__name__ = kind
    fn.__doc__ = (f"Whether {'all' if kind == 'all' else 'any'} elements over ``dim`` are nonzero (bool result; "
                  f"uint8 inputs give uint8, as torch).\n\n    >>> import torchlike\n    >>> torchlike.{kind}("
                  f"torchlike.tensor([1, 0]))\n    tensor({kind == 'any'})\n    ")
    return fn


all = register("all", out=True, promote="bool", differentiable=False)(_allany("all"))
any = register("any", out=True, promote="bool", differentiable=False)(_allany("any"))


def _count_nonzero_impl(x, dims):
    return jnp.sum(x != 0, axis=dims, dtype=jnp.int64)


@register(promote="int", differentiable=False, method_varargs=True)
def count_nonzero(input, dim=None):
    """Number of nonzero elements over ``dim`` (int64).

    >>> import torchlike
    >>> torchlike.count_nonzero(torchlike.tensor([[0, 1], [2, 0]]), dim=0)
    tensor([1, 1])
    """
    return dispatch(_count_nonzero_impl, (input,), (("dims", rdims(dim, input.ndim)),), diff=False)


# --- norms -------------------------------------------------------------------------------------
def abs0(x):
    """|x| (real dtype) whose subgradient at 0 is 0, torch's sgn(0); jnp.abs's derivative there is 1."""
    z = x == 0
    return jnp.where(z, 0, jnp.abs(jnp.where(z, 1, x))).astype(jnp.real(x).dtype)


def norm_kind(p):
    """The static part of a vector norm's order: its special values, and the sign of a general one."""
    if p == math.inf:
        return "inf"
    if p == -math.inf:
        return "-inf"
    return {0: "zero", 1: "one", 2: "two"}.get(p, "p" if p > 0 else "-p")


def vnorm(x, p, dims, keepdim, kind):
    """The one vector p-norm kernel (linalg.vector_norm, norm, dist, matrix 'fro', clip_grad_norm_).

    Values are torch's kernel's (``sum(|x|**p) ** (1/p)``: NaN and inf propagate, a zero entry makes a
    negative order's norm 0); gradients are torch's ``norm_backward`` (0 where the norm is 0, and at zero
    entries). The 'double where's keep jax.vjp from producing 0 * inf = NaN at zero.

    >>> float(vnorm(jnp.array([3., 4.]), 2.0, None, False, "two"))
    5.0
    """
    if kind == "two":
        s = jnp.sum(jnp.real(x) ** 2 + jnp.imag(x) ** 2 if jnp.iscomplexobj(x) else x * x, axis=dims,
                    keepdims=keepdim)
        zero = s == 0
        return jnp.where(zero, 0, jnp.sqrt(jnp.where(zero, 1, s))).astype(s.dtype)
    a = abs0(x)
    rd = a.dtype
    if kind == "inf":
        return jnp.max(a, axis=dims, keepdims=keepdim)
    if kind == "-inf":
        return jnp.min(a, axis=dims, keepdims=keepdim)
    if kind == "zero":
        return jnp.sum((a != 0).astype(rd), axis=dims, keepdims=keepdim)
    if kind == "one":
        return jnp.sum(a, axis=dims, keepdims=keepdim)
    p = cast(p, rd)
    z = a == 0
    ap = jnp.where(z, jnp.zeros((), rd) if kind == "p" else jnp.full((), jnp.inf, rd), jnp.where(z, 1, a) ** p)
    s = jnp.sum(ap, axis=dims, keepdims=keepdim)
    if kind == "-p":  # s is inf with a zero entry: inf ** (1/p) is the norm 0, and its derivative 0
        return s ** (1 / p)
    zero = s == 0
    return jnp.where(zero, 0, jnp.where(zero, 1, s) ** (1 / p)).astype(rd)


def vnorm_in(x, p, dims, keepdim, kind, dt):
    """``vnorm`` of ``x`` as dtype ``dt``: half types accumulate in float32 and round once, as torch's."""
    r = vnorm(cast(cast(x, dt), acc_np(np.dtype(dt))), p, dims, keepdim, kind)
    return cast(r, real_of_np(dt))


def real_of_np(dt):
    return jnp.real(jnp.zeros((), dt)).dtype


def vector_norm_op(input, p, dims, keepdim, dtype, name="linalg.vector_norm"):
    """Shared by norm/dist (and usable by linalg.vector_norm): p-norm over ``dims`` (None = all)."""
    d = _dtype.to_dtype(dtype) if dtype is not None else input.dtype
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[input.dtype.name]}")
    if dtype is not None and _dtype.promote_types(input.dtype, d) is not d:
        raise RuntimeError(f"{name}: the dtype of the input ({_dtype._CAP[input.dtype.name]}) should be convertible "
                           f"without narrowing to the specified dtype ({_dtype._CAP[d.name]})")
    kind = norm_kind(p)
    if kind in ("inf", "-inf") and input.numel() == 0:
        check_nonempty(input, dims, name, ":")
    return dispatch(vnorm_in, (input, float(p)), (("dims", dims), ("keepdim", bool(keepdim)), ("kind", kind),
                                                     ("dt", d.np)), name="LinalgVectorNormBackward0")


def tensor_norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm (torch's ``norm`` without ``out``, ``dtype`` its fourth positional argument): 'fro' /
    numbers give vector norms over ``dim`` (all dims by default), 'nuc' the nuclear norm of the matrices in
    ``dim`` (the last two dims of a 2-D input by default).

    >>> import torchlike
    >>> torchlike.tensor([3., 4.]).norm()
    tensor(5.)
    """
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            r = vector_norm_op(input, 2, rdims(dim, input.ndim), keepdim, dtype)
        elif p == "fro":  # (torch: linalg.matrix_norm over the dims given)
            if not (input.dtype.is_floating_point or input.dtype.is_complex):
                raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                                   f"Got {_dtype._CAP[input.dtype.name]}")
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        elif p == "nuc":
            if input.ndim < 2:
                raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
            dims = tuple(range(input.ndim)) if dim is None else dims_arg(dim, input.ndim)
            if len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
            if not (input.dtype.is_floating_point or input.dtype.is_complex):
                raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                                   f"Got {_dtype._CAP[input.dtype.name]}")
            # torch.norm's nuclear norm is linalg.matrix_norm(input, 'nuc', dims): svdvals then sum
            r = TABLE[("linalg", "matrix_norm")].fn(input, "nuc", dims, keepdim, dtype=dtype)
        else:
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    else:
        if isinstance(p, Tensor) and (p.ndim or p.requires_grad):  # (torch's linalg_vector_norm parses it: a Number,
            raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not Tensor")  # 0-dim)
        r = vector_norm_op(input, 2.0 if p is None else p, rdims(dim, input.ndim), keepdim, dtype)
    return r


tensor_norm.__name__ = tensor_norm.__qualname__ = "norm"
tensor_norm = register("norm", namespaces=(), promote="float")(tensor_norm)


@register(promote="float", method=False)
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: :meth:`Tensor.norm` with torch.functional's ``out`` (its fifth positional argument).

    >>> import torchlike
    >>> torchlike.norm(torchlike.tensor([3., 4.]), 2)
    tensor(5.)
    """
    r = tensor_norm(input, p, dim, keepdim, dtype)
    if out is not None and out.dtype is not r.dtype:  # (no cast into out: torch's norms' checks)
        if p == "nuc":
            raise RuntimeError(f"linalg.matrix_norm expected out tensor dtype {_dtype._CAP[r.dtype.name]} but got: "
                               f"{_dtype._CAP[out.dtype.name]}")
        raise RuntimeError(f"Expected out tensor to have dtype {_dtype.C_NAMES[r.dtype.name]}, but got "
                           f"{_dtype.C_NAMES[out.dtype.name]} instead")
    return r if out is None else write_out(out, r)


@register(promote="float", checks=(C.tensors_only,))
def dist(input, other, p=2):
    """``norm(input - other, p)`` with broadcasting.

    >>> import torchlike
    >>> torchlike.dist(torchlike.tensor([1., 1.]), torchlike.tensor([4., 5.]))
    tensor(5.)
    """
    d = _dtype.result_type(input, other)
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dtype._CAP[d.name]} instead.")
    if isinstance(p, Tensor):
        p = p.item()
    return dispatch(_dist_impl, (input, other, float(p)), (("kind", norm_kind(p)), ("dt", d.np)),
                    name="DistBackward0")


def _dist_impl(x, y, p, kind, dt):
    # the difference in the input dtype, its norm accumulated as vector_norm's; a half type's difference is
    # formed in float32 and rounded by round_to (XLA would drop an astype(dt) before vnorm_in's float32 cast)
    acc = acc_np(np.dtype(dt))
    if acc != np.dtype(dt):
        return vnorm_in(round_to(cast(x, acc) - cast(y, acc), dt), p, None, False, kind, acc).astype(dt)
    return vnorm_in(cast(x, dt) - cast(y, dt), p, None, False, kind, dt)


# --- hash_tensor ------------------------------------------------------------------------------------
def _hash_impl(x, dims, keepdim):
    if jnp.issubdtype(x.dtype, jnp.floating):
        b = jax.lax.bitcast_convert_type(x.astype(jnp.float64), jnp.uint64)
    elif jnp.issubdtype(x.dtype, jnp.unsignedinteger):
        b = x.astype(jnp.uint64)
    else:  # signed ints and bool: their int64 value's bits
        b = jax.lax.bitcast_convert_type(x.astype(jnp.int64), jnp.uint64)
    dims = tuple(range(x.ndim)) if dims is None else dims
    r = jax.lax.reduce(b, np.uint64(0), jax.lax.bitwise_xor, dims)
    return jnp.expand_dims(r, dims) if keepdim else r


@register(differentiable=False, out=True)
def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """The xor of the elements' 64-bit patterns (floats as float64, integers as int64), as uint64.

    >>> import torchlike
    >>> torchlike.hash_tensor(torchlike.tensor([1, 200], dtype=torchlike.uint8))
    tensor(201, dtype=torch.uint64)
    """
    if input.dtype.is_complex:
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    if dim is None and input.numel() == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify "
                           "the reduction dim with the 'dim' argument.")
    dims = dims_arg(dim, input.ndim or 1)
    if input.ndim == 0:
        dims = None
    return dispatch(_hash_impl, (input,), (("dims", dims), ("keepdim", bool(keepdim))), diff=False)
