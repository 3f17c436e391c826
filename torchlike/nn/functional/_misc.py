"""Distances and normalisation: normalize, cosine_similarity, pairwise_distance, pdist.

Norms use torch's gradient convention at zero (0, not NaN).

>>> import torchlike as torch
>>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0]]))
tensor([[0.6000, 0.8000]])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import _dtype
from ... import _memory_format as _mfmt
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional, write_out
from ..._ops._util import check_broadcast, exact_div, round_to
from ...tensor import _wrap_dim
from ..._ops.checks import need_tensors as _need_tensors
from ..._ops.reduction import norm_kind as _norm_kind, vnorm as _vnorm

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]

_HALF = (np.dtype("float16"), np.dtype(jnp.bfloat16))


def _abs0(d):
    # |d| with torch's gradient sign(d) (0 at d == 0); a complex d gives its (real) modulus
    if jnp.iscomplexobj(d):
        return jnp.abs(d)
    return d * jnp.sign(d)


def _pdist_lastdim(d, p):
    """||d||_p over the last dim: the vector-norm kernel, torch's zero gradient at d == 0."""
    return _vnorm(d, p, -1, False, _norm_kind(p))


def _up(x):
    return x.astype(jnp.float32) if x.dtype in _HALF else x


def _rounder(dt):
    """Rounds a float32 intermediate to the half type ``dt`` (and back up): torch's half kernels store each
    op's result (a norm, a quotient, a product) in the half type; identity for the other dtypes."""
    if dt not in _HALF:
        return lambda v: v
    return lambda v: round_to(v, dt)


def _pnorm(x, p, axis):
    if isinstance(axis, tuple):  # several dims (F.normalize(x, dim=(-2, -1))): their elements as one row
        k = len(axis)
        moved = jnp.moveaxis(x, axis, tuple(range(x.ndim - k, x.ndim)))
        return _pdist_lastdim(moved.reshape(moved.shape[:x.ndim - k] + (-1,)), p)
    return _pdist_lastdim(jnp.moveaxis(x, axis, -1), p)


def _normalize(x, eps, p, dim):
    if x.ndim == 0:  # torch treats a 0-d input as one element along dim 0
        return _normalize(x.reshape(1), eps, p, 0).reshape(())
    xd, r = _up(x), _rounder(x.dtype)
    n = r(jnp.maximum(r(jnp.expand_dims(_pnorm(xd, p, dim), dim)), jnp.asarray(eps).astype(xd.dtype)))
    return exact_div(xd, n).astype(x.dtype)  # torch divides (a float16 eps underflows: 0 / 0 is NaN, as torch)


def _norm_float(input):
    """linalg_vector_norm's dtype check, which torch runs before it wraps the dim."""
    d = getattr(input, "dtype", None)
    if d is not None and not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype._CAP[d.name]}")


@_functional()
@_mfmt.pointwise_follows((0, "input"))
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps); ``dim`` an int or a tuple/list of dims (one norm over them).

    >>> import torchlike as torch
    >>> torch.nn.functional.normalize(torch.tensor([[3., 0.], [0., 4.]]), dim=(0, 1)).tolist()
    [[0.6000000238418579, 0.0], [0.0, 0.800000011920929]]
    """
    if isinstance(dim, (tuple, list)):  # torch's norm is linalg_vector_norm's: its argument checks
        for j, i in enumerate(dim):
            if not isinstance(i, int):
                raise TypeError(f"linalg_vector_norm(): argument 'dim' failed to unpack the object at pos {j + 1} "
                                f"with error \"type must be tuple of ints,but got {type(i).__name__}\"")
        _norm_float(input)
        d = tuple(_wrap_dim(i, input.ndim) for i in dim) or tuple(range(input.ndim))  # (): every dim
        for j in range(len(d)):
            if d[j] in d[:j]:
                raise RuntimeError(f"dim {d[j]} appears multiple times in the list of dims")
        d = 0 if not input.ndim else d[0] if len(d) == 1 else d
    elif dim is None:  # every dim
        _norm_float(input)
        d = tuple(range(input.ndim)) if input.ndim > 1 else 0
    elif isinstance(dim, bool):
        raise TypeError("linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, but found element "
                        "of type bool at pos 0")
    elif not isinstance(dim, int):
        raise TypeError(f"linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not "
                        f"{type(dim).__name__}")
    else:
        _norm_float(input)
        d = _wrap_dim(dim, input.ndim)
    r = dispatch(_normalize, (input, eps), (("p", float(p)), ("dim", d)), name="DivBackward0")
    if out is not None:  # torch: div(input, denom, out=out), its casts, resize and autograd refusal
        return write_out(out, r, "div")
    return r


def _cos_sim(a, b, eps, dim):
    if a.ndim == 0 and b.ndim == 0:  # torch treats 0-d inputs as one element along dim 0
        return _cos_sim(a.reshape(1), b.reshape(1), eps, 0)
    dt = jnp.result_type(a.dtype, b.dtype)
    x1, x2 = _up(a), _up(b)
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    rd = _rounder(dt)  # half types: norms, quotients and products each rounded, the sum accumulated in float32
    n1 = rd(_pnorm(x1, 2.0, dim))
    n2 = rd(_pnorm(x2, 2.0, dim))
    e = jnp.asarray(eps).astype(x1.dtype)
    # torch clamps the norms in place under no_grad: clamped value, unclamped gradient
    n1 = n1 + jax.lax.stop_gradient(rd(jnp.maximum(n1, e)) - n1)
    n2 = n2 + jax.lax.stop_gradient(rd(jnp.maximum(n2, e)) - n2)
    r = jnp.sum(rd(rd(x1 / jnp.expand_dims(n1, dim)) * rd(x2 / jnp.expand_dims(n2, dim))), axis=dim)
    return r.astype(dt)


@_functional(torch=True)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along ``dim`` (broadcasting)."""
    _need_tensors("cosine_similarity", x1=x1, x2=x2)
    check_broadcast(x1.shape, x2.shape)  # before the dim check, as torch
    dt = _dtype.result_type(x1, x2)
    if not (dt.is_floating_point or dt.is_complex):  # (before the dim check, as torch)
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_dtype._CAP[dt.name]}")
    d = _wrap_dim(dim, max(x1.ndim, x2.ndim))
    x1, x2 = (x if x.dtype is dt else x.to(dt) for x in (x1, x2))  # an integer operand: in the common float type
    return dispatch(_cos_sim, (x1, x2, eps), (("dim", d),), name="SumBackward1")


def _pairwise(a, b, eps, p, keepdim, din, dt):
    # torch: norm(x1 - x2 + eps): the difference in the inputs' promoted dtype (integers wrap), then the
    # float eps promotes integers to the default float dtype; a complex difference has a real norm
    d = _up((a.astype(din) - b.astype(din)).astype(dt))
    d = d + jnp.asarray(eps).astype(d.dtype)
    if d.ndim == 0:
        d = d.reshape(1)
    r = _pdist_lastdim(d, p)
    if keepdim:
        r = r[..., None]
    return r.astype(jnp.finfo(dt).dtype)


@_functional(torch=True)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (integer inputs give the default float dtype, as in torch)."""
    _need_tensors("pairwise_distance", x1=x1, x2=x2)
    check_broadcast(x1.shape, x2.shape)
    din = dt = _dtype.result_type(x1, x2)
    if not (dt.is_floating_point or dt.is_complex):
        dt = _dtype.get_default_dtype()
    return dispatch(_pairwise, (x1, x2, eps), (("p", float(p)), ("keepdim", bool(keepdim)), ("din", din.np),
                                               ("dt", dt.np)), name="NormBackward1")


def _pdist(x, p):
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    xd = _up(x)
    return _pdist_lastdim(xd[i] - xd[j], p).astype(x.dtype)


@_functional(torch=True)
def pdist(input, p=2):
    """Distances between all row pairs i < j of a 2-D input (condensed, row-major)."""
    _need_tensors("pdist", input=input)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return dispatch(_pdist, (input,), (("p", float(p)),), name="PdistBackward0")
