"""gather / scatter families, index_add/copy/fill/reduce, put, and the *_scatter view inverses.

Everything is one jitted JAX function per op: index tensors travel as dynamic arguments, bounds are
checked eagerly with numpy (torch raises on out-of-range indices; XLA would clamp).  Gradients come
from ``jax.vjp``, except scatter with ``prod``, whose JAX gradient is missing for repeated indices:
it gets torch's formula through a ``jax.custom_vjp``.
"""
from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._errors import torch_warn, tp_name
from .. import _dtype, _views
from .. import _memory_format as _mfmt
from ._util import Tensor, cast, dispatch, register, wrap_dim
from .registry import STRUCTURED_OUT
from .indexing import c_type_name, concrete_index, set_all
from .._creation import tensor
from .._mutation import check_no_overlap, expanded_warning, write_out
from .._scalar_fit import check_numbers_fit

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
           "index_reduce", "put", "diagonal_scatter", "select_scatter", "slice_scatter", "_unsafe_masked_index",
           "_unsafe_masked_index_put_accumulate"]


def _cap(dt):
    return _dtype._CAP[dt.name]


def _check_bounds(index, n, dim, exc=RuntimeError, msg=None, allow_negative=False):
    v = concrete_index(index)
    if v is None or v.size == 0:
        return
    lo = -n if allow_negative else 0
    bad = (v < lo) | (v >= n)
    if bad.any():
        i = int(v[bad].reshape(-1)[0])
        raise exc(msg.format(i=i) if msg else f"index {i} is out of bounds for dimension {dim} with size {n}")


def _full_index(idx, dim):
    """Index arrays addressing, for every element of ``idx``, position ``idx`` along ``dim``."""
    return tuple(idx.astype(jnp.int64) if d == dim else lax.broadcasted_iota(jnp.int64, idx.shape, d)
                 for d in range(idx.ndim))


def _lead(x, shape):
    return x[tuple(slice(0, s) for s in shape)]


# --- scatter-prod with torch's gradient ----------------------------------------------------------
@jax.custom_vjp
def _scatter_prod(x, src, full):
    return x.at[full].multiply(src, mode="promise_in_bounds")


def _scatter_prod_fwd(x, src, full):
    r = _scatter_prod(x, src, full)
    return r, (x, src, full, r)


def _scatter_prod_bwd(res, g):
    x, src, full, r = res
    masked_x = jnp.where(x == 0, jnp.ones_like(x), x)
    gx = g * masked_x.at[full].multiply(src, mode="promise_in_bounds") / masked_x
    src_zero = src == 0
    nzeros = jnp.zeros(x.shape, jnp.int32).at[full].add(src_zero.astype(jnp.int32))[full]
    single = src_zero & (nzeros == 1)
    masked_src = jnp.where(single, jnp.ones_like(src), src)
    msr = x.at[full].multiply(masked_src, mode="promise_in_bounds")
    gsrc = jnp.where(single, (g * msr)[full], (g * r)[full] / jnp.where(src_zero, jnp.ones_like(src), src))
    return gx, gsrc, None


_scatter_prod.defvjp(_scatter_prod_fwd, _scatter_prod_bwd)


def _make_extremal(is_max, include_self):
    """scatter amax/amin with torch's gradient: ties (self included whenever it equals the result,
    even with include_self=False, as torch does) share the gradient evenly."""
    @jax.custom_vjp
    def f(x, src, full):
        dt = x.dtype
        base = x if include_self else x.at[full].set(_lowest(dt) if is_max else _highest(dt),
                                                      mode="promise_in_bounds")
        ref = base.at[full]
        return ref.max(src, mode="promise_in_bounds") if is_max else ref.min(src, mode="promise_in_bounds")

    def fwd(x, src, full):
        r = f(x, src, full)
        return r, (x, src, full, r)

    def bwd(res, g):
        x, src, full, r = res
        dt = x.dtype
        value = r[full]
        self_is = (x == r).astype(dt)
        src_is = (src == value).astype(dt)
        gd = g / self_is.at[full].add(src_is, mode="promise_in_bounds")
        gx = self_is * gd
        if not include_self:
            gx = gx.at[full].set(jnp.zeros((), dt), mode="promise_in_bounds")
        return gx, src_is * gd[full], None

    f.defvjp(fwd, bwd)
    return f


_EXTREMAL = {(m, i): _make_extremal(m, i) for m in (True, False) for i in (True, False)}


def _lowest(dt):
    return -jnp.inf if jnp.issubdtype(dt, jnp.inexact) else (
        False if dt == jnp.bool_ else jnp.iinfo(dt).min)


def _highest(dt):
    return jnp.inf if jnp.issubdtype(dt, jnp.inexact) else (
        True if dt == jnp.bool_ else jnp.iinfo(dt).max)


def _reduce_into(x, full, src, reduce, include_self):
    """x with src scatter-reduced into positions ``full`` (torch.scatter_reduce semantics)."""
    dt = x.dtype
    src = cast(src, dt)
    at = lambda a: a.at[full]  # noqa: E731
    if reduce in ("sum", "mean"):
        base = x if include_self else at(x).set(jnp.zeros((), dt), mode="promise_in_bounds")
        s = at(base).add(src, mode="promise_in_bounds") if dt != jnp.bool_ else \
            at(base).max(src, mode="promise_in_bounds")
        if reduce == "sum":
            return s
        cnt = jnp.zeros(x.shape, jnp.int64).at[full].add(1, mode="promise_in_bounds") + int(include_self)
        cnt = jnp.maximum(cnt, 1)
        if jnp.issubdtype(dt, jnp.inexact):
            return s / cnt.astype(dt)
        return jnp.floor_divide(s, cnt.astype(dt))
    if reduce == "prod":
        base = x if include_self else at(x).set(jnp.ones((), dt), mode="promise_in_bounds")
        if dt == jnp.bool_:
            return at(base).min(src, mode="promise_in_bounds")
        if jnp.issubdtype(dt, jnp.inexact):
            return _scatter_prod(base, src, full)
        return at(base).multiply(src, mode="promise_in_bounds")
    if reduce in ("amax", "amin") and jnp.issubdtype(dt, jnp.inexact):
        return _EXTREMAL[(reduce == "amax", bool(include_self))](x, src, full)
    if reduce == "amax":
        base = x if include_self else at(x).set(_lowest(dt), mode="promise_in_bounds")
        return at(base).max(src, mode="promise_in_bounds")
    if reduce == "amin":
        base = x if include_self else at(x).set(_highest(dt), mode="promise_in_bounds")
        return at(base).min(src, mode="promise_in_bounds")
    raise AssertionError(reduce)


# --- gather ---------------------------------------------------------------------------------------
def _gather_impl(x, idx, dim):
    shape = tuple(s if d != dim else x.shape[d] for d, s in enumerate(idx.shape))
    return jnp.take_along_axis(_lead(x, shape), idx.astype(jnp.int64), axis=dim, mode="promise_in_bounds")


def _check_same_ndim(input, index, what):
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")


def _as1d(t):
    return t.reshape(1) if t.ndim == 0 else t


def _gather_empty(x, shape):
    return jnp.zeros(shape, x.dtype)


def _gather_out(out, input, dim, index, *, sparse_grad=False):
    if not isinstance(index, Tensor):
        raise TypeError(f"gather(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    if out.dtype is not input.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(input.dtype)}, but got "
                           f"{c_type_name(out.dtype)} instead")
    check_no_overlap(out, (input,), index.shape, partial=(index,))  # (out may be the index itself)
    return write_out(out, gather(input, dim, index, sparse_grad=sparse_grad), "gather")


@register(promote="none", out_form=_gather_out)
def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j] = input[index[i][j]][j]`` (for dim=0): values along ``dim`` picked by ``index``.

    >>> import torchlike
    >>> torchlike.tensor([[1, 2], [3, 4]]).gather(1, torchlike.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    if not isinstance(index, Tensor):
        raise TypeError(f"gather(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim first: gather_meta)
    if index.numel() == 0:   # torch returns an empty result for an empty index of any dtype or rank
        return dispatch(_gather_empty, (input,), (("shape", tuple(index.shape)),), name="GatherBackward0",
                        saves=False)
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    _check_same_ndim(input, index, "input")
    zero_d = index.ndim == 0
    x, idx = _as1d(input), _as1d(index)
    for k in range(idx.ndim):
        if k != d and idx.shape[k] > x.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be no "
                               f"larger than self {list(input.shape)} apart from dimension {d}")
    _check_bounds(idx, x.shape[d], d)
    r = dispatch(_gather_impl, (x, idx), (("dim", d),), name="GatherBackward0", saves=False)
    return r.reshape(()) if zero_d else r


# --- scatter / scatter_add / scatter_reduce -------------------------------------------------------
def _scatter_impl(x, idx, src, dim, reduce, scalar, include_self=True):
    full = _full_index(idx, dim)
    src = jnp.broadcast_to(cast(src, x.dtype), idx.shape) if scalar else _lead(src, idx.shape)
    if reduce is None:
        return set_all(x, cast(src, x.dtype), full, tuple(range(x.ndim)))
    return _reduce_into(x, full, src, reduce, include_self)


def _scatter_checks(name, input, dim, index, src):
    d = wrap_dim(dim, input.ndim)  # (torch wraps the dim first: scatter_meta_impl)
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")  # (the family's words)
    if index.numel() == 0:  # torch checks nothing more: the result is the input
        return None
    _check_same_ndim(input, index, "self")
    x, idx = _as1d(input), _as1d(index)
    s = _as1d(src) if isinstance(src, Tensor) else None
    wrong = any(k != d and idx.shape[k] > x.shape[k] for k in range(idx.ndim))
    if s is not None and not wrong:  # torch reads src.size(k) next: a src of fewer dims fails there
        for k in range(idx.ndim):
            if 0 < src.ndim <= k:  # (a 0-dim src reads as size 1 everywhere)
                raise IndexError(f"Dimension out of range (expected to be in range of [{-src.ndim}, "
                                 f"{src.ndim - 1}], but got {k})")
            if idx.shape[k] > (s.shape[k] if src.ndim else 1):
                wrong = True
                break
    if s is not None:
        _check_same_ndim(src, index, "src")
    if wrong:
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
                           f"apart from dimension {d}" + (f" and to be no larger size than src "
                                                         f"{list(src.shape)}" if s is not None else ""))
    _check_bounds(idx, x.shape[d], d)
    return d, x, idx, s


def _run_scatter(name, node, input, dim, index, src, reduce, include_self=True):
    checked = _scatter_checks(name, input, dim, index, src)
    if checked is None:
        return input.clone()
    d, x, idx, s = checked
    scalar = s is None
    out = dispatch(_scatter_impl, (x, idx, src if scalar else s),
                   (("dim", d), ("reduce", reduce), ("scalar", scalar), ("include_self", bool(include_self))),
                   name=node, saves=reduce in ("prod", "amax", "amin", "mean"))
    return out.reshape(()) if input.ndim == 0 else out


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none",
          inplace_overlap="any", out_overlap="partial")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src`` (a tensor or a scalar ``value``) written at ``index`` along ``dim``;
    ``reduce='add'|'multiply'`` combines instead of overwriting.

    >>> import torchlike
    >>> torchlike.zeros(2, 3).scatter(1, torchlike.tensor([[2], [0]]), 1.)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if not isinstance(src, (Tensor, bool, numbers.Number, np.generic)):
        raise TypeError(f"scatter(): argument 'src' must be Tensor or Number, not {type(src).__name__}")
    if reduce is not None:
        if isinstance(src, Tensor):  # torch's once-per-process note, given before the reduce name is checked
            torch_warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                       "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                       "aten/src/ATen/native/TensorAdvancedIndexing.cpp:225", once=True)
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        reduce = "sum" if reduce == "add" else "prod"
    check_numbers_fit(input.dtype, src)  # (a scalar value: c10's checked conversion, as fill_)
    return _run_scatter("scatter", "ScatterBackward0" if reduce is None else "ScatterReduceBackward0",
                        input, dim, index, src, reduce)


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none",
          inplace_overlap="any", out_overlap="partial")
def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices accumulate).

    >>> import torchlike
    >>> torchlike.zeros(3).scatter_add(0, torchlike.tensor([0, 0, 2]), torchlike.ones(3))
    tensor([2., 0., 1.])
    """
    if not isinstance(src, Tensor):
        raise TypeError("scatter_add(): src must be a Tensor")  # (the op table raises torch's parser error)
    return _run_scatter("scatter_add", "ScatterAddBackward0", input, dim, index, src, "sum")


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none",
          inplace_overlap="any", out_overlap="partial")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce ``src`` into ``input`` at ``index`` along ``dim`` with sum/prod/mean/amax/amin.

    >>> import torchlike
    >>> torchlike.zeros(2).scatter_reduce(0, torchlike.tensor([0, 0, 1]), torchlike.tensor([1., 3., 2.]),
    ...                                   "amax", include_self=False)
    tensor([3., 2.])
    """
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    return _run_scatter("scatter_reduce", "ScatterReduceBackward0", input, dim, index, src, reduce, include_self)


# --- index_add / index_copy / index_fill / index_reduce ---------------------------------------------
def _index_checks(name, input, dim, index, source=None, int32_ok=True):
    d = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        if name == "index_fill_":
            raise RuntimeError("Index has to be a vector/scalar")
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_cap(index.dtype)} and size: {list(index.shape)}")
    if index.dtype is not _dtype.int64 and not (int32_ok and index.dtype is _dtype.int32):
        raise IndexError(f"{name}(): Expected dtype int64 for index.") if name == "index_fill_" else \
            RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {_cap(index.dtype)}")
    if source is not None and name in ("index_add_", "index_reduce_"):  # (torch's index_func_meta_impl: the
        _src_dtype_check(name, input, source)  # source's dtype after the index's, before the sizes)
    if source is not None:
        n_idx = index.numel()
        ssrc = tuple(source.shape) if source.ndim else (1,)
        sself = tuple(input.shape) if input.ndim else (1,)
        if len(ssrc) != len(sself) or any(a != b for k, (a, b) in enumerate(zip(ssrc, sself)) if k != d):
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(input.shape)} source.shape = "
                               f"{list(source.shape)}")
        if ssrc[d] != n_idx:
            raise RuntimeError(f"{name}(): Number of indices ({n_idx}) should be equal to source.size(dim): "
                               f"({ssrc[d]}), for dim: {d}")
    return d


def _index_impl(x, idx, src, alpha=None, *, dim, mode, include_self=True):
    shp = x.shape
    x = x.reshape(shp or (1,))
    if mode == "fill":
        key = (slice(None),) * dim + (idx,)
        out = x.at[key].set(cast(src, x.dtype), mode="promise_in_bounds")
        return out.reshape(shp)
    src = src.reshape(src.shape or (1,))
    if mode == "add":
        s = cast(src, x.dtype)
        if alpha is not None:
            s = s * cast(alpha, x.dtype) if x.dtype != jnp.bool_ else s & cast(alpha, x.dtype)
        key = (slice(None),) * dim + (idx,)
        out = x.at[key].add(s, mode="promise_in_bounds") if x.dtype != jnp.bool_ else \
            x.at[key].max(s, mode="promise_in_bounds")
    elif mode == "copy":
        out = set_all(x, cast(src, x.dtype), (idx,), (dim,))
    else:
        shape = [1] * src.ndim
        shape[dim] = idx.shape[0]
        full_idx = jnp.broadcast_to(idx.reshape(shape), src.shape)
        out = _reduce_into(x, _full_index(full_idx, dim), src, mode, include_self)
    return out.reshape(shp)


def _index_copy_checks(input, dim, index, source):
    """index_copy's meta function, its checks in its order."""
    d = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n_idx = index.numel()
    if source.ndim == 0 and n_idx != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n_idx})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_cap(index.dtype)}")
    _src_dtype_check("index_copy_", input, source)
    dst_slice = [n for k, n in enumerate(input.shape) if k != d]
    src_slice = [n for k, n in enumerate(source.shape) if k != d]
    if dst_slice != src_slice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, dst_slice))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, src_slice))} at dimension 0.")
    if source.ndim and n_idx != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n_idx}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    return d


def _src_dtype_check(name, input, source):
    if source.dtype is not input.dtype:
        if name == "index_add_":
            raise RuntimeError(f"index_add_(): self ({_cap(input.dtype)}) and source ({_cap(source.dtype)}) must "
                               "have the same scalar type")
        if name == "index_copy_":
            raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                               f"{_cap(input.dtype)} and (source) {_cap(source.dtype)}")
        raise RuntimeError(f"{name}(): self ({_cap(input.dtype)}) and source ({_cap(source.dtype)}) must have the "
                           "same scalar type")


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none",
          out_overlap="partial",  # (out= may be input itself)
          inplace_overlap="any")
def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at rows ``index`` of ``dim``.

    >>> import torchlike
    >>> torchlike.zeros(3).index_add(0, torchlike.tensor([0, 0]), torchlike.tensor([1., 2.]))
    tensor([3., 0., 0.])
    """
    d = _index_checks("index_add_", input, dim, index, source)
    if input.ndim > 1:
        _check_bounds(index, input.shape[d], d)
    else:
        _check_bounds(index, input.shape[d] if input.ndim else 1, d, IndexError, "index out of range in self")
    alpha = None if (alpha == 1 and not isinstance(alpha, bool)) else alpha
    return dispatch(_index_impl, (input, index.reshape(-1), source, alpha),
                    (("dim", d), ("mode", "add")), name="IndexAddBackward0", saves=False) if alpha is not None \
        else dispatch(_index_impl, (input, index.reshape(-1), source), (("dim", d), ("mode", "add")),
                      name="IndexAddBackward0", saves=False)


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none",
          inplace_overlap="any", out_overlap="partial")
def index_copy(input, dim, index, source):
    """``input`` with rows ``index`` of ``dim`` replaced by ``source``.

    >>> import torchlike
    >>> torchlike.zeros(3).index_copy(0, torchlike.tensor([2]), torchlike.tensor([7.]))
    tensor([0., 0., 7.])
    """
    d = _index_copy_checks(input, dim, index, source)
    n = input.shape[d] if input.ndim else 1
    _check_bounds(index, n, d, IndexError,
                  "index_copy_(): index {i} is out of bounds for dimension " + f"{d} with size {n}")
    return dispatch(_index_impl, (input, index.reshape(-1), source), (("dim", d), ("mode", "copy")),
                    name="IndexCopyBackward0", saves=False)


@register(inplace=True, promote="none", inplace_overlap=expanded_warning("index_fill_"))
@_mfmt.preserve_follows((0, "input"))
def index_fill(input, dim, index, value):
    """``input`` with rows ``index`` of ``dim`` set to the scalar ``value``.

    >>> import torchlike
    >>> torchlike.zeros(3).index_fill(0, torchlike.tensor([0, -1]), 2.)
    tensor([2., 0., 2.])
    """
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    complex_value = value.dtype.is_complex if isinstance(value, Tensor) else isinstance(value, (complex, np.complexfloating))
    if complex_value and not input.dtype.is_complex and index.dtype is _dtype.int64:  # (torch: after the index dtype)
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    d = _index_checks("index_fill_", input, dim, index, int32_ok=False)
    check_numbers_fit(input.dtype, value)
    n = input.shape[d] if input.ndim else 1
    _check_bounds(index, n, d, IndexError, allow_negative=True)
    idx = index.reshape(-1)
    v = concrete_index(idx)
    if v is not None and (v < 0).any():
        idx = tensor(np.where(v < 0, v + n, v).astype(np.int64))
    return dispatch(_index_impl, (input, idx, value), (("dim", d), ("mode", "fill")),
                    name="IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0", saves=False)


@register(inplace=True, out=True, out_same_dtype=STRUCTURED_OUT, promote="none", inplace_overlap="any")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce rows of ``source`` into rows ``index`` of ``input`` with prod/mean/amax/amin.

    >>> import torchlike
    >>> torchlike.ones(2).index_reduce(0, torchlike.tensor([0, 0]), torchlike.tensor([2., 3.]), "prod")
    tensor([6., 1.])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = _index_checks("index_reduce_", input, dim, index, source)
    # torch's index_reduce kernel (TORCH_WARN_ONCE, after the meta checks above, before it reads the index): once
    # per process
    torch_warn("index_reduce() is in beta and the API may change at any time.",
               "aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523", once=True)
    _check_bounds(index, input.shape[d] if input.ndim else 1, d, IndexError, "index out of range in self")
    return dispatch(_index_impl, (input, index.reshape(-1), source),
                    (("dim", d), ("mode", reduce), ("include_self", bool(include_self))),
                    name="IndexReduceBackward0")


# --- put ------------------------------------------------------------------------------------------
def _put_impl(x, idx, src, accumulate):
    n = x.size
    flat = x.reshape(-1)
    i = jnp.where(idx < 0, idx + n, idx).reshape(-1)
    s = cast(src, x.dtype).reshape(-1)
    if accumulate and x.dtype == np.bool_:  # torch: an or (XLA adds no bools)
        out = flat.astype(np.uint8).at[i].max(s.astype(np.uint8), mode="promise_in_bounds").astype(np.bool_)
    else:
        out = flat.at[i].add(s, mode="promise_in_bounds") if accumulate else set_all(flat, s, (i,), (0,))
    return out.reshape(x.shape)


@register(inplace=True, promote="none", inplace_overlap="any")
@_mfmt.preserve_follows((0, "input"))
def put(input, index, source, accumulate=False):
    """``input`` (as 1-D) with ``source`` written (or accumulated) at ``index``.

    >>> import torchlike
    >>> torchlike.zeros(2, 2).put(torchlike.tensor([0, 3]), torchlike.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if index.dtype is not _dtype.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_cap(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_cap(input.dtype)} and source.dtype = {_cap(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    _check_bounds(index, n, 0, IndexError, "out of range: tried to access index {i} on a tensor of " + f"{n} "
                  "elements.", allow_negative=True)
    return dispatch(_put_impl, (input, index, source), (("accumulate", bool(accumulate)),), name="PutBackward0",
                    saves=False)


# --- *_scatter: the out-of-place inverses of view ops --------------------------------------------
def _write_step_impl(x, src, step):
    return _views.write_back(x, cast(src, x.dtype), (step,))


def _step_scatter(input, src, step, node):
    want = _views.index_map((step,), tuple(input.shape)).shape
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(want)}")
    return dispatch(_write_step_impl, (input, src), (("step", step),), name=node, saves=False)


@register(out=True, promote="none")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its diagonal (``offset``, ``dim1``, ``dim2``) replaced by ``src``.

    >>> import torchlike
    >>> torchlike.diagonal_scatter(torchlike.zeros(2, 2), torchlike.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    nd = input.ndim
    a, b = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _step_scatter(input, src, ("diagonal", int(offset), a, b), "DiagonalScatterBackward0")


@register(out=True, promote="none")
def select_scatter(input, src, dim, index):
    """``input`` with ``input.select(dim, index)`` replaced by ``src``.

    >>> import torchlike
    >>> torchlike.select_scatter(torchlike.zeros(2, 2), torchlike.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    step = ("index", (("s", None, None, None),) * d + (index % n,))
    return _step_scatter(input, src, step, "SelectScatterBackward0")


@register(out=True, out_same_dtype=STRUCTURED_OUT, promote="none")
@_mfmt.preserve_follows((0, "input"))
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``.

    >>> import torchlike
    >>> torchlike.slice_scatter(torchlike.zeros(4), torchlike.ones(2), 0, 0, 4, 2)
    tensor([1., 0., 1., 0.])
    """
    d = wrap_dim(dim, input.ndim)
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = input.shape[d]
    s, e, st = slice(start, end, step).indices(n)
    sl = ("index", (("s", None, None, None),) * d + (("s", s, max(e, s), st),))
    return _step_scatter(input, src, sl, "SliceScatterBackward0")


# --- masked indexing with indices clamped into range (torch's lowering helpers for padded gathers) -------
def _clamped_indices(name, input, mask, indices):
    if not isinstance(input, Tensor) or not isinstance(mask, Tensor):
        bad, pos = ("input", 1) if not isinstance(input, Tensor) else ("mask", 2)
        raise TypeError(f"{name}(): argument '{bad}' (position {pos}) must be Tensor, not "
                        f"{type(input if pos == 1 else mask).__name__}")
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"{name}(): argument 'indices' (position 3) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    out = []
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 2, but got {tp_name(t)}")
        if t.dtype not in (_dtype.int64, _dtype.int32):
            raise RuntimeError(f"_unsafe_masked_index found unexpected index type {_cap(t.dtype)}")
        n = input.shape[i] if i < input.ndim else 0
        out.append(t.clamp(-n, n - 1))  # out-of-range indices only occur where mask is False
    return tuple(out)


@register(method=False, promote="none")
def _unsafe_masked_index(input, mask, indices, fill):
    """``where(mask, input[indices], fill)`` where indices are clamped into range first (so masked-out
    positions may hold any index).

    >>> import torchlike
    >>> x = torchlike.arange(4.)
    >>> torchlike._unsafe_masked_index(x, torchlike.tensor([True, False]), [torchlike.tensor([1, 9])], -1.)
    tensor([ 1., -1.])
    """
    idx = _clamped_indices("_unsafe_masked_index", input, mask, indices)
    return input[idx].masked_fill(mask.logical_not(), fill)


@register(method=False, promote="none")
def _unsafe_masked_index_put_accumulate(input, mask, indices, values):
    """``input.index_put(indices, values.masked_fill(~mask, 0), accumulate=True)`` with the indices
    clamped into range first.

    >>> import torchlike
    >>> x, m = torchlike.zeros(3), torchlike.tensor([True, False])
    >>> torchlike._unsafe_masked_index_put_accumulate(x, m, [torchlike.tensor([1, 7])], torchlike.ones(2))
    tensor([0., 1., 0.])
    """
    idx = _clamped_indices("_unsafe_masked_index_put_accumulate", input, mask, indices)
    if not isinstance(values, Tensor):
        raise TypeError(f"_unsafe_masked_index_put_accumulate(): argument 'values' (position 4) must be Tensor, "
                        f"not {type(values).__name__}")
    return input.index_put(idx, values.masked_fill(mask.logical_not(), 0), accumulate=True)
