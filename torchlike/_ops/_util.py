"""Helpers shared by op declarations: argument normalisation and pointwise op builders."""
from __future__ import annotations

import math
import numbers
import operator
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype
from .. import _memory_format as _mfmt, _views
from .._shape_churn import as_exact, host_impl, quiet
from .._scalar_fit import float_to_int
from .. import _torch_function
from .._dispatch import HOST_DTYPES, dispatch, host_operand, host_pointwise
from .._errors import PACKAGE_DIR, SIZE_ARG_NAMES, argument_error, caller_op, extra_arguments_error, tp_name
from ..tensor import Tensor, _wrap_dim
from ._parser_errors import NO_ARGUMENT_METHODS
from .registry import register
from .._creation import tensor

__all__ = ["as_tensor_arg", "check_broadcast", "wrap_dim", "dims_arg", "cast", "camel", "unary", "binary", "is_tensor",
           "float_dtype_for", "is_symbolic", "dispatch", "Tensor", "register", "shape_arg"]

is_tensor = lambda x: isinstance(x, Tensor)  # noqa: E731
wrap_dim = _wrap_dim


def camel(name):
    """torch's backward node name for op ``name``: ``log1p`` -> ``Log1PBackward0`` (a letter after a digit
    is capitalised, as in torch's generated names)."""
    s = "".join(p.capitalize() for p in name.strip("_").split("_"))
    return re.sub(r"(?<=\d)[a-z]", lambda m: m.group(0).upper(), s) + "Backward0"


def check_broadcast(a_shape, b_shape):
    """Raise torch's error when two shapes don't broadcast (it names the right-most clashing dimension)."""
    x, y = tuple(a_shape), tuple(b_shape)
    n = max(len(x), len(y))
    x, y = (1,) * (n - len(x)) + x, (1,) * (n - len(y)) + y
    for i in range(n - 1, -1, -1):
        if x[i] != y[i] and x[i] != 1 and y[i] != 1:
            raise RuntimeError(f"The size of tensor a ({x[i]}) must match the size of tensor b ({y[i]}) at "
                               f"non-singleton dimension {i}")


def cast(x, dt):
    """Cast an array or Python scalar to numpy dtype ``dt`` (inside a traced op function)."""
    if isinstance(x, (bool, int, float, complex)):
        return jnp.asarray(x, dtype=dt)
    if x.dtype == jnp.bool_ and jnp.issubdtype(dt, jnp.inexact):
        # XLA rewrites convert(pred) * y and convert(pred) / y into select(pred, ..., 0), which gives 0
        # instead of nan for False * inf and False / False; the barrier keeps IEEE semantics
        return lax.optimization_barrier(lax.convert_element_type(x, dt))
    if x.dtype == dt:
        return x
    if jnp.issubdtype(x.dtype, jnp.complexfloating) and not jnp.issubdtype(dt, jnp.complexfloating):
        x = jnp.real(x)
        if x.dtype == dt:
            return x
    if jnp.issubdtype(x.dtype, jnp.floating) and jnp.issubdtype(dt, jnp.integer):
        r = float_to_int(x, dt)  # torch's x86 conversion: out of range and NaN are not XLA's saturation
        if r is not None:
            return r
    return lax.convert_element_type(x, dt)


def as_tensor_arg(x, dtype=None):
    """A Tensor for a tensor-or-scalar argument."""
    if isinstance(x, Tensor):
        return x
    return tensor(x, dtype=dtype)


def exact_div(x, y):
    """``x / y`` rounded as a true division, as torch's kernels divide.  XLA's simplifier turns ``a / b`` for a
    broadcast or constant ``b`` into ``a * (1 / b)``, which rounds differently in about a third of float32
    elements; behind an optimization barrier the divisor stays a divisor.  ``y`` is an array or a number
    (a count: ``mean``'s n), cast to ``x``'s dtype.

    >>> import jax.numpy as jnp
    >>> float(exact_div(jnp.float32(3.0), 7)) == float(jnp.float32(3.0) / jnp.float32(7.0))
    True
    """
    return x / exact_divisor(x, jnp.asarray(y, x.dtype) if not hasattr(y, "dtype") else y)


def exact_divisor(x, y):
    """``y``, broadcast to the quotient's shape, behind an optimization barrier when it is floating (see
    ``exact_div``); a full-shape ``y`` goes behind it too, as it may itself be a broadcast (a fused view)."""
    if not jnp.issubdtype(jnp.result_type(y), jnp.inexact):
        return y
    return lax.optimization_barrier(jnp.broadcast_to(y, jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))))


def exact_mean(x, axis=None, keepdims=False):
    """torch's mean: ``sum(x) / n`` with a true division (``exact_div``; ``jnp.mean``'s ``sum / n`` becomes
    ``sum * (1 / n)`` in XLA).  Half types (computed in float32 by ``jnp.mean``, as torch) and symbolic sizes
    keep ``jnp.mean``.

    >>> import jax.numpy as jnp
    >>> float(exact_mean(jnp.array([1.0, 2.0, 4.0], jnp.float32)))
    2.3333332538604736
    """
    sizes = [x.shape[d] for d in (range(x.ndim) if axis is None else axis)]
    if x.dtype in (jnp.float16, jnp.bfloat16) or [n for n in sizes if not isinstance(n, int)]:
        return jnp.mean(x, axis=axis, keepdims=keepdims)
    return exact_div(jnp.sum(x, axis=axis, keepdims=keepdims), math.prod(sizes))


def dims_arg(dim, ndim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of non-negative dims, or None."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        return (_wrap_dim(int(dim), ndim),)
    if isinstance(dim, Tensor):  # (torch's parser: a one-element integer or bool tensor is a dim; no tensor a list)
        if dim.numel() == 1 and not (dim.dtype.is_floating_point or dim.dtype.is_complex):
            return (_wrap_dim(int(dim.item()), ndim),)
        raise argument_error(dim, "tuple of ints", "dim")
    try:
        dims = tuple(_wrap_dim(operator.index(d), ndim) for d in dim)
    except TypeError:  # a str, a float, None, or a sequence holding one: torch's parser error
        raise argument_error(dim, "tuple of ints", "dim") from None
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def keyword_shape(args, keyword, op, name):
    """A varargs-shape method's sizes, or torch's keyword form of them: ``x.reshape(shape=(2, 3))``,
    ``x.expand(size=...)``, ``x.permute(dims=...)`` (``keyword`` is the value given for ``name``, or None).

    >>> keyword_shape((), (2, 3), "reshape", "shape")
    ((2, 3),)
    """
    if keyword is None:
        if not args:  # (torch's parser's words, its plural and singular swapped as in its source)
            raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (keyword,)


def shape_arg(args):
    """``f(2, 3)`` or ``f((2, 3))`` or ``f(torch.Size)`` -> (2, 3)."""
    given = args
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    for a in args:  # (the common case first: plain ints, returned as they are)
        if type(a) is not int:
            break
    else:
        return tuple(args)
    out = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            if args is given and len(args) == 1 and _namespace_call():  # torch.reshape(x, t): one int-list argument
                op = caller_op()
                raise argument_error(a, "tuple of ints", _SIZE_ARG_NAMES.get(op, "size"), op, 2)
            if a.numel() != 1:  # torch's parser takes a one-element tensor as an int, nothing larger
                raise _size_element_error(i, a, given)
            a = int(a.item())
        if is_symbolic(a):  # a symbolic dimension (torchlike.export with dynamic shapes)
            out.append(a)
            continue
        if not isinstance(a, (numbers.Integral, np.integer)) or isinstance(a, bool):
            raise _size_element_error(i, a, given)
        out.append(int(a))
    return tuple(out)


_SIZE_ARG_NAMES = SIZE_ARG_NAMES  # (the rest call theirs 'size')


def _namespace_call():
    """Whether the user called the namespace function of a size-taking op (``torch.reshape(x, t)``, ``torch.tile``:
    the op table's wrapper counting positions with ``self``) rather than its method, whose varargs torch's parser
    reads a lone one-element tensor from as a size (``x.reshape(t)``).  Read on the rare path of a Tensor size."""
    f = outer = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIR):
        outer, f = f, f.f_back
    return outer.f_code.co_name == "typed" and outer.f_locals.get("positions") is True


def _size_element_error(i, a, given):
    """torch's parser error for a size element that is not an int (``given``: the arguments as passed): past the
    first, it 'failed to unpack'; a first one is not an int list at all (several arguments: then they are too
    many; view: then no overload, its dtype one either, takes them)."""
    op = caller_op()
    arg = _SIZE_ARG_NAMES.get(op, "size")
    if i:
        return TypeError(f"{op}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                         f"\"type must be tuple of ints,but got {type(a).__name__}\"")
    packed = len(given) == 1 and isinstance(given[0], (tuple, list))
    if op == "view":
        got = ", ".join(tp_name(g) for g in given)
        if len(given) > 1:
            return TypeError(f"view() received an invalid combination of arguments - got ({got}), but expected one "
                             "of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n")
        shown = (f"{tp_name(given[0])} of ({', '.join(tp_name(g) for g in given[0])},)" if packed
                 else got)
        why = f"      didn't match because some of the arguments have invalid types: (!{shown}!)\n"
        return TypeError(f"view() received an invalid combination of arguments - got ({got}), but expected one "
                         f"of:\n * (torch.dtype dtype)\n{why} * (tuple of ints size)\n{why}")
    if len(given) > 1:
        return TypeError(f"{op}() takes 1 positional argument but {len(given)} were given")
    if not packed:
        return TypeError(f"{op}(): argument '{arg}' (position 1) must be tuple of ints, not {type(a).__name__}")
    return TypeError(f"{op}(): argument '{arg}' (position 1) must be tuple of ints, but found element of type "
                     f"{type(a).__name__} at pos {i}")


def is_symbolic(d):
    """True for a symbolic dimension of ``jax.export`` shape polymorphism."""
    return not isinstance(d, (int, np.integer)) and jax.export.is_symbolic_dim(d)


def float_dtype_for(d):
    """Result dtype of a float-valued op on dtype ``d`` (ints and bools go to the default float)."""
    return d if (d.is_floating_point or d.is_complex) else _dtype.get_default_dtype()


def _dt_of(x):
    return x.dtype if isinstance(x, Tensor) else _dtype.scalar_dtype(x)


_HALF = (np.dtype(jnp.float16), np.dtype(jnp.bfloat16))


def opmath(dt):
    """The dtype torch's CPU kernels compute ``dt`` in: float32 for float16/bfloat16, else ``dt`` itself."""
    return np.dtype(np.float32) if dt in _HALF else dt


_HOST_CHAIN = _views.HOST_CHAIN
_LAYOUT_SEEN = _mfmt.SEEN


def laid_out(r, a, b=None):
    """``r``, the fresh result of an elementwise op on ``a`` (and ``b``), in the layout torch's TensorIterator
    gives it: row-major unless an argument's strides are in another order (channels-last, a permuted view: see
    ``_memory_format``).  Free until some tensor has such strides (``_memory_format.SEEN``); then the common
    case (roots and host tensors, row-major) costs two slot reads per argument."""
    if not _LAYOUT_SEEN[0]:
        return r
    if isinstance(a, Tensor) and (a._st is not None or a._vbase is not None and a._chain is not _HOST_CHAIN) \
            and _mfmt.needs_layout(a) or \
            isinstance(b, Tensor) and (b._st is not None or b._vbase is not None and b._chain is not _HOST_CHAIN) \
            and _mfmt.needs_layout(b):
        return _mfmt.pointwise(r, (a,) if b is None else (a, b))
    return r


def round_to(a, dt):
    """float32 ``a`` rounded to the half type ``dt`` (nearest even, overflow to inf) and kept in float32:
    torch's half kernels store an intermediate in the half type before the next op.  Written with
    ``reduce_precision`` (and float16's subnormal grid, which it flushes): inside one compiled program XLA's
    CPU backend drops an ``astype(dt).astype(float32)`` pair (or fuses the multiply and add around it), so
    the rounding silently disappeared under jit.

    >>> import jax.numpy as jnp
    >>> float(round_to(jnp.float32(1.0001), jnp.float16))
    1.0
    """
    dt = np.dtype(dt)
    if dt == np.float16:
        normal = lax.reduce_precision(a, exponent_bits=5, mantissa_bits=10)
        return jnp.where(jnp.abs(a) < 2.0 ** -14, jnp.round(a * 2.0 ** 24) * 2.0 ** -24, normal)
    if dt == np.dtype(jnp.bfloat16):
        return lax.reduce_precision(a, exponent_bits=8, mantissa_bits=7)
    return a.astype(dt).astype(np.float32)


_round = round_to


def _sigmoid_out_grad(t, y, dt):
    if dt == np.float16:  # torch's float16 kernel rounds each op: (g * (1 - y)) * y (bfloat16's rounds once)
        # (t is the tangent: its rounding must stay linear for JAX's transpose, so a cast pair, not round_to)
        return ((t * y).astype(dt).astype(np.float32) * _round(1 - y, dt)).astype(dt)  # (the transpose: g*(1-y) first)
    return (t * ((1 - y) * y)).astype(dt)


# torch's half-type backward kernels that read the op's rounded result y (tanh_backward, sigmoid_backward, exp's
# grad * result): g * slope(y) in float32, rounded. Differentiating the float32 math recomputed y unrounded:
# where bf16 tanh rounds to 1 torch's gradient is exactly 0, and ours was not (half of all gradients differed).
# Each is written as the tangent map (linear in t), which JAX transposes into the pullback
_HALF_OUT_GRADS = {"tanh": lambda t, y, dt: (t * (1 - y * y)).astype(dt), "sigmoid": _sigmoid_out_grad,
                   "exp": lambda t, y, dt: (t * y).astype(dt)}


def _rounded_output_grad(jfn, grad):
    """``jfn`` of a half-type array computed in float32 and rounded, differentiated from its rounded result."""
    @jax.custom_jvp
    def f(x):
        return jfn(x.astype(np.float32)).astype(x.dtype)

    @f.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = f(x)
        return y, grad(t.astype(np.float32), y.astype(np.float32), np.dtype(x.dtype))
    return f


def unary(name, jfn, *, promote="same", inplace=True, out=True, method=True, namespaces=("torch",),
          differentiable=True, saves=True, int_ok=True, dunders=(), aliases=(), doc=None, checks=(), aten=None,
          inplace_overlap=None, host=None, half=None):
    """Declare a pointwise unary op ``name`` computing ``jfn`` in the result dtype (float16/bfloat16 results
    of float-valued ops are computed in float32 and rounded, as torch's CPU kernels do).
    ``host``: ``{numpy dtype: f}`` where numpy's ``f(array)`` gives the op's exact result in that dtype, run first
    for a host-resident input (``_dispatch.host_operand``).  ``half``: ``half(x, dt)``, the float16/bfloat16 result
    (in float32) of a kernel that rounds intermediates to the half type ``dt`` (``x``: the input in float32)."""
    grad = _HALF_OUT_GRADS.get(name) if differentiable else None
    half_fn = None if grad is None else _rounded_output_grad(jfn, grad)

    def impl(x, dt):
        if promote == "float" and dt in _HALF:
            if half is not None:
                return half(cast(x, np.float32), dt).astype(dt)
            if half_fn is not None:
                return half_fn(cast(x, dt))
            return jfn(cast(x, np.float32)).astype(dt)
        return jfn(cast(x, dt))
    impl.__name__ = f"{name}_impl"
    if _EXACT_TWINS.get(jfn) is not None and promote != "float":
        host_impl(impl, _exact_unary_host(_EXACT_TWINS[jfn]))
    node_name = camel(name)

    # dtype-kind checks (checks.unary_kinds) run inline on the dtype read anyway: no wrapper on the hot path
    kind_checks = tuple(c for c in checks if hasattr(c, "kinds"))
    bad = frozenset().union(*(c.kinds for c in kind_checks))

    def public(input, *args):  # (no out=: this is the Tensor method too; the namespace function's out= is the
        if args:  # table's; args: torch's words for those given, see extra_arguments_error)
            raise extra_arguments_error(caller_op(), len(args), no_arguments=caller_op() in NO_ARGUMENT_METHODS)
        if host is not None:
            h = host_operand(input)
            if h is not None:
                f = host.get(h.dtype)
                if f is not None:
                    return Tensor._from_host(f(h), input._dev)
        if not isinstance(input, Tensor):
            if _torch_function.retry_with_overrides((input,), None):  # a tensor-like (linear_operator's)
                return _torch_function.redispatch(name, public, (input,), {})
            raise TypeError(f"{caller_op()}(): argument 'input' (position 1) must be Tensor, not "
                            f"{tp_name(input)}")  # (caller_op: an alias's name, ``absolute``, as torch's)
        d = input.dtype
        if d._kind in bad:
            for c in kind_checks:
                c(name, input)
        if promote == "float":
            d = float_dtype_for(d)
        elif promote != "bool" and not int_ok and not (d.is_floating_point or d.is_complex):
            raise RuntimeError(f'"{name}_impl" not implemented for \'{_dtype._CAP[d.name]}\'')
        r = dispatch(impl, (input,), (("dt", d.np),), name=node_name, diff=differentiable, saves=saves)
        return laid_out(r, input) if _LAYOUT_SEEN[0] else r
    public.__name__ = name
    public.__doc__ = doc or f"Elementwise ``{name}`` (torch.{name}).\n\n    >>> import torchlike\n    >>> " \
                            f"torchlike.{name}(torchlike.tensor([0.5])).shape\n    torch.Size([1])\n    "
    return register(name, namespaces=namespaces, method=method, inplace=inplace, out=out, promote=promote,
                    differentiable=differentiable, dunders=dunders, aliases=aliases,
                    checks=tuple(c for c in checks if c not in kind_checks), inline_checks=kind_checks,
                    aten=aten, inplace_overlap=inplace_overlap)(public)


# jnp functions whose numpy twins give the device program's exact results on integers and bools
# (_shape_churn computes such ops on the host for shapes that keep changing)
_EXACT_TWINS = {getattr(jnp, n): getattr(np, n) for n in (
    "multiply", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "bitwise_and",
    "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
    "invert", "logical_not")}


def _exact_binary_host(np_fn):
    def host(x, y, dt, out_dt):
        x, y = as_exact(x, dt), as_exact(y, dt)
        if x is None or y is None:
            return None
        r = quiet(np_fn, x, y)
        return r if out_dt is None else r.astype(out_dt)
    return host


def _exact_unary_host(np_fn):
    def host(x, dt):
        x = as_exact(x, dt)
        return None if x is None else quiet(np_fn, x)
    return host


def binary(name, jfn, *, promote="result_type", inplace=True, out=True, method=True, namespaces=("torch",),
           differentiable=True, saves=True, dunders=(), rdunders=(), aliases=(), int_only=False, doc=None,
           tensor_node=None, checks=(), aten=None, linear_with_scalar=False, opmath_half=True, numbers_ok=False,
           inplace_overlap=None, host=None):
    """Declare a pointwise binary op: torch promotion over tensors/scalars, then ``jfn`` in that dtype.

    ``numbers_ok``: two Python numbers give a 0-d tensor (torch's ``mul(2.0, 3.0)``), not the TypeError.

    ``linear_with_scalar``: with a Python number as either operand the gradient needs no tensor values
    (torch's ``mul.Scalar`` saves only the number), so later in-place writes to the tensor are no error.
    ``opmath_half``: float16/bfloat16 are computed in float32 and rounded once, as torch's CPU kernels do
    (False for ops that must see the half type itself, e.g. nextafter).
    ``host``: the numpy ufunc computing the op exactly in the operands' own dtype (mul, comparisons), which
    ``_dispatch.host_pointwise`` runs first for host-resident operands of one dtype."""
    def impl(x, y, dt, out_dt):
        if opmath_half and dt in _HALF:
            r = jfn(cast(x, np.float32), cast(y, np.float32))
            return cast(r, dt if out_dt is None else out_dt)
        r = jfn(cast(x, dt), cast(y, dt))
        return r if out_dt is None else cast(r, out_dt)
    impl.__name__ = f"{name}_impl"
    if _EXACT_TWINS.get(jfn) is not None:
        host_impl(impl, _exact_binary_host(_EXACT_TWINS[jfn]))
    node_name = camel(name)

    def fn(input, other):  # (no out=, as unary's public)
        if host is not None:
            r = host_pointwise(host, input, other, HOST_DTYPES)
            if r is not None:
                return r
        if not isinstance(input, Tensor) and not isinstance(other, Tensor) and not numbers_ok:
            raise TypeError(f"{caller_op()}(): argument 'input' (position 1) must be Tensor, not "
                            f"{tp_name(input)}")  # (caller_op: an alias's name, ``absolute``, as torch's)
        try:
            d = _dtype.result_type(input, other)
        except TypeError:  # an operand of another type: a tensor-like (keras's Variable) goes through its override
            if _torch_function.retry_with_overrides((input, other), None):
                return _torch_function.redispatch(name, fn, (input, other), {})
            raise
        out_dt = None
        if promote == "float":
            d = float_dtype_for(d)
        elif promote == "bool":
            out_dt = np.dtype(bool)
        elif int_only and (d.is_floating_point or d.is_complex):
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{_dtype._CAP[d.name]}\'')
        r = dispatch(impl, (input, other), (("dt", d.np), ("out_dt", out_dt)),
                     name=tensor_node if tensor_node and isinstance(other, Tensor) else node_name,
                     diff=differentiable,
                     saves=saves if not linear_with_scalar or (isinstance(input, Tensor) and
                                                               isinstance(other, Tensor)) else False)
        return laid_out(r, input, other)
    fn.__name__ = name
    if host is not None and promote == "result_type":  # (the result keeps the operands' dtype: mul, not the
        fn.host_ufunc = host, HOST_DTYPES              # comparisons) the in-place method's host path
    fn.__doc__ = doc or f"Elementwise ``{name}`` with broadcasting and torch type promotion.\n\n" \
                        f"    >>> import torchlike\n    >>> torchlike.{name}(torchlike.tensor([1., 2.]), " \
                        f"torchlike.tensor([3., 4.])).shape\n    torch.Size([2])\n    "
    fn = register(name, namespaces=namespaces, method=method, inplace=inplace, out=out, promote=promote,
                  differentiable=differentiable, dunders=dunders, aliases=aliases, checks=checks,
                  aten=aten, inplace_overlap=inplace_overlap)(fn)
    for rd in rdunders:
        def rfn(self, other, _fn=fn):
            return _fn(other, self)
        rfn.__name__ = rd
        register(rd, namespaces=(), promote="none")(rfn)  # the reflected dunder: a method-only entry
    return fn
