"""torch's ``_foreach_*`` functions: one op over a list of tensors (optimizers' multi-tensor steps; keras's torch
backend updates its variables with them).  Each is the op applied tensor by tensor through the Tensor methods, so
dtype promotion, in-place cast errors, broadcasting and autograd are the per-tensor op's.  Out-of-place forms return
a tuple of results, in-place forms (``_foreach_mul_``) write each tensor and return the list given; the second
operand is a Python number, a list of numbers, a list of tensors or (add, sub, mul, div, addcmul, addcdiv) one 0-d
tensor, as torch's overloads.

>>> import torchlike as torch
>>> ts = [torch.ones(2), torch.ones(3)]
>>> torch._foreach_mul_(ts, 2.0) is ts, [t.tolist() for t in torch._foreach_add(ts, [1.0, 2.0])]
(True, [[3.0, 3.0], [4.0, 4.0, 4.0]])
"""
from __future__ import annotations

import numbers

from .tensor import Tensor

_UNARY = ("abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 neg "
          "reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc").split()

_SCALAR, _SCALARS, _TENSORS, _TENSOR = ("Number scalar", "tuple of Scalars scalars", "tuple of Tensors other",
                                        "Tensor other")
# binary op -> the overloads torch lists for it (the second operand's forms); add/sub take alpha with tensors
_BINARY = {
    "add": (_SCALAR, _SCALARS, _TENSOR + ", *, Number alpha = 1", _TENSORS + ", *, Number alpha = 1"),
    "sub": (_SCALAR, _SCALARS, _TENSORS + ", *, Number alpha = 1"),
    "mul": (_SCALARS, _TENSOR, _TENSORS, _SCALAR), "div": (_SCALARS, _TENSOR, _TENSORS, _SCALAR),
    "clamp_max": (_SCALAR, _SCALARS, _TENSORS), "clamp_min": (_SCALAR, _SCALARS, _TENSORS),
    "maximum": (_SCALAR, _SCALARS, _TENSORS), "minimum": (_SCALAR, _SCALARS, _TENSORS),
    "pow": ("Number exponent", "tuple of Scalars exponent", "tuple of Tensors exponent"),
}

# binary ops whose per-tensor op takes no Number: torch's foreach Number/Scalars overloads are the clamp kernels
# (``_foreach_maximum(ts, 0.5)`` is ``t.clamp_min(0.5)``: an int list with a float gives float, NaN propagates)
_SCALAR_FORM = {"maximum": "clamp_min", "minimum": "clamp_max"}

__all__ = [f"_foreach_{n}{s}" for n in (*_UNARY, *_BINARY, "addcmul", "addcdiv", "lerp") for s in ("", "_")] + [
    "_foreach_zero_", "_foreach_copy_", "_foreach_clone", "_foreach_norm", "_foreach_max", "_foreach_powsum",
    "_foreach_mm"]


_MISSING = object()


def _keyword_operand(name, given, given_kwargs, kwargs, overloads):
    """The second operand given by its keyword (``scalar=``, ``scalars=``, ``other=``, ``exponent=``: the name of
    the overload it selects, as torch's parser takes it) and the keywords left; a value that fits no overload of
    that name, or no operand at all, is torch's invalid combination."""
    for key in list(kwargs):
        kinds = [o.split(",")[0].rsplit(" ", 1)[0] for o in overloads if o.split(",")[0].rsplit(" ", 1)[1] == key]
        if kinds:
            value = kwargs.pop(key)
            if any(_fits(kind, value) for kind in kinds):
                return value, kwargs
            break
    raise _invalid(name, given, given_kwargs, overloads)


def _fits(kind, value):
    if kind == "Number":
        return isinstance(value, numbers.Number)
    if kind == "Tensor":
        return isinstance(value, Tensor)
    item = Tensor if kind == "tuple of Tensors" else numbers.Number
    return isinstance(value, (list, tuple)) and all(isinstance(v, item) for v in value)


def _invalid(name, args, kwargs, overloads):
    keywords = [f"{k}={type(kwargs[k]).__name__}" for k in sorted(kwargs)]  # (torch's parser lists them sorted)
    got = ", ".join([type(a).__name__ for a in args] + keywords) if args else "".join(f"{k}, " for k in keywords)
    lines = "".join(f" * (tuple of Tensors self, {o})\n" for o in overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                     f"of:\n{lines}")


def _tensor_list(name, ts, args, kwargs, overloads, arg="self", position=1):
    """``ts`` as a list of tensors (torch's "tuple of Tensors" parameter), at least one."""
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        if overloads is None:
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be tuple of Tensors, not "
                            f"{type(ts).__name__}")
        raise _invalid(name, args, kwargs, overloads)
    if not ts:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return ts


def _same_length(ts, others):
    if len(others) != len(ts):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(ts)} and {len(others)}")


def _operands(name, ts, other, args, kwargs, overloads, tensor_ok):
    """The second operand per tensor of ``ts``: a number, one per tensor from a list, or a 0-d tensor."""
    if isinstance(other, (list, tuple)):
        if all(isinstance(o, Tensor) for o in other) and other:
            _same_length(ts, other)
            return list(other)
        if all(isinstance(o, numbers.Number) for o in other):
            if len(other) != len(ts):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            return list(other)
    elif isinstance(other, Tensor) and tensor_ok:
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and "
                               f"{other.numel()} elements.")
        return [other] * len(ts)
    elif isinstance(other, numbers.Number):
        return [other] * len(ts)
    raise _invalid(name, args, kwargs, overloads)


def _unary(op):
    def out_of_place(self):
        ts = _tensor_list(f"_foreach_{op}", self, (self,), {}, None)
        return tuple(getattr(t, op)() for t in ts)

    def in_place(self):
        ts = _tensor_list(f"_foreach_{op}_", self, (self,), {}, None)
        for t in ts:
            getattr(t, op + "_")()
        return ts

    return out_of_place, in_place


def _binary(op, overloads):
    alpha_ok = op in ("add", "sub")
    tensor_ok = any(o.startswith("Tensor other") for o in overloads)

    def run(name, method, given, given_kwargs):
        kwargs = dict(given_kwargs)
        self = given[0] if given else kwargs.pop("self", _MISSING)
        if self is _MISSING or len(given) > 2:
            raise _invalid(name, given, given_kwargs, overloads)
        if len(given) == 2:
            other = given[1]
        else:
            other, kwargs = _keyword_operand(name, given, given_kwargs, kwargs, overloads)
        if kwargs and (not alpha_ok or set(kwargs) != {"alpha"}):
            raise _invalid(name, given, given_kwargs, overloads)
        ts = _tensor_list(name, self, given, given_kwargs, overloads)
        others = _operands(name, ts, other, given, given_kwargs, overloads, tensor_ok)
        if kwargs and not isinstance(others[0], Tensor):  # alpha only with tensor operands
            raise _invalid(name, given, given_kwargs, overloads)
        if not isinstance(others[0], Tensor) and op in _SCALAR_FORM:  # torch's Number overloads clamp
            method = _SCALAR_FORM[op] + method[len(op):]
        elif not hasattr(Tensor, method):  # (maximum_, minimum_: no Tensor method; the result written back)
            return ts, [t.copy_(getattr(t, op)(o)) for t, o in zip(ts, others)]
        return ts, [getattr(t, method)(o, **kwargs) for t, o in zip(ts, others)]

    # positional-only: the second operand by keyword names its overload (scalar=, scalars=, other=, exponent=)
    def out_of_place(*args, **kwargs):
        if op == "pow" and len(args) == 2 and isinstance(args[0], numbers.Number):  # (Number self, exponent list)
            ts = _tensor_list("_foreach_pow", args[1], args, {}, overloads, "exponent", 2)
            return tuple(Tensor.__rpow__(t, args[0]) for t in ts)
        return tuple(run(f"_foreach_{op}", op, args, kwargs)[1])

    def in_place(*args, **kwargs):
        return run(f"_foreach_{op}_", op + "_", args, kwargs)[0]

    return out_of_place, in_place


def _pointwise(op):
    """addcmul / addcdiv: ``self + value * tensor1 (*|/) tensor2`` with a number, a list of numbers or a 1-d tensor
    of values (one per tensor)."""
    overloads = ("tuple of Tensors tensor1, tuple of Tensors tensor2, tuple of Scalars scalars",
                 "tuple of Tensors tensor1, tuple of Tensors tensor2, Tensor scalars",
                 "tuple of Tensors tensor1, tuple of Tensors tensor2, Number value = 1")

    def run(name, method, self, tensor1, tensor2, value):
        args = (self, tensor1, tensor2, value)
        ts = _tensor_list(name, self, args, {}, overloads)
        t1 = _tensor_list(name, tensor1, args, {}, overloads)
        t2 = _tensor_list(name, tensor2, args, {}, overloads)
        _same_length(ts, t1)
        _same_length(ts, t2)
        if isinstance(value, Tensor):
            values = value.tolist() if value.dim() == 1 else None
            if values is None or len(values) != len(ts):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        elif isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number) for v in value):
            if len(value) != len(ts):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            values = list(value)
        elif isinstance(value, numbers.Number):
            values = [value] * len(ts)
        else:
            raise _invalid(name, args, {}, overloads)
        return ts, [getattr(t, method)(a, b, value=v) for t, a, b, v in zip(ts, t1, t2, values)]

    def out_of_place(self, tensor1, tensor2, value=1, *, scalars=_MISSING):  # (scalars: the list overloads' name)
        return tuple(run(f"_foreach_{op}", op, self, tensor1, tensor2, value if scalars is _MISSING else scalars)[1])

    def in_place(self, tensor1, tensor2, value=1, *, scalars=_MISSING):
        return run(f"_foreach_{op}_", op + "_", self, tensor1, tensor2, value if scalars is _MISSING else scalars)[0]

    return out_of_place, in_place


def _lerp_forms():
    overloads = ("tuple of Tensors tensors1, Number weight", "tuple of Tensors tensors1, tuple of Scalars weight",
                 "tuple of Tensors tensors1, tuple of Tensors weights")

    def run(name, method, self, tensors1, weight):
        args = (self, tensors1, weight)
        ts = _tensor_list(name, self, args, {}, overloads)
        ends = _tensor_list(name, tensors1, args, {}, overloads)
        _same_length(ts, ends)
        weights = _operands(name, ts, weight, args, {}, overloads, False)
        return ts, [getattr(t, method)(e, w) for t, e, w in zip(ts, ends, weights)]

    def out_of_place(self, tensors1, weight=_MISSING, *, weights=_MISSING):  # (weights: the tensor-list overload's)
        return tuple(run("_foreach_lerp", "lerp", self, tensors1, weight if weights is _MISSING else weights)[1])

    def in_place(self, tensors1, weight=_MISSING, *, weights=_MISSING):
        return run("_foreach_lerp_", "lerp_", self, tensors1, weight if weights is _MISSING else weights)[0]

    return out_of_place, in_place


def _install():
    g = globals()
    forms = {op: _unary(op) for op in _UNARY}
    forms.update({op: _binary(op, overloads) for op, overloads in _BINARY.items()})
    forms.update(addcmul=_pointwise("addcmul"), addcdiv=_pointwise("addcdiv"), lerp=_lerp_forms())
    for op, (out_of_place, in_place) in forms.items():
        for f, name in ((out_of_place, f"_foreach_{op}"), (in_place, f"_foreach_{op}_")):
            f.__name__ = f.__qualname__ = name
            f.__doc__ = f"torch.{name}: ``{op}`` over a list of tensors" + \
                (" in place (returns the list)." if name.endswith("_") else " (a tuple of results).")
            g[name] = f


_install()


def _foreach_zero_(self):
    """torch._foreach_zero_: zero every tensor of the list in place; returns the list."""
    for t in _tensor_list("_foreach_zero_", self, (self,), {}, None):
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """torch._foreach_copy_: ``self[i].copy_(src[i])`` for each i; returns the list."""
    ts = _tensor_list("_foreach_copy_", self, (self, src), {}, None)
    srcs = _tensor_list("_foreach_copy_", src, (self, src), {}, None, "src", 2)
    _same_length(ts, srcs)
    for t, s in zip(ts, srcs):
        t.copy_(s, non_blocking=non_blocking)
    return self


def _foreach_clone(self):
    """torch._foreach_clone: a clone of each tensor."""
    return tuple(t.clone() for t in _tensor_list("_foreach_clone", self, (self,), {}, None))


def _foreach_norm(self, ord=2, dtype=None):
    """torch._foreach_norm: the vector ``ord``-norm of each tensor (0-d results)."""
    ts = _tensor_list("_foreach_norm", self, (self,), {}, None)
    return tuple(t.norm(p=ord, dtype=dtype) if dtype is not None else t.norm(p=ord) for t in ts)


def _foreach_max(self):
    """torch._foreach_max: the maximum of each tensor (0-d results)."""
    return tuple(t.max() for t in _tensor_list("_foreach_max", self, (self,), {}, None))


def _foreach_powsum(self, ord=2, dtype=None):
    """torch._foreach_powsum: ``sum(|t| ** ord)`` of each tensor (0-d results)."""
    ts = _tensor_list("_foreach_powsum", self, (self,), {}, None)
    return tuple((t.abs() ** ord).sum(dtype=dtype) for t in ts)


def _foreach_mm(self, mat2):
    """torch._foreach_mm: ``self[i] @ mat2[i]`` (2-D matrix products)."""
    ts = _tensor_list("_foreach_mm", self, (self, mat2), {}, None)
    ms = _tensor_list("_foreach_mm", mat2, (self, mat2), {}, None, "mat2", 2)
    _same_length(ts, ms)
    return tuple(a.mm(b) for a, b in zip(ts, ms))
