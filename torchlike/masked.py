"""torchlike.masked: reductions and normalisations that ignore masked-out elements (torch.masked).

Every function takes ``mask=`` (a bool tensor broadcastable to ``input``; None keeps everything).
Masked-out elements are replaced by the operation's identity before the plain op runs, so a fully
masked reduction gives torch's identity (0 for sum, -inf for amax, ...) or NaN (mean, var, median,
softmax).

    >>> import torchlike
    >>> x = torchlike.tensor([[1., 5., 3.], [2., 4., 6.]])
    >>> m = torchlike.tensor([[True, False, True], [False, False, False]])
    >>> torchlike.masked.sum(x, 1, mask=m)
    tensor([4., 0.])
    >>> torchlike.masked.amax(x, 1, mask=m)
    tensor([3., -inf])
"""
from __future__ import annotations

import math
import numbers

from . import _dtype

__all__ = ["sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "std", "var",
           "logsumexp", "softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod", "logaddexp"]

_builtin_sum = sum


def _t():
    import torchlike  # lazy: the facade's functions (torch.sum & co. take sparse operands there), built later
    return torchlike


def _input_mask(input, mask):
    """``mask`` as a bool tensor of ``input``'s shape (all True when None)."""
    T = _t()
    if mask is None:
        return T.ones(input.shape, dtype=_dtype.bool, device=input.device)
    if not isinstance(mask, T.Tensor):
        mask = T.tensor(mask)
    if mask.ndim > input.ndim:
        raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                         "input)")
    if tuple(mask.shape) != tuple(input.shape):
        mask = mask.broadcast_to(input.shape)
    if mask.dtype is not _dtype.bool:
        mask = mask.to(_dtype.bool)
    return mask


def _canonical_dim(dim, ndim):
    """torch.masked's dim normalisation: None or () means all dims; sorted, wrapped, no repeats."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    n = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, numbers.Integral) else tuple(dim)):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= n or d < -n:
            raise IndexError(f"dim={d} is out of range for tensor of dimension {n}")
        dims.append(d % n)
    return tuple(sorted(dims))


def _identity(op, dt, ord=None):
    if op in ("sum", "cumsum", "normalize"):
        return 0
    if op in ("prod", "cumprod"):
        return 1
    if op in ("amax", "argmax", "softmax", "log_softmax", "logsumexp", "logaddexp"):
        if dt.is_floating_point or (dt.is_complex and op == "logsumexp"):
            return -math.inf
        if dt is _dtype.bool:
            return False
        return _dtype.iinfo(dt).min
    if op in ("amin", "argmin", "softmin"):
        if dt.is_floating_point:
            return math.inf
        if dt is _dtype.bool:
            return True
        return _dtype.iinfo(dt).max
    if op == "norm":
        return math.inf if ord == -math.inf else 0
    if op in ("mean", "median"):
        return math.nan
    raise AssertionError(op)


def _combine(op, input, mask, ord=None):
    """``input`` with masked-out elements replaced by ``op``'s identity."""
    if mask is None:
        return input
    T = _t()
    m = _input_mask(input, mask)
    fill = T.tensor(_identity(op, input.dtype, ord), dtype=input.dtype, device=input.device)
    return T.where(m, input, fill)


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the unmasked elements over ``dim`` (0 where all are masked).

    >>> import torchlike
    >>> torchlike.masked.sum(torchlike.tensor([1., 2.]), mask=torchlike.tensor([True, False]))
    tensor(1.)
    """
    dims = _canonical_dim(dim, input.ndim)
    return _t().sum(_combine("sum", input, mask), dims, keepdim=bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the unmasked elements over ``dim`` (1 where all are masked)."""
    dims = _canonical_dim(dim, input.ndim)
    r = _combine("prod", input, mask)
    if dtype is not None:
        r = r.to(dtype)
    if not dims:  # a 0-d input: still a product (ints and bools become int64)
        return r.prod()
    for d in reversed(dims):
        r = r.prod(dim=d, keepdim=bool(keepdim))
    return r


def _minmax(op, input, dim, keepdim, dtype, mask):
    if dtype is None:
        dtype = input.dtype
    dims = _canonical_dim(dim, input.ndim)
    r = getattr(_t(), op)(_combine(op, input, mask), dims, bool(keepdim))
    return r.to(dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the unmasked elements (-inf / the dtype's minimum where all are masked)."""
    return _minmax("amax", input, dim, keepdim, dtype, mask)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the unmasked elements (inf / the dtype's maximum where all are masked)."""
    return _minmax("amin", input, dim, keepdim, dtype, mask)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the maximum unmasked element (torch returns it in ``input``'s dtype)."""
    if dtype is None:
        dtype = input.dtype
    return _t().argmax(_combine("argmax", input, mask), dim, bool(keepdim)).to(dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the minimum unmasked element (torch returns it in ``input``'s dtype)."""
    if dtype is None:
        dtype = input.dtype
    return _t().argmin(_combine("argmin", input, mask), dim, bool(keepdim)).to(dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the unmasked elements (NaN where all are masked)."""
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            raise ValueError(f"mean(): Could not infer output dtype. Input dtype must be either a floating point "
                             f"or complex dtype. Got: {dtype}")
    dims = _canonical_dim(dim, input.ndim)
    inmask = _input_mask(input, mask)
    count = inmask.sum(dim=dims, keepdim=bool(keepdim))
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the unmasked elements along one dim (NaN where all are masked)."""
    T = _t()
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)
    d = d[0] if d else 0
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(_dtype.float32)
    out = T.nanmedian(_combine("median", input, mask), d, bool(keepdim)).values
    if is_float:
        return out
    if not bool(T.isnan(out).any()):
        return out.to(dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the unmasked elements."""
    dims = _canonical_dim(dim, input.ndim)
    x = _combine("norm", input, mask, ord)
    # (a 0-d input has one element whichever dim names it)
    return _t().linalg.vector_norm(x, ord, dims if dims and input.ndim else None, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    T = _t()
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtype.float32
    cdt = dtype if (dtype.is_floating_point or dtype.is_complex) else _dtype.float32
    dims = _canonical_dim(dim, input.ndim)
    inmask = _input_mask(input, mask)
    count = inmask.sum(dim=dims, keepdim=True)
    total = sum(input, dim, keepdim=True, dtype=cdt, mask=inmask)
    x = input - total / count
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=cdt, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        rdt = cdt.to_real() if cdt.is_complex else cdt
        count = count.to(rdt) - correction
        count = T.maximum(count, T.zeros((), dtype=rdt))
    out = (total / count).to(dtype)
    return out.sqrt() if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Variance of the unmasked elements (``correction`` defaults to 1)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Standard deviation of the unmasked elements (``correction`` defaults to 1)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the unmasked elements (-inf where all are masked)."""
    if dtype is None:
        dtype = input.dtype
    dims = _canonical_dim(dim, input.ndim)
    return _t().logsumexp(_combine("logsumexp", input, mask), dims, bool(keepdim)).to(dtype)


def _softmax_like(op, fn, input, dim, dtype, mask):
    d = _canonical_dim(dim, input.ndim)
    d = d[0] if d else 0
    from .nn import functional as F  # lazy: importing it runs nn/__init__ (layer 5), which loads after this
    return getattr(F, fn)(_combine(op, input, mask), d, dtype=dtype)


def softmax(input, dim, *, dtype=None, mask=None):
    """softmax over the unmasked elements (masked-out ones get 0; fully masked slices NaN)."""
    return _softmax_like("softmax", "softmax", input, dim, dtype, mask)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax over the unmasked elements (masked-out ones get -inf)."""
    return _softmax_like("log_softmax", "log_softmax", input, dim, dtype, mask)


def softmin(input, dim, *, dtype=None, mask=None):
    """softmin over the unmasked elements (masked-out ones get 0)."""
    return _softmax_like("softmin", "softmin", input, dim, dtype, mask)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input / max(norm, eps)`` with the norm over unmasked elements; masked-out outputs are 0."""
    T = _t()
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    x = _combine("normalize", input, mask)
    denom = T.maximum(nrm, T.tensor(eps, dtype=nrm.dtype))
    return x / denom


def cumsum(input, dim, *, dtype=None, mask=None):
    """Cumulative sum treating masked-out elements as 0."""
    d = _canonical_dim(dim, input.ndim)
    return _t().cumsum(_combine("cumsum", input, mask), d[0] if d else 0, dtype=input.dtype if dtype is None else dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Cumulative product treating masked-out elements as 1."""
    d = _canonical_dim(dim, input.ndim)
    return _t().cumprod(_combine("cumprod", input, mask), d[0] if d else 0, dtype=input.dtype if dtype is None else dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """logaddexp with each operand's masked-out elements treated as -inf."""
    if dtype is None:
        dtype = input.dtype
    a = _combine("logaddexp", input, input_mask)
    b = _combine("logaddexp", other, other_mask)
    return _t().logaddexp(a, b).to(dtype)
