"""More pointwise ops: clamp family, lerp, addcmul/addcdiv, nan_to_num, logit, polygamma, mvlgamma,
frexp and the conjugation helpers."""
from __future__ import annotations

import functools
import math
import numbers

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np

from .. import _dtype, return_types
from .. import _memory_format as _mfmt
from .._errors import float_arg, int_arg
from ._util import Tensor, cast, dispatch, exact_div, float_dtype_for, opmath, register
from .legacy_overloads import sort_scalar_args
from .pointwise import _polygamma
from .._mutation import check_inplace, write_out
from .._scalar_fit import check_numbers_fit

__all__ = ["clamp", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv", "nan_to_num", "logit", "polygamma",
           "mvlgamma", "frexp"]


# --- clamp ---------------------------------------------------------------------------------------
def _clamp_impl(x, lo, hi, has_lo, has_hi, dt):
    y, lo, hi = cast(x, dt), cast(lo, dt), cast(hi, dt)
    if jnp.issubdtype(dt, jnp.floating):
        return _clamp_float(y, lo, hi, has_lo, has_hi)
    return _clamp_fwd(y, lo, hi, has_lo, has_hi)


def _clamp_fwd(y, lo, hi, has_lo, has_hi):
    if has_lo:
        y = jnp.where(y < lo, lo, y)
    if has_hi:
        y = jnp.where(y > hi, hi, y)
    if jnp.issubdtype(y.dtype, jnp.floating):  # a NaN bound gives NaN, as in torch
        if has_lo:
            y = jnp.where(jnp.isnan(lo), lo, y)
        if has_hi:
            y = jnp.where(jnp.isnan(hi), hi, y)
    return y


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4))
def _clamp_float(y, lo, hi, has_lo, has_hi):
    return _clamp_fwd(y, lo, hi, has_lo, has_hi)


@_clamp_float.defjvp
def _clamp_float_jvp(has_lo, has_hi, primals, tangents):
    # torch's clamp_backward / clamp_backward_min_max: the input's gradient where lo <= x <= hi (closed, none
    # at a NaN input or bound), a bound's where it was taken (and, with both, is the binding one)
    (x, lo, hi), (tx, tlo, thi) = primals, tangents
    zero = jnp.zeros((), tx.dtype)
    if has_lo and has_hi:
        gx, glo, ghi = (x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (hi < lo)
    elif has_lo:
        gx, glo, ghi = x >= lo, x < lo, None
    else:
        gx, glo, ghi = x <= hi, None, x > hi
    t = jnp.where(gx, tx, zero)
    if glo is not None:
        t = t + jnp.where(glo, tlo, zero)
    if ghi is not None:
        t = t + jnp.where(ghi, thi, zero)
    return _clamp_fwd(x, lo, hi, has_lo, has_hi), jnp.broadcast_to(t, jnp.broadcast_shapes(x.shape, lo.shape, hi.shape))


def _clamp_core(input, min, max, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if min is None and max is None:
        if name != "clamp" and name != "clip":  # clamp_min/clamp_max: their one bound is not optional
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, NoneType)")
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if isinstance(min, complex) or isinstance(max, complex):  # complex Number bounds
        # clamp keeps a floating input's type (the bound is read as a double); otherwise the promoted type is complex
        if name in ("clamp", "clip") and input.dtype.is_floating_point:
            if any(isinstance(v, complex) and v.imag for v in (min, max)):
                raise RuntimeError("value cannot be converted to type double without overflow")
        else:
            raise NotImplementedError("clamp is not supported for complex types")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        bound = min if isinstance(min, Tensor) else max
        if bound.ndim == 0 and not bound.requires_grad:  # torch's parser takes it as the Number overload's bound
            return _clamp_core(input, *(v.item() if isinstance(v, Tensor) else v for v in (min, max)), name)
        kinds = ", ".join(type(v).__name__ for v in (input, min, max))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({kinds}), but expected one "
                        f"of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * "
                        f"(Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    parts = [input] + [v for v in (min, max) if v is not None]
    d = _dtype.result_type(*parts)
    if d is _dtype.bool:
        # torch's Number-bound kernels have no Bool case, nor its two-Tensor-bound one (a single Tensor bound is
        # a maximum/minimum, which has)
        scalar = not isinstance(min, Tensor) and not isinstance(max, Tensor)
        both = min is not None and max is not None
        if scalar or both:
            kernel = "clamp" if both else "clamp_min" if max is None else "clamp_max"
            raise NotImplementedError(f"\"{kernel}{'_scalar' if scalar else ''}_cpu\" not implemented for 'Bool'")
    check_numbers_fit(d, min, max)
    lo = 0 if min is None else min
    hi = 0 if max is None else max
    return dispatch(_clamp_impl, (input, lo, hi),
                    (("has_lo", min is not None), ("has_hi", max is not None), ("dt", d.np)),
                    name=_CLAMP_NODES[name][isinstance(min, Tensor) or isinstance(max, Tensor)])


# torch's node per overload: (scalar bounds, tensor bounds)
_CLAMP_NODES = {"clamp": ("ClampBackward1", "ClampBackward0"), "clip": ("ClampBackward1", "ClampBackward0"),
                "clamp_min": ("ClampMinBackward0", "ClampMinBackward1"),
                "clamp_max": ("ClampMaxBackward0", "ClampMaxBackward1")}


def _clamp_scalar_cast(self, args, kwargs):
    """clamp_ & co.'s in-place rule (OpEntry.inplace_overlap): the elementwise overlap check, then torch's Number-
    bound kernel's cast check, which names self's C++ type ("long int"); a Tensor bound is TensorIterator's."""
    check_inplace(self, args, kwargs, "partial")
    bounds = [*args, *kwargs.values()]
    if all(b is None or isinstance(b, (numbers.Number, np.generic)) and not isinstance(b, str) for b in bounds):
        # (other arguments get the op's own argument errors)
        d = _dtype.result_type(self, *[b for b in bounds if b is not None])
        if d is not self.dtype and not d.is_complex and not _dtype.can_cast(d, self.dtype):  # (a complex bound:
            # the op's own "cannot be converted" error)
            raise RuntimeError(f"result type {_dtype._CAP[d.name]} can't be cast to the desired output type "
                               f"{_dtype.C_NAMES.get(self.dtype.name, self.dtype.name)}")
    return False


@register(inplace=True, out=True, promote="result_type", aliases=("clip",), inplace_overlap=_clamp_scalar_cast)
@_mfmt.pointwise_follows((0, "input"), (1, "min"), (2, "max"), numbers=False)
def clamp(input, min=None, max=None):
    """Clamp every element into ``[min, max]`` (scalars or tensors; either may be None).

    >>> import torchlike
    >>> torchlike.clamp(torchlike.tensor([-2., 0.5, 3.]), min=0, max=1)
    tensor([0.0000, 0.5000, 1.0000])
    """
    return _clamp_core(input, min, max, "clamp")


@register(inplace=True, out=True, promote="result_type", inplace_overlap=_clamp_scalar_cast)
@_mfmt.pointwise_follows((0, "input"), (1, "min"), numbers=False)
def clamp_min(input, min):
    """``clamp(input, min=min)``."""
    return _clamp_core(input, min, None, "clamp_min")


@register(inplace=True, out=True, promote="result_type", inplace_overlap=_clamp_scalar_cast)
@_mfmt.pointwise_follows((0, "input"), (1, "max"), numbers=False)
def clamp_max(input, max):
    """``clamp(input, max=max)``."""
    return _clamp_core(input, None, max, "clamp_max")


# --- lerp / addcmul / addcdiv ----------------------------------------------------------------------
def _lerp_impl(x, y, w, dt):
    ct = opmath(dt)
    x, y, w = cast(x, ct), cast(y, ct), cast(w, ct)
    diff = y - x
    return cast(jnp.where(jnp.abs(w) < 0.5, x + w * diff, y - diff * (1 - w)), dt)


@register(inplace=True, out=True, promote="same")
@_mfmt.pointwise_follows((0, "input"), (1, "end"), (2, "weight"), numbers=False)
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (torch's numerically symmetric form).

    >>> import torchlike
    >>> torchlike.lerp(torchlike.tensor([0., 1.]), torchlike.tensor([2., 3.]), 0.5)
    tensor([1., 2.])
    """
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype.name.replace('float32', 'float').replace('float64', 'double')}"
                           f" for `end` but got dtype {end.dtype.name.replace('float32', 'float').replace('float64', 'double')}")
    d = input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for \'{_dtype._CAP[d.name]}\'')
    return dispatch(_lerp_impl, (input, end, weight), (("dt", d.np),), name="LerpBackward0" if not isinstance(
        weight, Tensor) else "LerpBackward1")


def _addc_impl(x, a, b, v, dt, div):
    ct = opmath(dt)  # half types: computed in float32 and rounded once, as torch's CPU kernel
    x, a, b = cast(x, ct), cast(a, ct), cast(b, ct)
    # torch's kernel: self + value * t1 / t2 (and * t2), left to right: (value * t1) first, then a true division
    return cast(x + (exact_div(cast(v, ct) * a, b) if div else cast(v, ct) * a * b), dt)


# what torch's formulas read (dispatch's saves[i]: the arguments whose gradient reads argument i): addcmul reads
# each factor for the other's gradient; addcdiv the numerator for the divisor's, the divisor for both; never input
_ADDCMUL_SAVES = ((), (2,), (1,), ())
_ADDCDIV_SAVES = ((), (2,), (1, 2), ())


def _addc(name, div):
    @_mfmt.pointwise_follows((0, "input"), (1, "tensor1"), (2, "tensor2"))
    def fn(input, tensor1, tensor2, *legacy, value=1):
        if legacy:  # torch's deprecated addcmul(input, Number value, tensor1, tensor2)
            (input, tensor1, tensor2), kw = sort_scalar_args(name, (input, tensor1, tensor2) + legacy, 3, ("value",))
            value = kw["value"]
        if isinstance(value, Tensor) and (value.ndim or value.requires_grad):  # (torch's parser: a Number, or a
            raise TypeError(f"{name}(): argument 'value' must be Number, not Tensor")  # 0-dim tensor without grad)
        d = _dtype.result_type(input, tensor1, tensor2)
        if not div and d is _dtype.bool:
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        if div and not (tensor1.dtype.is_floating_point or tensor1.dtype.is_complex or
                        tensor2.dtype.is_floating_point or tensor2.dtype.is_complex):
            raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release "
                               "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                               "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                               "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                               "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                               "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        # value is converted to the kernel's compute type (float for the half types), checked as c10 does
        check_numbers_fit(_dtype.float32 if d in (_dtype.float16, _dtype.bfloat16) else d, value)
        return dispatch(_addc_impl, (input, tensor1, tensor2, value), (("dt", d.np), ("div", div)),
                        name=name.capitalize() + "Backward0", saves=_ADDCDIV_SAVES if div else _ADDCMUL_SAVES)
    fn.__name__ = name
    op = "/" if div else "*"
    fn.__doc__ = (f"``input + value * tensor1 {op} tensor2``.\n\n    >>> import torchlike\n    >>> x = "
                  f"torchlike.ones(2)\n    >>> torchlike.{name}(x, x, x, value=2)\n    tensor([3., 3.])\n    ")
    return register(name, inplace=True, out=True, promote="result_type")(fn)


addcmul = _addc("addcmul", False)
addcdiv = _addc("addcdiv", True)


# --- nan_to_num, logit --------------------------------------------------------------------------------
def _n2n_impl(x, nan, pos, neg):
    def fix(v):
        return jnp.where(jnp.isnan(v), cast(nan, v.dtype),
                         jnp.where(v == jnp.inf, cast(pos, v.dtype), jnp.where(v == -jnp.inf, cast(neg, v.dtype), v)))
    if jnp.iscomplexobj(x):
        return jax.lax.complex(fix(jnp.real(x)), fix(jnp.imag(x)))
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    return fix(x)


@register(inplace=True, out=True)
@_mfmt.pointwise_follows((0, "input"))
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN, +inf and -inf (defaults: 0, the dtype's max and min).

    >>> import torchlike
    >>> torchlike.nan_to_num(torchlike.tensor([float('nan'), 1.]))
    tensor([0., 1.])
    """
    if nan is None:  # torch's schema: float? nan=None, meaning 0
        nan = 0.0
    d = input.dtype.to_real()
    if d.is_floating_point:
        fi = _dtype.finfo(d)
        posinf = fi.max if posinf is None else posinf
        neginf = fi.min if neginf is None else neginf
    else:
        posinf = 0 if posinf is None else posinf
        neginf = 0 if neginf is None else neginf
    return dispatch(_n2n_impl, (input, float_arg(nan, "nan"), float_arg(posinf, "posinf"), float_arg(neginf, "neginf")), (), name="NanToNumBackward0")


@jax.custom_jvp
def _logit_raw(x):
    return jnp.log(x / (1 - x))


@_logit_raw.defjvp
def _logit_jvp(primals, tangents):
    # torch's logit_backward without eps: grad / (x * (1 - x)), NaN outside [0, 1]
    (x,), (t,) = primals, tangents
    d = jnp.where((x < 0) | (x > 1), jnp.nan, exact_div(jnp.ones((), x.dtype), x * (1 - x)))
    return _logit_raw(x), t * d


def _logit_impl(x, eps, dt, has_eps):
    x = cast(x, dt)
    if has_eps:
        e = cast(eps, dt)
        return jnp.log(jnp.clip(x, e, 1 - e) / (1 - jnp.clip(x, e, 1 - e)))
    return _logit_raw(x)


@register(inplace=True, out=True, promote="float")
@_mfmt.pointwise_follows((0, "input"))
def logit(input, eps=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    >>> import torchlike
    >>> torchlike.logit(torchlike.tensor([0.5]))
    tensor([0.])
    """
    if input.dtype.is_complex:
        raise NotImplementedError(f'"logit_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    d = float_dtype_for(input.dtype)
    return dispatch(_logit_impl, (input, 0.0 if eps is None else float_arg(eps, "eps")),
                    (("dt", d.np), ("has_eps", eps is not None)), name="LogitBackward0")


# --- polygamma, mvlgamma ---------------------------------------------------------------------------------
def _polygamma_impl(x, n, dt):
    # half types: computed in float32 and rounded once (torch's opmath; the reflection's sine in half
    # precision is far off near the poles)
    return _polygamma(n, cast(x, opmath(dt))).astype(dt)


@_mfmt.pointwise_follows((1, "input"))
def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of the digamma function (``torch.polygamma(n, input)``).

    >>> import torchlike
    >>> torchlike.polygamma(1, torchlike.tensor([1.])).item() > 1.64
    True
    """
    n = int_arg(n, "n")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    d = float_dtype_for(input.dtype)
    r = dispatch(_polygamma_impl, (input,), (("n", int(n)), ("dt", d.np)), name="PolygammaBackward0")
    if out is not None:
        return write_out(out, r, "polygamma")
    return r


register("polygamma", method=False, promote="float")(polygamma)


@register("polygamma", namespaces=(), inplace=True, promote="float")
def _polygamma_method(self, n):
    """``Tensor.polygamma(n)``: ``torch.polygamma(n, self)`` (the tensor is the second argument there)."""
    return polygamma(n, self)


def _mvlgamma_impl(x, p, dt):
    x = cast(x, dt)
    i = jnp.arange(p, dtype=dt) / 2
    return jnp.sum(jss.gammaln(x[..., None] - i), axis=-1) + cast(p * (p - 1) / 4 * math.log(math.pi), dt)


@register(inplace=True, out=True, promote="float", out_overlap="none")  # (torch's: computed, then copied)
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``.

    >>> import torchlike
    >>> torchlike.mvlgamma(torchlike.tensor([2.5]), 2).shape
    torch.Size([1])
    """
    p = int_arg(p, "p")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    d = float_dtype_for(input.dtype)
    if input.dtype.is_complex:
        raise NotImplementedError(f'"arange_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    return dispatch(_mvlgamma_impl, (input,), (("p", int(p)), ("dt", d.np)), name="MvlgammaBackward0")


# --- frexp ---------------------------------------------------------------------------------------------
def _frexp_impl(x):
    if x.dtype in (jnp.float16, jnp.bfloat16):  # exp2 of a half is not exact: scale in float32 (exact)
        m, e = _frexp_impl(x.astype(jnp.float32))
        return m.astype(x.dtype), e
    m, e = jnp.frexp(jax.lax.stop_gradient(x))
    # torch's gradient of the mantissa is grad / 2**exponent: write m as x * 2**-e with e constant
    # (in two factors, so subnormal inputs do not overflow 2**-e)
    h = (-e) // 2
    scaled = x * jnp.exp2(h.astype(x.dtype)) * jnp.exp2((-e - h).astype(x.dtype))
    m = jnp.where(jnp.isfinite(x), scaled, m)
    return m, e.astype(jnp.int32)


@_mfmt.pointwise_follows((0, "input"))
def frexp(input):
    """Split into mantissa in ``[0.5, 1)`` and integer exponent (int32): ``input = m * 2**e``.

    >>> import torchlike
    >>> torchlike.frexp(torchlike.tensor([8.]))
    torch.return_types.frexp(
    mantissa=tensor([0.5000]),
    exponent=tensor([4], dtype=torch.int32))
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = dispatch(_frexp_impl, (input,), (), name="FrexpBackward0")
    return return_types.make("frexp", ("mantissa", "exponent"))(m, e)


def _frexp_out(out, input):
    m, e = frexp(input)
    write_out(out[0], m, "frexp")
    write_out(out[1], e, "frexp")
    return return_types.make("frexp_out", ("mantissa", "exponent"))(*out)  # (torch's out= form's type)


register("frexp", promote="none", out_form=_frexp_out)(frexp)


@register(promote="none", differentiable=False)
def is_nonzero(input):
    """The truth value of a one-element tensor."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())
