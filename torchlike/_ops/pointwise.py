"""Pointwise math: one declaration per op; surfaces come from the op table."""
from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
from functools import partial
from jax import lax

from .. import _dtype, _torch_function
from .. import _memory_format as _mfmt
from .._dispatch import HOST_DTYPES, OTHERS, host_int_sum, host_pointwise
from .._scalar_fit import check_numbers_fit
from .._mutation import check_inplace
from .._shape_churn import as_exact, host_impl, quiet
from .._tape import node_class
from . import checks as C
from ._util import Tensor, binary, cast, dispatch, exact_div, laid_out, \
    register, unary, camel
from .legacy_overloads import sort_scalar_args
from .rounded_kernels import F64_HALF, erf_half, half_via_f64, log_rounded_half, rounded_from_f64, true_div


@jax.custom_jvp
def _i0(x):
    return jss.i0(x)


@_i0.defjvp
def _i0_jvp(primals, tangents):
    # d/dx I0 = I1 (jss.i0 goes through exp(|x|), whose derivative at 0 is not 0)
    (x,), (t,) = primals, tangents
    return jss.i0(x), jss.i1(x) * t


def _trigamma(x):
    # Reflection below 1/2 (as torch does): psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x). jss.polygamma is only
    # right for x > 0; this also gives +inf at 0 and torch's huge finite values at negative integers.
    # The sine is taken in the input's precision like torch (its rounding dominates near the poles); the
    # smooth part in float64 (jss.polygamma loses ~1e-6 relative in float32, torch's is a few ulp).
    neg = x < 0.5
    xr = jnp.where(neg, 1 - x, x)
    s = jnp.sin(jnp.pi * x)
    r = jss.polygamma(1, xr.astype(np.float64)).astype(x.dtype)
    r = jnp.where(x == jnp.inf, jnp.zeros((), x.dtype), r)  # torch: trigamma(+inf) = 0 (JAX: nan)
    return jnp.where(neg, jnp.pi ** 2 / (s * s) - r, r)


def _polygamma_math(n, x):
    """psi^(n)(x) for n >= 1 matching torch on the whole real line (jss.polygamma is nan/wrong for x < 0)."""
    if n == 1:
        return _trigamma(x)
    dt, x = x.dtype, x.astype(np.float64)     # float64 inside, rounded once (see _trigamma)
    # recurrence psi_n(x) = psi_n(x + m) - (-1)^n n! sum_{k<m} (x + k)^-(n+1), m = ceil(-x) for x < 0;
    # the loop bound is the largest m in the array (a dynamic while loop: no recompiles)
    # (-inf takes no steps: an infinite bound would never end the loop; torch gives it the pole value)
    m = jnp.where((x < 0) & jnp.isfinite(x), jnp.ceil(-x), 0).astype(x.dtype)
    mmax = jnp.max(m, initial=0) if x.size else jnp.zeros((), x.dtype)

    def body(c):
        k, acc = c
        acc = acc + jnp.where(k < m, (x + k) ** -(n + 1), 0)
        return k + 1, acc

    _, acc = lax.while_loop(lambda c: c[0] < mmax, body, (jnp.zeros((), x.dtype), jnp.zeros_like(x)))
    fact = float(np.prod(np.arange(1, n + 1, dtype=np.float64)))
    sign = -1.0 if n % 2 else 1.0                        # (-1)^n
    r = jss.polygamma(n, x + m).astype(x.dtype) - sign * fact * acc
    # torch: non-positive integers are poles with value (-1)^(n+1) * inf
    pole = (x <= 0) & (x == jnp.floor(x))  # -inf included
    return jnp.where(pole, jnp.asarray(-sign * jnp.inf, x.dtype), r).astype(dt)


@partial(jax.custom_jvp, nondiff_argnums=(0,))
def _polygamma(n, x):
    if n == 0:
        # torch: digamma(+0) = -inf, digamma(-0) = +inf (JAX gives nan)
        return jnp.where(x == 0, -jnp.copysign(jnp.inf, x).astype(x.dtype), jss.digamma(x))
    return _polygamma_math(n, x)


@_polygamma.defjvp
def _polygamma_jvp(n, primals, tangents):
    # d/dx psi^(n) = psi^(n+1) (JAX's own derivative of digamma/polygamma is wrong for x < 0)
    (x,), (t,) = primals, tangents
    return _polygamma(n, x), _polygamma(n + 1, x) * t


def _digamma(x):
    return _polygamma(0, x)


def _sigmoid(x):
    if x.dtype in (jnp.float16, jnp.bfloat16):  # torch computes half types in float32 (its opmath type)
        return jax.nn.sigmoid(x.astype(jnp.float32)).astype(x.dtype)
    return jax.nn.sigmoid(x)


# float32 results computed in float64 and rounded once (see rounded_from_f64), with torch's backward formulas
_log2 = rounded_from_f64(jnp.log2, lambda x, y, t: true_div(t, x * np.float32(0.6931471805599453)))
_log10 = rounded_from_f64(jnp.log10, lambda x, y, t: true_div(t, x * np.float32(2.3025850929940456)))
_log1p = rounded_from_f64(jnp.log1p, lambda x, y, t: true_div(t, x + np.float32(1)))
_expm1 = rounded_from_f64(jnp.expm1, lambda x, y, t: t * (y + np.float32(1)))
# (sinh's derivative: cosh rounded from float64 as well, XLA's float32 cosh is a few ulp off)
_sinh = rounded_from_f64(jnp.sinh, lambda x, y, t: t * jnp.cosh(x.astype(np.float64)).astype(np.float32))
# (torch's float32 erfinv is MKL's vsErfInv, within an ulp of the float64 value rounded: XLA's float32 erfinv
# is up to ~10 ulp off near |x| = 1; backward: torch's 0.5 * sqrt(pi) * exp(erfinv(x)^2) * grad)
_erfinv = rounded_from_f64(jss.erfinv, lambda x, y, t: np.float32(0.886226925452758) * jnp.exp(y * y) * t)

# --- unary, float-valued (ints promote to the default float) -----------------------------------
_SAVES_OUT = {"exp", "exp2", "expm1", "sigmoid", "tanh", "sqrt", "rsqrt", "reciprocal"}
for _n, _f in [("sin", jnp.sin), ("cos", jnp.cos), ("tan", jnp.tan), ("asin", jnp.arcsin),
               ("acos", jnp.arccos), ("atan", jnp.arctan), ("sinh", _sinh), ("cosh", jnp.cosh),
               ("tanh", jnp.tanh), ("asinh", jnp.arcsinh), ("acosh", jnp.arccosh), ("atanh", jnp.arctanh),
               ("exp", jnp.exp), ("exp2", jnp.exp2), ("expm1", _expm1), ("log", jnp.log),
               ("log2", _log2), ("log10", _log10), ("log1p", _log1p), ("sqrt", jnp.sqrt),
               ("rsqrt", lax.rsqrt), ("sigmoid", _sigmoid), ("erf", jss.erf), ("erfc", jss.erfc),
               ("erfinv", _erfinv), ("lgamma", jss.gammaln), ("digamma", _digamma),
               ("reciprocal", lambda x: 1 / x), ("sinc", jnp.sinc), ("deg2rad", jnp.deg2rad),
               ("rad2deg", jnp.rad2deg), ("i0", _i0)]:
    unary(_n, _f, promote="float", saves="out" if _n in _SAVES_OUT else True,
          checks={"erf": (C.NO_COMPLEX_VML,), "erfc": (C.NO_COMPLEX_VML,), "erfinv": (C.NO_COMPLEX_VML,),
                  "lgamma": (C.NO_COMPLEX_VML,), "i0": (C.NO_COMPLEX_VML,), "digamma": (C.DIGAMMA,),
                  "deg2rad": (C.DEG_RAD,), "rad2deg": (C.DEG_RAD,)}.get(_n, ()),
          aliases={"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",), "asinh": ("arcsinh",),
                   "acosh": ("arccosh",), "atanh": ("arctanh",)}.get(_n, ()),
          half=erf_half if _n == "erf" else half_via_f64(_f) if _n in F64_HALF else None)

# --- unary, dtype-preserving -------------------------------------------------------------------
unary("neg", jnp.negative, dunders=("__neg__",), aliases=("negative",), checks=(C.NEG,))
@jax.custom_jvp
def _abs_float(x):
    return jnp.abs(x)


@_abs_float.defjvp
def _abs_float_jvp(primals, tangents):
    # torch's gradient of abs is sgn(x): 0 at 0 (jnp.abs's is 1 there) and at NaN (torch's sign of NaN is 0)
    (x,), (t,) = primals, tangents
    return jnp.abs(x), t * _sign(x)


def _abs(x):
    return _abs_float(x) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.abs(x)


unary("abs", _abs, dunders=("__abs__",), aliases=("absolute",), checks=(C.ABS,))
unary("positive", lambda x: x, inplace=False, dunders=("__pos__",), checks=(C.POSITIVE,))


def _square_impl(x, dt):
    return jnp.square(cast(x, dt))


@register(inplace=True, out=True)
@_mfmt.pointwise_follows((0, "input"))
def square(input):
    """Elementwise ``input * input`` (a bool input squares as int64, like torch's ``pow(input, 2)``).

    >>> import torchlike
    >>> torchlike.square(torchlike.tensor([True, False]))
    tensor([1, 0])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"square(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    d = _dtype.int64 if input.dtype is _dtype.bool else input.dtype
    return dispatch(_square_impl, (input,), (("dt", d.np),), name="SquareBackward0")


def _sign(x):
    if jnp.issubdtype(x.dtype, jnp.floating):  # torch: (0 < x) - (x < 0), so 0 at NaN (jnp.sign gives NaN)
        return jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), jnp.sign(x))
    return jnp.sign(x) if x.dtype != jnp.bool_ else x


unary("sign", _sign, checks=(C.SIGN,))
unary("sgn", lambda x: jnp.where(x == 0, 0, x / jnp.abs(x)).astype(x.dtype) if jnp.iscomplexobj(x) else _sign(x))
unary("signbit", jnp.signbit, promote="bool", differentiable=False, inplace=False, checks=(C.SIGNBIT,))
for _n, _f in [("floor", jnp.floor), ("ceil", jnp.ceil), ("trunc", jnp.trunc)]:
    unary(_n, lambda x, _f=_f: _f(x) if jnp.issubdtype(x.dtype, jnp.floating) else x,
          aliases=("fix",) if _n == "trunc" else (), checks=(C.ROUNDING,))
unary("frac", lambda x: x - jnp.trunc(x), int_ok=False, checks=(C.FRAC,))
_bitwise_not = unary("bitwise_not", lambda x: jnp.logical_not(x) if x.dtype == jnp.bool_ else jnp.bitwise_not(x),
                     differentiable=False, checks=(C.BITWISE_NOT,))


@register(namespaces=(), promote="none")
def __invert__(self):
    """``~t`` (torch binds it apart from bitwise_not: a float or complex tensor gets Python's TypeError)."""
    if isinstance(self, Tensor) and self.dtype._kind > 1:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _bitwise_not(self)
unary("logical_not", lambda x: jnp.logical_not(x), promote="bool", differentiable=False)
unary("isnan", jnp.isnan, promote="bool", differentiable=False, inplace=False, out=False)
unary("isinf", jnp.isinf, promote="bool", differentiable=False, inplace=False, out=False)
unary("isfinite", jnp.isfinite, promote="bool", differentiable=False, inplace=False, out=False)
unary("isposinf", jnp.isposinf, promote="bool", differentiable=False, inplace=False, checks=(C.INF_TEST,))
unary("isneginf", jnp.isneginf, promote="bool", differentiable=False, inplace=False, checks=(C.INF_TEST,))
unary("isreal", lambda x: jnp.imag(x) == 0 if jnp.iscomplexobj(x) else jnp.ones(x.shape, bool),
      promote="bool", differentiable=False, inplace=False, out=False)
# (of a real tensor torch's conj_physical_ returns at once: nothing checked, nothing written -- an expanded self too)
unary("conj_physical", jnp.conj, inplace_overlap=lambda self, args, kwargs: not self.is_complex() or check_inplace(
    self, args, kwargs, "partial"))
@jax.custom_jvp
def _relu_float(x):  # torch's ``x < 0 ? 0 : x``: NaN stays NaN and -0.0 stays -0.0 (a maximum gives +0.0)
    return jnp.where(x < 0, jnp.zeros((), x.dtype), x)


@_relu_float.defjvp
def _relu_float_jvp(primals, tangents):
    # torch's threshold_backward(grad, result, 0): zero where the result is <= 0, so a NaN passes its gradient
    (x,), (t,) = primals, tangents
    y = _relu_float(x)
    return y, jnp.where(y <= 0, jnp.zeros((), t.dtype), t)


def _relu(x):
    return _relu_float(x) if jnp.issubdtype(x.dtype, jnp.floating) else jax.nn.relu(x)


def _relu_host(dt):
    zero = dt.type(0)
    return lambda h: np.where(h < zero, zero, h)  # (as _relu_float: -0.0 and NaN kept; integers exact)


unary("relu", _relu, namespaces=("torch",), saves="out", checks=(C.RELU,),
      host={dt: _relu_host(dt) for dt in HOST_DTYPES if dt.kind in "iuf"})


def _complex_angle(x):
    # torch's angle_backward is 0 where x == 0; atan2's derivative there is 0/0 (NaN): the zeros take their
    # angle through stop_gradient, the rest from an input with the zeros replaced
    zero = x == 0
    safe = jnp.angle(jnp.where(zero, jnp.ones_like(x), x))
    return jnp.where(zero, lax.stop_gradient(jnp.angle(x)), safe).astype(jnp.real(x).dtype)


unary("angle", lambda x: _complex_angle(x) if jnp.iscomplexobj(x) else
      jnp.where(x < 0, jnp.pi, jnp.where(jnp.isnan(x), lax.stop_gradient(x), 0.0)).astype(x.dtype) if jnp.issubdtype(x.dtype, jnp.floating)
      else jnp.where(x < 0, jnp.pi, 0.0), promote="float", inplace=False)


# --- isnan etc. need their own functional names; logical ops produce bool ----------------------
def _round_impl(x, decimals):
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    if decimals == 0:
        return jnp.round(x)
    return jnp.round(x, decimals)


@register(inplace=True, out=True, checks=(C.ROUND,))
@_mfmt.pointwise_follows((0, "input"))
def round(input, *, decimals=0):
    """Round half to even (torch.round), optionally to ``decimals`` places."""
    return dispatch(_round_impl, (input,), (("decimals", int(decimals)),),
                    name="RoundBackward1" if decimals else "RoundBackward0")


# --- binary arithmetic -------------------------------------------------------------------------
def _add(x, y):
    return jnp.add(x, y) if x.dtype != jnp.bool_ else jnp.logical_or(x, y)


def _sub(x, y):
    return jnp.subtract(x, y)


def _alpha_impl(x, y, alpha, dt, sub):
    x, y = cast(x, dt), cast(y, dt)
    if alpha != 1 and dt == jnp.bfloat16:
        return _half_alpha(x, y, cast(alpha, dt), dt, sub)
    if alpha != 1:
        y = y * cast(alpha, dt)
    if sub:
        return x - y
    return x + y if dt != np.bool_ else jnp.logical_or(x, y)


def _alpha_host(x, y, alpha, dt, sub):  # (_shape_churn: integer/bool only)
    x, y = as_exact(x, dt), as_exact(y, dt)
    if x is None or y is None:
        return None
    if alpha != 1:
        a = as_exact(alpha, dt)
        if a is None:
            return None
        y = quiet(np.multiply, y, a)
    if sub:
        return quiet(np.subtract, x, y)
    return quiet(np.add, x, y) if dt != np.bool_ else np.logical_or(x, y)


host_impl(_alpha_impl, _alpha_host)


# torch's CPU add kernel runs whole blocks of this many half-type elements, then the rest one by one: measured 32
# with AVX-512 and 32 on an AVX2 CPU as well (its vectorized loop takes two 16-lane vectors per step there)
_HALF_VECTOR = 32


def _half_alpha(x, y, alpha, dt, sub):
    """torch's half-type ``x + alpha * y``, alpha rounded to the type: its vectorized loop computes in float32
    and rounds once, its scalar loop (a contiguous operand's last ``numel % _HALF_VECTOR`` elements, all of a
    smaller one) rounds ``alpha * y`` to the type first; operands of different shapes: the vectorized rule."""
    f = jnp.float32
    prod = cast(y, f) * cast(alpha, f)
    vec = cast(cast(x, f) - prod if sub else cast(x, f) + prod, dt)
    n = x.size
    k = n - n % _HALF_VECTOR
    if x.shape != y.shape or k == n:
        return vec
    prod = cast(cast(prod, dt), f)
    one_by_one = cast(cast(x, f) - prod if sub else cast(x, f) + prod, dt)
    return one_by_one if k == 0 else jnp.where(jnp.arange(n).reshape(x.shape) < k, vec, one_by_one)


def _tensor_alpha_impl(x, y, alpha, dt, sub):
    if dt == jnp.bfloat16:
        return _half_alpha(cast(x, dt), cast(y, dt), cast(alpha, dt), dt, sub)
    y = cast(y, dt) * cast(alpha, dt)
    return cast(x, dt) - y if sub else cast(x, dt) + y


def _tensor_alpha(name, node_name, input, other, alpha, d, sub):
    if alpha.dim() != 0 or alpha.requires_grad:
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not Tensor")
    if alpha.dtype is _dtype.bool and d is not _dtype.bool:  # (as a Python bool's: the Number it parses to)
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if (alpha.dtype.is_floating_point or alpha.dtype.is_complex) and not (d.is_floating_point or d.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if d is _dtype.bool:
        return dispatch(_alpha_impl, (input, other), (("alpha", bool(alpha)), ("dt", d.np), ("sub", sub)),
                        name=node_name, saves=False)
    return dispatch(_tensor_alpha_impl, (input, other, alpha.detach().reshape(())), (("dt", d.np), ("sub", sub)),
                    name=node_name, saves=False)


def _alpha_op(name, sub):
    node_name = camel(name)
    # (a bool subtraction raises torch's error below; a bool addition is an or, numpy's for bool arrays)
    ufunc, host_dtypes = (np.subtract, HOST_DTYPES - {np.dtype(bool)}) if sub else (np.add, HOST_DTYPES)

    def fn(input, other, *legacy, alpha=1):
        if type(alpha) is int and alpha == 1 and not legacy:  # host tensors of one dtype (or one and a number)
            r = host_pointwise(ufunc, input, other, host_dtypes)
            if r is not None:
                return r
        if type(other) is int and type(input) is Tensor and input._seen < -1 and alpha == 1 and not legacy:
            r = host_int_sum(input, other, sub)  # ``i + 8`` of a host-readable int64 scalar: no dispatch
            if r is not None:
                return r
        if legacy:  # torch's deprecated add(input, Number alpha, other)
            (input, other), kw = sort_scalar_args(name, (input, other) + legacy, 2, ("alpha",), number_other=True)
            alpha = kw["alpha"]
        try:
            d = _dtype.result_type(input, other)
        except TypeError:  # an operand of another type: a tensor-like (keras's Variable) goes through its override
            if _torch_function.retry_with_overrides((input, other), None):
                return _torch_function.redispatch(name, fn, (input, other), {} if alpha == 1 else {"alpha": alpha})
            raise
        if sub and d is _dtype.bool:
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                               "`^` or `logical_xor()` operator instead.")
        if sub and any(a.dtype is _dtype.bool if isinstance(a, Tensor) else isinstance(a, bool)
                       for a in (input, other)):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                               "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        if alpha.__class__ is not int or alpha != 1:  # (the default alpha: nothing to check)
            if isinstance(alpha, Tensor):  # a one-element tensor is a Scalar to torch (optimizers pass these)
                return _tensor_alpha(name, node_name, input, other, alpha, d, sub)
            if not isinstance(alpha, (numbers.Number, np.generic)):  # (torch's parser: a Number, or a tensor above)
                raise TypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
            if (alpha is True or alpha is False) and d is not _dtype.bool:
                raise RuntimeError("Boolean alpha only supported for Boolean results.")
            if alpha != 1:
                if isinstance(alpha, float) and not (d.is_floating_point or d.is_complex):
                    raise RuntimeError("For integral input tensors, argument alpha must not be a floating point "
                                       "number.")
                if not (type(alpha) is float and d.is_floating_point and -65504.0 <= alpha <= 65504.0):
                    check_numbers_fit(d, alpha)  # c10's checked conversion into the result's dtype (a learning
                    # rate, which fits every floating dtype, skips it: this is the optimizers' hot path)
                if isinstance(alpha, int) and alpha < 0 and np.dtype(d.np).kind == "u":  # (-255..-1 wrap, as in C++)
                    alpha = int(np.asarray(alpha).astype(d.np))
                if type(alpha) is float and (d.is_floating_point or d.is_complex):
                    # an argument of the program, not a constant in it: a learning rate that changes every step
                    # (``p.add_(g, alpha=-lr)`` under a scheduler) must not compile a new program per value
                    return dispatch(_tensor_alpha_impl, (input, other, alpha), (("dt", d.np), ("sub", sub)),
                                    name=node_name, saves=False)
        return laid_out(dispatch(_alpha_impl, (input, other), (("alpha", alpha), ("dt", d.np), ("sub", sub)),
                                 name=node_name, saves=False), input, other)
    fn.__name__ = name
    fn.host_ufunc = ufunc, host_dtypes  # (the in-place method's host path: registry._make_inplace)
    fn.__doc__ = f"``input {'-' if sub else '+'} alpha * other`` with broadcasting and type promotion.\n\n" \
                 f"    >>> import torchlike\n    >>> torchlike.{name}(torchlike.tensor([1, 2]), 1)\n" \
                 f"    tensor([{'0, 1' if sub else '2, 3'}])\n    "
    return fn


add = register("add", inplace=True, out=True, promote="result_type", dunders=("__add__",))(
    _alpha_op("add", False))


register("__radd__", namespaces=(), promote="none")(lambda self, other: add(self, other))
sub = register("sub", inplace=True, out=True, promote="result_type", dunders=("__sub__",),
               aliases=("subtract",))(_alpha_op("sub", True))
register("__rsub__", namespaces=(), promote="none")(lambda self, other: _rsub(self, other))
register("__iadd__", namespaces=(), promote="none")(lambda self, other: self.add_(other))
register("__isub__", namespaces=(), promote="none")(lambda self, other: self.sub_(other))


def _rsub(input, other, *, alpha=1):
    r = sub(other, input, alpha=alpha)
    if r.grad_fn is not None and type(r.grad_fn).__name__ == "SubBackward0":  # torch's own node: rsub
        name = "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1"
        r.grad_fn.__class__, r.grad_fn._name = node_class(name), name
    return r


register("rsub", method=False, checks=(C.RSUB,))(_rsub)

mul = binary("mul", jnp.multiply, aliases=("multiply",), linear_with_scalar=True, numbers_ok=True,
             host=np.multiply, saves=OTHERS)


# (the dunders are their own entries: ``mul(2, 3)`` computes, ``Tensor.__mul__(2, 3)`` is a descriptor misuse,
# which the table's operator wrapper raises)
register("__mul__", namespaces=(), promote="result_type")(lambda self, other: mul(self, other))
register("__rmul__", namespaces=(), promote="result_type")(lambda self, other: mul(self, other))


# division (its own module; imported here, so the op table keeps its order of registration)
from .division import _floor_div_float, div, floor_divide  # noqa: E402,F401 - div, floor_divide: explicit re-exports


def _int_pow(x, e):
    """x ** e for integer arrays (e >= 0) by repeated squaring, wrapping around like torch's int64 math."""
    x, e = jnp.broadcast_arrays(x, e)
    bits = jnp.iinfo(e.dtype).bits

    def body(_, carry):
        r, b, k = carry
        r = jnp.where((k & 1) == 1, r * b, r)
        return r, b * b, k >> 1
    return lax.fori_loop(0, bits, body, (jnp.ones_like(x), x, e))[0]


def _pow_impl(x, y, dt):
    x, y = cast(x, dt), cast(y, dt)
    if dt == np.bool_:
        return jnp.logical_or(x, jnp.logical_not(y))
    if jnp.issubdtype(dt, jnp.integer):
        pos = _int_pow(x, jnp.maximum(y, 0))
        if not jnp.issubdtype(dt, jnp.signedinteger):
            return pos
        # torch's integer pow with a negative exponent: 1 for base 1, +-1 for base -1, else 0
        neg = jnp.where(x == 1, 1, jnp.where(x == -1, jnp.where(y % 2 == 0, 1, -1), 0)).astype(dt)
        return jnp.where(y < 0, neg, pos)
    return _pow(x, y)


def _torch_partials(fwd, weights):
    """Real binary ``fwd`` with torch's derivative formulas as its JVP: ``weights(x, y)`` gives the partials in
    x and y (torch's values at ties, zeros, infinities and NaNs, not JAX's); other dtypes run ``fwd`` as is."""
    @jax.custom_jvp
    def f(x, y):
        return fwd(x, y)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        wx, wy = weights(x, y)
        out = fwd(x, y)
        return out, jnp.broadcast_to(tx * wx.astype(tx.dtype) + ty * wy.astype(ty.dtype), out.shape)

    def call(x, y):
        return f(x, y) if jnp.issubdtype(jnp.result_type(x, y), jnp.floating) and \
            jnp.result_type(x) == jnp.result_type(y) else fwd(x, y)
    return call


def _pow_partials(x, y):
    # torch's pow_backward_self / pow_backward_exponent: 0 for the base where the exponent is 0 (JAX: 0 * inf
    # = NaN at a zero base), 0 for the exponent where the base is 0 and the exponent >= 0, else result * log(x)
    r = jnp.power(x, y)
    return (jnp.where(y == 0, jnp.zeros((), r.dtype), y * jnp.power(x, y - 1)),
            jnp.where((x == 0) & (y >= 0), jnp.zeros((), r.dtype), r * jnp.log(x)))


_pow = _torch_partials(jnp.power, _pow_partials)


@register(inplace=True, out=True, promote="result_type", dunders=("__pow__",), checks=(C.POW_ARGS, C.POW_BOOL))
def pow(input, exponent):
    """``input ** exponent`` with torch promotion (int tensors with negative int powers raise)."""
    d = _dtype.result_type(input, exponent)
    if d._kind == 1 and not isinstance(exponent, Tensor) and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(exponent, (int, float)) and not isinstance(exponent, bool) and isinstance(input, Tensor):
        if type(exponent) is float and not exponent.is_integer() and abs(exponent) != 0.5 and \
                (d.is_floating_point or d.is_complex):
            # a general float power: the exponent is an argument of the program (one compilation for every
            # value); integers and +-0.5 stay constants, where XLA lowers them to multiplies and square roots
            return laid_out(dispatch(_pow_float_scalar_impl, (input, exponent), (("dt", d.np),),
                                     name="PowBackward0"), input)
        return laid_out(dispatch(_pow_scalar_impl, (input,), (("dt", d.np), ("e", exponent)), name="PowBackward0"),
                        input)
    return laid_out(dispatch(_pow_impl, (input, exponent), (("dt", d.np),),
                             name="PowBackward1" if isinstance(input, Tensor) else "PowBackward2"), input, exponent)


def _pow_scalar_impl(x, dt, e):
    x = cast(x, dt)
    if dt == np.bool_:  # bool ** bool stays bool: x ** 1 == x, x ** 0 == True
        return x if e else jnp.ones_like(x)
    if isinstance(e, int) or float(e).is_integer() and abs(e) < 64:
        e = int(e)
        if e >= 0 or not jnp.issubdtype(dt, jnp.integer):
            return lax.integer_pow(x, e) if e >= 0 else 1 / lax.integer_pow(x, -e)
    return jnp.power(x, cast(e, dt))


def _pow_float_scalar_impl(x, e, dt):
    return jnp.power(cast(x, dt), cast(e, dt))


register("__rpow__", namespaces=(), promote="none")(lambda self, other: pow(other, self))
register("__ipow__", namespaces=(), promote="none")(lambda self, other: self.pow_(other))


@_mfmt.pointwise_follows((0, "input"), (1, "exponent"))
def _float_power(input, exponent):
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(exponent).__name__})")
    d = _dtype.complex128 if _dtype.result_type(input, exponent).is_complex else _dtype.float64
    return dispatch(_pow_impl, (input, exponent), (("dt", d.np),), name="PowBackward1")


register("float_power", promote="float", out=True)(_float_power)


def _fmod(x, y):
    return jnp.fmod(x, y)


def _remainder(x, y):
    if jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.remainder(x, y)
    return _float_remainder(x, y)


def _float_remainder_fwd(x, y):
    r = jnp.fmod(x, y)
    return jnp.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


# torch's: grad for x, -grad * div(x, y, rounding_mode='floor') for y (its fmod-based floor division:
# -0.25 // -0.001 is 249, where floor of the rounded quotient is 250)
_float_remainder = _torch_partials(_float_remainder_fwd, lambda x, y: (
    jnp.ones((), x.dtype), -_floor_div_float(*jnp.broadcast_arrays(x, y))))


binary("fmod", _fmod, tensor_node="FmodBackward1", checks=(C.TENSOR_OR_NUMBER_OTHER, C.DIVISION, C.INT_DIVISOR))
binary("remainder", _remainder, dunders=("__mod__",), tensor_node="RemainderBackward1",
       checks=(C.DIVISION, C.INT_DIVISOR))


@register("__rmod__", namespaces=(), promote="none")
def _rmod(self, other):
    if type(other) is np.ndarray:  # (torch's ``%`` takes no array: Python then raises its TypeError)
        raise TypeError(f"unsupported operand type(s) for %: 'numpy.ndarray' and '{type(self).__name__}'")
    return Tensor.remainder(other if isinstance(other, Tensor) else self.new_tensor(other), self)


def _atan2_partials(x, y):
    # torch's atan2_backward: y / (x^2 + y^2) and -x / (x^2 + y^2), with the reciprocal's inf (the origin)
    # masked to 0 (JAX: NaN there)
    recip = exact_div(jnp.ones((), x.dtype), x * x + y * y)
    recip = jnp.where(jnp.isinf(recip), jnp.zeros((), x.dtype), recip)
    return y * recip, -x * recip


_atan2 = _torch_partials(jnp.arctan2, _atan2_partials)


binary("atan2", _atan2, promote="float", aliases=("arctan2",), checks=(C.tensors_only, C.NO_COMPLEX))
def _hypot_partials(x, y):
    # torch's: x / result and y / result (NaN at the origin, where JAX's gives 1/2)
    r = jnp.hypot(x, y)
    return exact_div(x, r), exact_div(y, r)


_hypot = _torch_partials(jnp.hypot, _hypot_partials)


binary("hypot", _hypot, checks=(C.tensors_only, C.REAL_ONLY))
@jax.custom_jvp
def _copysign(x, y):
    return jnp.copysign(x, y)


@_copysign.defjvp
def _copysign_jvp(primals, tangents):
    # torch's: result / x for x, masked to 0 where x == 0 (NaN at inf and NaN); nothing for y
    (x, y), (tx, _) = primals, tangents
    r = jnp.copysign(x, y)
    d = jnp.where(x == 0, jnp.zeros((), r.dtype), exact_div(r, jnp.where(x == 0, 1, x).astype(r.dtype)))
    return r, tx * d


binary("copysign", _copysign, promote="float", checks=(C.TENSOR_OR_NUMBER_OTHER, C.NO_COMPLEX))


@jax.custom_jvp
def _nextafter(x, y):
    return jnp.nextafter(x, y)


@_nextafter.defjvp
def _nextafter_jvp(primals, tangents):
    # torch's derivative: the gradient passes to ``input`` unchanged (broadcast), ``other`` gets zero
    out = _nextafter(*primals)
    return out, jnp.broadcast_to(tangents[0], out.shape)


binary("nextafter", _nextafter, checks=(C.tensors_only,), opmath_half=False)
# (torch's ldexp_ is ``self.mul_(2 ** other)``: other's memory is not what mul_ reads)
binary("ldexp", lambda x, y: x * jnp.exp2(y), promote="float", checks=(C.tensors_only,), inplace_overlap="internal")
# torch's: log(y) for x, masked to 0 where x == 0 and y <= 0 (JAX's: -inf / NaN there), and x / y for y
_xlogy = _torch_partials(jss.xlogy, lambda x, y: (
    jnp.where((x == 0) & (y <= 0), jnp.zeros((), x.dtype), jnp.log(y)), exact_div(x, y)))


# float16/bfloat16: torch's scalar kernel, x * std::log(y) with the log stored in the half type
binary("xlogy", log_rounded_half(_xlogy, lambda x, y, lh: jnp.where(
    jnp.isnan(y), jnp.nan, jnp.where(x == 0, 0.0, x * lh(jnp.log, y)))),
    promote="float", checks=(C.NO_COMPLEX,), opmath_half=False)
# torch's: 1 / (1 + exp(y - x)) and 1 / (1 + exp(x - y)): 1/2 each at a tie, also of huge or infinite values
# (NaN at inf == inf), where JAX's gives 1 to both
_real_logaddexp = _torch_partials(jnp.logaddexp, lambda x, y: (
    1 / (1 + jnp.exp(y - x)), 1 / (1 + jnp.exp(x - y))))


def _logaddexp(x, y):
    if not jnp.iscomplexobj(x):
        return _real_logaddexp(x, y)
    # torch's complex form: max + log1p(exp(min - max)) ordered by real part (the imaginary part is not
    # wrapped into (-pi, pi] as log(exp(x) + exp(y)) would), nan in, nan out; equal infinite real parts:
    # -inf returns min, +inf the plain formula
    swap = jnp.real(x) < jnp.real(y)
    mx, mn = jnp.where(swap, y, x), jnp.where(swap, x, y)
    r = jnp.log1p(jnp.exp(mn - mx)) + mx
    inf_eq = ~jnp.isfinite(jnp.real(mn)) & (jnp.real(mn) == jnp.real(mx))
    r = jnp.where(inf_eq, jnp.where(jnp.real(mn) < 0, mn, jnp.log(jnp.exp(mn) + jnp.exp(mx))), r)
    nan = jnp.isnan(jnp.real(mn)) | jnp.isnan(jnp.imag(mn))
    return jnp.where(nan, jnp.full_like(r, complex(np.nan, np.nan)), r)


binary("logaddexp", _logaddexp, checks=(C.tensors_only, C.REAL_FLOAT))
binary("logaddexp2", jnp.logaddexp2, checks=(C.tensors_only, C.REAL_ONLY))
def _max_w(x, y):  # torch: where(x == y, g / 2, g), masked to 0 for the smaller one (a NaN: both get g)
    return jnp.where(x == y, 0.5, jnp.where(x < y, 0.0, 1.0)), jnp.where(x == y, 0.5, jnp.where(x > y, 0.0, 1.0))


def _min_w(x, y):
    return jnp.where(x == y, 0.5, jnp.where(x > y, 0.0, 1.0)), jnp.where(x == y, 0.5, jnp.where(x < y, 0.0, 1.0))


def _fmax_w(x, y):  # torch: all of g to x where x >= y or y is NaN, else to y (no split at ties)
    to_x = (x >= y) | jnp.isnan(y)
    return to_x, ~to_x


def _fmin_w(x, y):
    to_x = (x <= y) | jnp.isnan(y)
    return to_x, ~to_x


for _n, _f in [("maximum", _torch_partials(jnp.maximum, _max_w)), ("minimum", _torch_partials(jnp.minimum, _min_w)),
               ("fmax", _torch_partials(jnp.fmax, _fmax_w)), ("fmin", _torch_partials(jnp.fmin, _fmin_w))]:
    binary(_n, _f, inplace=False, checks=(C.tensors_only, C.EXTREMUM))
binary("heaviside", lambda x, y: jnp.where(x == 0, y, (x > 0).astype(x.dtype)), differentiable="heaviside",
       checks=(C.HEAVISIDE,))

# --- comparisons and logic (bool results) ------------------------------------------------------
for _n, _f, _h, _d, _al in [("eq", jnp.equal, np.equal, "__eq__", ()),
                            ("ne", jnp.not_equal, np.not_equal, "__ne__", ("not_equal",)),
                            ("lt", jnp.less, np.less, "__lt__", ("less",)),
                            ("le", jnp.less_equal, np.less_equal, "__le__", ("less_equal",)),
                            ("gt", jnp.greater, np.greater, "__gt__", ("greater",)),
                            ("ge", jnp.greater_equal, np.greater_equal, "__ge__", ("greater_equal",))]:
    binary(_n, _f, promote="bool", differentiable=False, dunders=(_d,), aliases=_al, host=_h,
           checks=(C.COMPARISON,) if _n in ("eq", "ne") else (C.COMPARISON, C.ORDERING))
for _n, _f in [("logical_and", jnp.logical_and), ("logical_or", jnp.logical_or),
               ("logical_xor", jnp.logical_xor)]:
    binary(_n, _f, promote="bool", differentiable=False, checks=(C.tensors_only,))
for _n, _f, _d, _r in [("bitwise_and", jnp.bitwise_and, "__and__", "__rand__"),
                       ("bitwise_or", jnp.bitwise_or, "__or__", "__ror__"),
                       ("bitwise_xor", jnp.bitwise_xor, "__xor__", "__rxor__"),
                       ("bitwise_left_shift", jnp.left_shift, "__lshift__", "__rlshift__"),
                       ("bitwise_right_shift", jnp.right_shift, "__rshift__", "__rrshift__")]:
    binary(_n, _f, differentiable=False, int_only=True, dunders=(_d,), rdunders=(_r,),
           checks=(C.SHIFT_GCD if "shift" in _n else C.BITWISE,))
register("__iand__", namespaces=(), promote="none")(lambda self, o: self.bitwise_and_(o))
register("__ior__", namespaces=(), promote="none")(lambda self, o: self.bitwise_or_(o))
register("__ixor__", namespaces=(), promote="none")(lambda self, o: self.bitwise_xor_(o))
register("__ilshift__", namespaces=(), promote="none")(lambda self, o: self.bitwise_left_shift_(o))
register("__irshift__", namespaces=(), promote="none")(lambda self, o: self.bitwise_right_shift_(o))
register("__imod__", namespaces=(), promote="none")(lambda self, o: self.remainder_(o))
binary("gcd", jnp.gcd, differentiable=False, int_only=True, checks=(C.tensors_only, C.SHIFT_GCD))
binary("lcm", jnp.lcm, differentiable=False, int_only=True, checks=(C.tensors_only, C.SHIFT_GCD))
