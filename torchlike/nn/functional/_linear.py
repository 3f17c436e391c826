"""linear / bilinear (torch.nn.functional.linear, bilinear): one jitted function each.

>>> import torchlike as torch
>>> torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 3)).shape
torch.Size([2, 4])
"""
from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

from ..._errors import tp_name
from ... import _dtype
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ... import _autocast as _amp
from ..._global_settings import matmul_precision as _mm_prec
from ..._ops.registry import write_out as _write_out
from ..._ops._util import round_to
from ..._ops.views import expand as _expand

__all__ = ["linear", "bilinear"]



def _xwt(x, w):
    """``x @ w.T`` contracting ``x``'s last dim with ``w``'s dim 1 directly: no transposed copy of ``w`` is
    made, and none is saved for the backward (a compiled module's forward returned one per Linear, an
    XLA copy each; the products are bit-identical)."""
    if x.dtype == w.dtype and jnp.issubdtype(x.dtype, jnp.inexact):
        return lax.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())), precision=_mm_prec())
    return jnp.matmul(x, w.T, precision=_mm_prec())


_HALF = (jnp.bfloat16, jnp.float16)


def _linear(x, w, b, once=True):
    if x.ndim == 1:
        y = jnp.matmul(w, x, precision=_mm_prec())
    elif once and b is not None and x.dtype in _HALF and x.dtype == w.dtype:
        # torch's addmm: the product and the bias summed in float32, rounded once (rounding the product
        # first differed in ~30% of bf16/f16 elements)
        y = lax.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())), precision=_mm_prec(),
                            preferred_element_type=jnp.float32)
        return (y + b.astype(jnp.float32)).astype(x.dtype)
    else:
        y = _xwt(x, w)
    return y if b is None else y + b


def _bilinear(x1, x2, w, b):
    if x1.dtype in (jnp.float16, jnp.bfloat16):
        # torch's _trilinear is two matmuls, each accumulated in float32 and stored in the half type
        # (sum over i, then over j), then the bias added: three roundings, not one
        f32 = jnp.float32
        t = round_to(jnp.einsum("...i,oij->...oj", x1, w, preferred_element_type=f32), x1.dtype)
        y = round_to(jnp.einsum("...oj,...j->...o", t, x2.astype(f32), precision=lax.Precision.HIGHEST), x1.dtype)
        return (y if b is None else y + b.astype(f32)).astype(x1.dtype)
    y = jnp.einsum("...i,oij,...j->...o", x1, w, x2, precision=_mm_prec())
    return y if b is None else y + b


def _cap(d):
    return _dtype._CAP[d.name]


@_functional()
@_amp.lower
def linear(input, weight, bias=None, *, out=None):
    """y = input @ weight.T + bias.

    >>> import torchlike as torch
    >>> torch.nn.functional.linear(torch.ones(3), torch.ones(2, 3), torch.ones(2))
    tensor([4., 4.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not {tp_name(input)}")
    if (input.ndim == 0 or getattr(weight, "ndim", 1) == 0):  # (at::linear's first check)
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if getattr(weight, "ndim", 2) > 2:  # (at::linear's weight.t())
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {weight.ndim}D")
    if input.dtype is not weight.dtype and bias is None and weight.ndim == 1 == input.ndim:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_cap(input.dtype)} and "
                           f"{_cap(weight.dtype)}")
    if input.dtype is not weight.dtype and bias is None and weight.ndim == 2:  # mm's check
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_dtype.C_NAMES[input.dtype.name]} "
                           f"!= {_dtype.C_NAMES[weight.dtype.name]}")
    if input.dtype is not weight.dtype:  # addmm's checks: the factors', then the bias against them
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_cap(input.dtype)} and "
                           f"{_cap(weight.dtype)}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_cap(bias.dtype)} and "
                           f"{_cap(weight.dtype)}")
    wshape = weight.shape
    k = input.shape[-1] if input.ndim else 1
    if weight.ndim == 1:
        if k != wshape[0]:
            raise RuntimeError(f"size mismatch, got input ({k}), mat ({wshape[0]}), vec ({k})")
    elif input.ndim == 0 or k != wshape[-1]:
        rows = 1
        for s in input.shape[:-1]:
            rows *= s
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{wshape[-1]}x{wshape[0]})")
    if bias is not None and weight.ndim == 2 and tuple(bias.shape) != (wshape[0],) and (
            input.ndim <= 2 or input.is_contiguous()):
        _expand(bias, (math.prod(input.shape[:-1]), wshape[0]))  # addmm's bias.expand: torch's error if it can't
    if weight.ndim == 1:
        r = dispatch(_linear_vec, (input, weight, bias), name="AddmmBackward0" if bias is not None
                     else "MvBackward0")
    elif input.ndim == 1 and bias is not None:  # torch: addmm of the input viewed as a row, viewed back
        r = linear(input.view(1, k), weight, bias).view(wshape[0])
    elif input.ndim == 2:  # torch: addmm(bias, input, weight.t()) / mm(input, weight.t())
        r = dispatch(_linear, (input, weight, bias),
                     name="AddmmBackward0:linear" if bias is not None else "MmBackward0:linear")
    elif bias is not None and not input.is_contiguous():
        # torch folds only a contiguous input into addmm; this one is matmul, then the bias added (rounded twice)
        r = dispatch(_linear, (input, weight, bias), (("once", False),), name="AddBackward0")
    else:
        r = dispatch(_linear, (input, weight, bias), name="AddmmBackward0" if bias is not None else "MmBackward0")
    return r if out is None else _write_out(out, r, "linear")


def _linear_vec(x, w, b):
    y = jnp.matmul(x, w, precision=_mm_prec())
    return y if b is None else y + b


@_functional(torch=True)
def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]."""
    ts = (("input1", input1), ("input2", input2), ("weight", weight)) + ((("bias", bias),) if bias is not None else ())
    if len({t.dtype for _, t in ts}) > 1:  # (torch's first check)
        got = ", ".join(f"{n}: {_dtype.C_NAMES[t.dtype.name]}" for n, t in ts)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {a} and {b}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
                           f"expected {weight.shape[0]}")
    return dispatch(_bilinear, (input1, input2, weight, bias), name="ViewBackward0")
