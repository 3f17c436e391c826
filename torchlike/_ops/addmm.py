"""The add* family, ``beta * input + alpha * product``: addmm, addmv, baddbmm, addbmm, addr.

torch computes half-type products and ``beta * input`` in float32 and rounds once; the checks and their
messages are torch's (the shared matrix-product checks live in ``matmul.py``).

    >>> import torchlike as torch
    >>> torch.addmm(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3, 2), beta=0.5).tolist()
    [[3.5, 3.5], [3.5, 3.5]]
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax
import numpy as np

from .. import _dtype
from .. import _autocast as _amp
from ._util import Tensor, cast, dispatch, register
from .registry import out_dtype_message
from .legacy_overloads import sort_scalar_args
from .matmul import _cap, _check_bmm, _dims_msg, _mm, _mm_prec, _mv_check, _same_mm

__all__ = ["addmm", "addbmm", "baddbmm", "addmv", "addr"]


# --- add* family: beta * input + alpha * product -----------------------------------------------
def _axpby_half(inp, x, y, beta, alpha, kind, beta_zero):
    """Half-type addmm/addmv/addr/addbmm as torch's CPU kernels: products and ``beta * input`` in float32,
    rounded once; addbmm adds one batch at a time (rounding after each, as its per-batch addmm_ does)."""
    dt, f32 = x.dtype, np.float32

    def axpby(acc, a, b, beta_zero):
        p = jnp.outer(a.astype(f32), b.astype(f32)) if kind == "outer" else \
            jnp.matmul(a, b, precision=_mm_prec(), preferred_element_type=f32)
        p = p * cast(alpha, f32)
        return jnp.broadcast_to((p if beta_zero else cast(acc, f32) * cast(beta, f32) + p).astype(dt), p.shape)
    if kind != "bmm_sum":
        return axpby(inp, x, y, beta_zero)
    out = axpby(inp, x[0], y[0], beta_zero)
    for i in range(1, x.shape[0]):
        p = jnp.matmul(x[i], y[i], precision=_mm_prec(), preferred_element_type=f32) * cast(alpha, f32)
        out = (out.astype(f32) + p).astype(dt)
    return out


def _axpby_impl(inp, x, y, beta, alpha, kind, beta_zero):
    if x.dtype in (np.float16, _dtype.bfloat16.np) and x.shape[0] > 0:
        return _axpby_half(inp, x, y, beta, alpha, kind, beta_zero)
    if kind == "mm" or kind == "mv":
        p = _mm(x, y)
    elif kind == "bmm_sum":
        p = _mm(x, y)
        p = jnp.sum(p, axis=0, dtype=p.dtype)  # jnp.sum widens int8..int32 (and bool) to int64
    else:  # outer
        p = jnp.outer(x, y)
    dt = p.dtype
    if dt == np.bool_:
        p = p if alpha else jnp.zeros_like(p)
        return p if beta_zero else (p | (inp & bool(beta)))
    p = p * cast(alpha, dt)
    if beta_zero:
        return jnp.broadcast_to(p, p.shape)
    return cast(inp, dt) * cast(beta, dt) + p


def _addx(input, x, y, beta, alpha, kind, name):
    if isinstance(beta, Tensor):
        beta = beta.item()
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    bz = beta == 0
    return dispatch(_axpby_impl, (input, x, y, beta, alpha), (("kind", kind), ("beta_zero", bool(bz))),
                    name=name)


def _bcast_check(input, shape, name):
    try:
        if np.broadcast_shapes(tuple(input.shape), tuple(shape)) != tuple(shape):
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({input.shape[-1]}) at non-singleton dimension {len(shape) - 1}.  Target sizes: "
                           f"{list(shape)}.  Tensor sizes: {list(input.shape)}") from None


def _after_shapes(self, args, kwargs):
    """The in-place overlap rule of addmm_ & co. (OpEntry.inplace_overlap): none before the op, as torch checks an
    expanded self after the shapes (the write itself raises then, see ``_views.repeats``)."""
    return False


def _product_size(kind):
    """``_after_shapes`` for addmm_ (``kind`` mm), addmv_ (mv) and baddbmm_ (bmm), with their check that self has
    the product's size (where the operands multiply and share self's dtype): torch's "Bad in-place call"."""
    def rule(self, args, kwargs):
        a, b = (args + (None, None))[:2]
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or not a.dtype is b.dtype is self.dtype:
            return False
        sa, sb = tuple(a.shape), tuple(b.shape)
        if kind == "mm" and len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0]:
            shape = (sa[0], sb[1])
        elif kind == "mv" and len(sa) == 2 and len(sb) == 1 and sa[1] == sb[0]:
            shape = (sa[0],)
        elif kind == "bmm" and len(sa) == 3 and len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1]:
            shape = (sa[0], sa[1], sb[2])
        else:
            return False
        if tuple(self.shape) != shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size "
                               f"{list(shape)} should match")
        return False
    return rule


@register(out=True, inplace=True, inplace_overlap=_product_size("mm"), out_overlap="partial",
          out_same_dtype=out_dtype_message("mm"))
@_amp.lower
def addmm(input, mat1, mat2, *legacy, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``.

    >>> import torchlike as torch
    >>> torch.addmm(torch.zeros(2, 4), torch.ones(2, 3), torch.ones(3, 4), alpha=2)[0, 0].item()
    6.0
    """
    if legacy or not isinstance(input, Tensor):  # torch's deprecated addmm(Number beta, input, Number alpha, ...)
        (input, mat1, mat2), kw = sort_scalar_args("addmm", (input, mat1, mat2) + legacy, 3, ("beta", "alpha"))
        beta, alpha = kw.get("beta", beta), kw.get("alpha", alpha)
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied {_dims_msg(mat1.shape, mat2.shape)}")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_cap(input.dtype)} and "
                           f"{_cap(mat2.dtype)}")
    _same_mm(mat1, mat2)
    _bcast_check(input, (mat1.shape[0], mat2.shape[1]), "addmm")
    return _addx(input, mat1, mat2, beta, alpha, "mm", "AddmmBackward0")


@register(out=True, inplace=True, inplace_overlap=_product_size("mv"), out_overlap="partial",
          out_same_dtype=out_dtype_message("mm"))
def addmv(input, mat, vec, *legacy, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``.

    >>> import torchlike as torch
    >>> torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(3)).tolist()
    [4.0, 4.0]
    """
    if legacy or not isinstance(input, Tensor):  # torch's deprecated addmv(Number beta, input, Number alpha, ...)
        (input, mat, vec), kw = sort_scalar_args("addmv", (input, mat, vec) + legacy, 3, ("beta", "alpha"))
        beta, alpha = kw.get("beta", beta), kw.get("alpha", alpha)
    _mv_check(mat, vec, input.dtype)
    _bcast_check(input, (mat.shape[0],), "addmv")
    return _addx(input, mat, vec, beta, alpha, "mv", "AddmvBackward0")


@register(out=True, inplace=True, inplace_overlap=_product_size("bmm"), out_overlap="partial",
          out_same_dtype=out_dtype_message("mm"))
@_amp.lower
def baddbmm(input, batch1, batch2, *legacy, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    >>> import torchlike as torch
    >>> torch.baddbmm(torch.zeros(4, 2, 5), torch.ones(4, 2, 3), torch.ones(4, 3, 5)).shape
    torch.Size([4, 2, 5])
    """
    if legacy or not isinstance(input, Tensor):  # torch's deprecated baddbmm(Number beta, input, Number alpha, ...)
        (input, batch1, batch2), kw = sort_scalar_args("baddbmm", (input, batch1, batch2) + legacy, 3, ("beta", "alpha"))
        beta, alpha = kw.get("beta", beta), kw.get("alpha", alpha)
    if batch1.ndim != 3 or batch2.ndim != 3:
        _read_sizes((batch1, 0), (batch1, 1), (batch2, 2))
    _check_bmm(batch1, batch2)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"expected scalar type {_cap(batch1.dtype)} but found {_cap(input.dtype)}")
    _bcast_check(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]), "baddbmm")
    return _addx(input, batch1, batch2, beta, alpha, "mm", "BaddbmmBackward0")


def _read_sizes(*reads):
    """torch reads the product's sizes (to expand ``input`` to them) before its rank checks: the IndexError
    of the first (tensor, dim) it cannot read."""
    for t, d in reads:
        if t.ndim == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        if d >= t.ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-t.ndim}, {t.ndim - 1}], "
                             f"but got {d})")


@register(out=True, inplace=True, inplace_overlap=_after_shapes, out_overlap="partial",
          out_same_dtype=out_dtype_message("addbmm"))
@_amp.lower
def addbmm(input, batch1, batch2, *legacy, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

    >>> import torchlike as torch
    >>> torch.addbmm(torch.zeros(2, 5), torch.ones(4, 2, 3), torch.ones(4, 3, 5))[0, 0].item()
    12.0
    """
    if legacy or not isinstance(input, Tensor):  # torch's deprecated addbmm(Number beta, input, Number alpha, ...)
        (input, batch1, batch2), kw = sort_scalar_args("addbmm", (input, batch1, batch2) + legacy, 3, ("beta", "alpha"))
        beta, alpha = kw.get("beta", beta), kw.get("alpha", alpha)
    if batch1.ndim != 3 or batch2.ndim != 3:
        _read_sizes((batch1, 1), (batch2, 2))
    _check_bmm(batch1, batch2)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"expected scalar type {_cap(batch1.dtype)} but found {_cap(input.dtype)}")
    _bcast_check(input, (batch1.shape[1], batch2.shape[2]), "addbmm")
    return _addx(input, batch1, batch2, beta, alpha, "bmm_sum", "AddbmmBackward0")


def _addr_impl(inp, x, y, beta, alpha, dt, beta_zero):
    x, y = cast(x, dt), cast(y, dt)
    if dt == np.bool_:
        p = jnp.outer(x, y) & cast(alpha, dt)  # alpha/beta are traced scalars: cast, never bool()
        return p if beta_zero else p | (cast(inp, dt) & cast(beta, dt))
    # torch's kernel: beta * self + (alpha * vec1) * vec2, each operation rounded to the dtype
    if jnp.dtype(dt).itemsize == 2 and jnp.issubdtype(dt, jnp.floating):
        # (half types: each product and sum in float32, rounded to the dtype in between by reduce_precision:
        # on AVX-512 CPUs XLA drops a float32 -> half -> float32 round trip and contracts ``beta * self + p``
        # into one fused multiply-add; float32 holds each step exactly enough for one rounding to be torch's)
        fi = jnp.finfo(dt)
        f = jnp.float32

        def r(v):
            return lax.reduce_precision(v, exponent_bits=fi.nexp, mantissa_bits=fi.nmant)
        p = r(r(cast(alpha, dt).astype(f) * x.astype(f))[:, None] * y.astype(f)[None, :])
        if beta_zero:
            return p.astype(dt)
        return (r(cast(beta, dt).astype(f) * cast(inp, dt).astype(f)) + p).astype(dt)
    p = (cast(alpha, dt) * x)[:, None] * y[None, :]
    return p if beta_zero else cast(beta, dt) * cast(inp, dt) + p


@register(out=True, inplace=True, inplace_overlap="partial", out_overlap="partial")  # (torch's TensorIterator)
def addr(input, vec1, vec2, *legacy, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (with type promotion).

    >>> import torchlike as torch
    >>> torch.addr(torch.zeros(2, 3), torch.ones(2), torch.ones(3)).shape
    torch.Size([2, 3])
    """
    if legacy or not isinstance(input, Tensor):  # torch's deprecated addr(Number beta, input, Number alpha, ...)
        (input, vec1, vec2), kw = sort_scalar_args("addr", (input, vec1, vec2) + legacy, 3, ("beta", "alpha"))
        beta, alpha = kw.get("beta", beta), kw.get("alpha", alpha)
    if vec1.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    dt = _dtype.result_type(input, vec1, vec2)
    if dt is not _dtype.bool:  # torch: bool scalars only for bool results (any scalar is fine for bool)
        for nm, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, bool):
                raise RuntimeError(f"Boolean {nm} only supported for Boolean results.")
    if dt is not _dtype.bool and not (dt.is_floating_point or dt.is_complex):
        for nm, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, (float, complex)):
                raise RuntimeError(f"For integral input tensors, argument {nm} must not be a floating point "
                                   "number.")
    _bcast_check(input, (vec1.shape[0], vec2.shape[0]), "addr")
    return dispatch(_addr_impl, (input, vec1, vec2, beta, alpha), (("dt", dt.np), ("beta_zero", beta == 0)),
                    name="AddrBackward0")
