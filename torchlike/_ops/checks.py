"""Argument checks an op declares (``register(..., checks=...)``): torch's dtype restrictions and argument-type
errors that JAX would not raise (JAX happily computes floor of a bool or sign of a complex).

A check is ``check(name, *args, **kwargs)``: it raises torch's exception for the call or returns None.
``register`` wraps the op once, when its entry is built, so the function, the method, the in-place and
``out=`` forms, the dunders and module-level references all carry the same checks.  ``name`` is the
surface's name (an alias such as ``fix`` or ``not_equal`` gets its own).

    >>> import torchlike
    >>> torchlike._ops.registry.TABLE['torch', 'floor'].checks[0] is torchlike._ops.checks.ROUNDING
    True
"""
from __future__ import annotations

import operator

from .._errors import argument_error, broadcast_error, is_tracer, method_argument_error, tp_name
from .. import _dtype
from .._grad_mode import is_grad_enabled
from ..tensor import Tensor

__all__ = ["reject_types", "not_implemented", "unary_kinds", "binary_kinds", "tensors_only", "need_tensors", "invalid_combination", "ABS", "NEG",
           "POSITIVE", "ROUNDING", "ROUND", "FRAC", "SIGN", "NO_COMPLEX_VML", "DIGAMMA", "DEG_RAD", "BITWISE_NOT",
           "INF_TEST", "SIGNBIT", "RELU", "BITWISE", "SHIFT_GCD", "REAL_FLOAT", "REAL_ONLY", "DIVISION", "NO_COMPLEX",
           "POW_BOOL", "POW_ARGS", "COMPARISON", "ORDERING", "EXTREMUM", "INT_DIVISOR", "broadcast_first", "RSUB", "HEAVISIDE", "SPECIAL_UNARY", "SPECIAL_BINARY",
           "TENSOR_OR_NUMBER_OTHER"]

# dtype kinds (``dtype._kind``): 0 bool, 1 integer, 2 floating, 3 complex
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


def _cap(d):
    return _dtype._CAP[d.name]


def _fits(value, expected):
    if expected == "Tensor":
        return isinstance(value, Tensor)
    if expected == "bool":
        return value is True or value is False
    try:  # "int": what indexes (numpy's integers, a one-element integer tensor)
        operator.index(value)
    except (TypeError, RuntimeError):
        return False
    return True


def reject_types(op, *specs):
    """For an op's failure path (its body rejected a value, or read a tensor attribute of a non-Tensor): raise
    torch's parser TypeError for the first of ``specs`` whose Python type torch's signature rejects, as its parser
    runs before the op's checks; return where every one fits (the caller re-raises its own error).  The op's
    ``try`` costs nothing on the success path.  ``specs``: ``(value, expected, name, position)``, ``expected``
    "Tensor", "bool" or "int", ``position`` the method's (see _errors.method_argument_error).

    >>> try:
    ...     reject_types("mm", ("x", "Tensor", "mat2", 1))
    ... except TypeError as e:
    ...     print(e)
    mm(): argument 'mat2' (position 1) must be Tensor, not str
    """
    for value, expected, name, position in specs:
        if not _fits(value, expected):
            raise method_argument_error(value, expected, name, op, position) from None


def not_implemented(kernel, d):
    """torch's error for a kernel without an implementation for dtype ``d``."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{_cap(d)}\'')


def unary_kinds(bad, err):
    """Reject an input tensor whose dtype kind is in ``bad`` with ``err(name, dtype)``."""
    def check(n, input, *a, **k):
        if isinstance(input, Tensor) and input.dtype._kind in bad:
            raise err(n, input.dtype)
    check.kinds = frozenset(bad)  # unary() runs these inline on the dtype it reads anyway
    return check


_KERNEL = {"bitwise_and": "bitwise_and_cpu", "bitwise_or": "bitwise_or_cpu", "bitwise_xor": "bitwise_xor_cpu",
           "bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu", "gcd": "gcd_cpu",
           "lcm": "lcm_cpu", "hypot": "hypot_cpu", "logaddexp": "logaddexp_cpu", "logaddexp2": "logaddexp2_cpu",
           "floor_divide": "div_floor_cpu", "remainder": "remainder_cpu", "fmod": "fmod_cpu", "pow": "pow",
           "atan2": "atan2_cpu", "arctan2": "atan2_cpu", "copysign": "copysign_cpu", "xlogy": "xlogy_cpu"}


def broadcast_first(input, other):
    """torch's TensorIterator broadcasts the operands before its kernel looks at their dtype: a shape clash
    is the error a call with both flaws gets (run on a check's failure path only)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        err = broadcast_error((tuple(input.shape), tuple(other.shape)))
        if err is not None:
            raise err


def binary_kinds(bad, kernel=None):
    """Reject a binary call whose promoted dtype kind is in ``bad`` (torch names the CPU kernel; ``kernel``:
    the exception for ``(name, dtype)`` instead of the ``_KERNEL`` table's NotImplementedError)."""
    def check(n, input, other, *a, **k):
        d = _dtype.result_type(input, other)
        if d._kind in bad:
            if input is None or other is None or a or set(k) - {"out"}:  # (None promotes as nothing)
                got = [type(v).__name__ for v in (input, other, *a)] + [f"{key}={type(v).__name__}" for key, v in k.items()]
                raise TypeError(f"{n}() received an invalid combination of arguments - got ({', '.join(got)})")
            broadcast_first(input, other)
            raise kernel(n, d) if kernel else not_implemented(_KERNEL[n], d)
    return check


def _has_zero(other):
    if isinstance(other, Tensor):
        return not is_tracer(other._value) and other.numel() > 0 and not bool(other.all())
    return other == 0


def INT_DIVISOR(n, input, other, *a, **k):
    """torch's integer fmod/remainder kernels refuse a zero divisor (``RuntimeError: ZeroDivisionError``)."""
    if isinstance(other, (Tensor, int)) and _dtype.result_type(input, other)._kind in (_BOOL, _INT) and \
            _has_zero(other):
        broadcast_first(input, other)
        raise RuntimeError("ZeroDivisionError")


def tensors_only(n, input, other, *a, **k):
    """torch's Tensor-only overloads: no Python scalar on either side."""
    for pos, (arg, v) in enumerate((("input", input), ("other", other))):
        if not isinstance(v, Tensor):
            raise TypeError(f"{n}(): argument '{arg}' (position {pos + 1}) must be Tensor, not {tp_name(v)}")


def need_tensors(op, **args):
    """torch's argument parser: these positional arguments (in order, from position 1) must be Tensors.
    ``need_tensors("kl_div", input=input, target=target)``; ``_start`` (default 1) numbers the first."""
    start = args.pop("_start", 1)
    for pos, (name, v) in enumerate(args.items(), start):
        if not isinstance(v, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {tp_name(v)}")


def not_differentiable(op, **args):
    """torch's refusal, under grad mode, of an argument that requires grad where its ATen op has no gradient
    formula for it (``nll_loss_forward``'s ``weight``, ``soft_margin_loss``'s ``target``, the running stats)."""
    if is_grad_enabled():
        for name, v in args.items():
            if isinstance(v, Tensor) and v.requires_grad:
                raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument '{name}'. "
                                   "This input cannot have requires_grad True.")


def invalid_combination(sigs, first_tensor=True):
    """torch's parser error when ``input`` (or, with first_tensor=False, both arguments) is not a Tensor."""
    def check(n, input, other, *a, **k):
        if isinstance(input, Tensor) or (not first_tensor and isinstance(other, Tensor)):
            return
        got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in (input, other))
        raise TypeError(f"{n}() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n" + "".join(f" * ({sg})\n" for sg in sigs))
    return check


# fmod, copysign: ``other`` may be a Number, ``input`` may not
TENSOR_OR_NUMBER_OTHER = invalid_combination(["Tensor input, Tensor other, *, Tensor out = None",
                                              "Tensor input, Number other, *, Tensor out = None"])


# --- unary ---------------------------------------------------------------------------------------------------
ABS = unary_kinds({_BOOL}, lambda n, d: not_implemented("abs_cpu", d))
NEG = unary_kinds({_BOOL}, lambda n, d: RuntimeError(
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
    "`~` or `logical_not()` operator instead."))
POSITIVE = unary_kinds({_BOOL}, lambda n, d: RuntimeError("The `+` operator, on a bool tensor is not supported."))


def _rounding_error(n, d):
    kernel = "trunc" if n == "fix" else n
    if d._kind == _BOOL:
        return not_implemented(f"{kernel}_vml_cpu", d)
    return NotImplementedError(f"{kernel} is not supported for complex inputs")


ROUNDING = unary_kinds({_BOOL, _COMPLEX}, _rounding_error)  # floor, ceil, trunc, fix


def ROUND(n, input, *a, decimals=None, **k):
    """round of a bool or complex tensor, or of an integer one given ``decimals`` (torch's round.decimals
    overload): torch names the kernel it lacks, ``round_cpu`` with nonzero ``decimals``, ``round_vml_cpu`` else."""
    if not isinstance(input, Tensor):  # (a number, a list: torch's parser error; a method's self is a Tensor)
        raise argument_error(input, "Tensor", "input", n, 1)
    if input.dtype._kind in (_BOOL, _COMPLEX) or (decimals is not None and input.dtype._kind == _INT):
        raise not_implemented("round_cpu" if decimals else "round_vml_cpu", input.dtype)
FRAC = unary_kinds({_BOOL, _INT, _COMPLEX}, lambda n, d: not_implemented("frac_cpu", d))
SIGN = unary_kinds({_COMPLEX}, lambda n, d: NotImplementedError(
    "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."))
NO_COMPLEX_VML = unary_kinds({_COMPLEX}, lambda n, d: not_implemented(f"{n}_vml_cpu", d))  # erf, lgamma, i0, ...
DIGAMMA = unary_kinds({_COMPLEX}, lambda n, d: not_implemented("digamma", d))
DEG_RAD = unary_kinds({_COMPLEX}, lambda n, d: RuntimeError(f"{n} is not supported for complex tensors."))
BITWISE_NOT = unary_kinds({_FLOAT, _COMPLEX}, lambda n, d: not_implemented("bitwise_not_cpu", d))
INF_TEST = unary_kinds({_COMPLEX}, lambda n, d: RuntimeError(f"{n} does not support complex inputs."))
SIGNBIT = unary_kinds({_COMPLEX}, lambda n, d: NotImplementedError("signbit is not implemented for complex tensors."))
RELU = unary_kinds({_BOOL, _COMPLEX}, lambda n, d: RuntimeError("Boolean inputs not supported for relu") if
                   d._kind == _BOOL else NotImplementedError("clamp is not supported for complex types"))

# --- binary --------------------------------------------------------------------------------------------------
BITWISE = binary_kinds({_FLOAT, _COMPLEX})  # bitwise_and/or/xor
SHIFT_GCD = binary_kinds({_BOOL, _FLOAT, _COMPLEX})  # shifts, gcd, lcm
REAL_FLOAT = binary_kinds({_BOOL, _INT})  # logaddexp (complex allowed)
REAL_ONLY = binary_kinds({_BOOL, _INT, _COMPLEX})  # hypot, logaddexp2
DIVISION = binary_kinds({_BOOL, _COMPLEX})  # floor_divide, remainder, fmod
NO_COMPLEX = binary_kinds({_COMPLEX})  # atan2, copysign
_ORDER_KERNEL = {"less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge"}
ORDERING = binary_kinds({_COMPLEX}, lambda n, d: not_implemented(f"{_ORDER_KERNEL.get(n, n)}_cpu", d))  # lt le gt ge
EXTREMUM = binary_kinds({_COMPLEX}, lambda n, d: RuntimeError(f"{n} not implemented for complex tensors."))


def POW_BOOL(n, input, exponent, *a, **k):
    if isinstance(exponent, Tensor) and _dtype.result_type(input, exponent) is _dtype.bool:
        raise not_implemented("pow", _dtype.bool)


_SIG_CMP = ["Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None"]
COMPARISON = invalid_combination(_SIG_CMP)
RSUB = invalid_combination(["Tensor input, Tensor other, *, Number alpha = 1",
                            "Tensor input, Number other, Number alpha = 1"])
POW_ARGS = invalid_combination(["Tensor input, Tensor exponent, *, Tensor out = None",
                                "Number self, Tensor exponent, *, Tensor out = None",
                                "Tensor input, Number exponent, *, Tensor out = None"], first_tensor=False)


def HEAVISIDE(n, input, values, *a, **k):
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {tp_name(values)}")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


# --- torch.special: the kernels reject complex inputs (and igamma rejects integer ones) by kernel name ------
def SPECIAL_UNARY(n, input, *a, **k):
    if isinstance(input, Tensor) and input.dtype.is_complex:
        raise not_implemented({"ndtr": "erf_vml_cpu"}.get(n, f"{n}_cpu"), input.dtype)


_IGAMMA = {"gammainc": "igamma_cpu", "gammaincc": "igammac_cpu", "igamma": "igamma_cpu", "igammac": "igammac_cpu"}


def SPECIAL_BINARY(n, input, other, *a, **k):
    d = _dtype.result_type(input, other)
    if d.is_complex or (n in _IGAMMA and d._kind <= 1):
        raise not_implemented(_IGAMMA.get(n, f"{n}_cpu"), d)
