"""torch's argument parser on the failure path: an op's torch signatures (its overloads, in the schema words of
torch's ``native_functions.yaml``) and the TypeError torch raises when a call fits none of them.

torch parses every argument against its signatures before the kernel runs, so a wrong-typed argument is a
TypeError naming the op and the argument, whatever the other arguments' values.  torchlike's ops check values
as they go; the op table's wrappers (``registry``) call ``Signature.error`` only once the op has raised (any
exception), so a call that succeeds pays nothing, and a call that failed reports torch's parser error where one
of its arguments has a type torch's signatures reject (else the op's own error stands).

An entry's signatures are in ``SIGNATURES`` (the op table key -> its overloads); ``register`` attaches them.

    >>> sig = Signature("bincount", ["Tensor self, Tensor? weights=None, int minlength=0"])
    >>> import torchlike
    >>> print(sig.error((torchlike.ones(3), "x"), {}))
    bincount(): argument 'weights' (position 1) must be Tensor, not str
    >>> print(sig.error((torchlike.ones(3), "x"), {}).as_function)
    bincount(): argument 'weights' (position 2) must be Tensor, not str
"""
from __future__ import annotations

import functools
import inspect
import numbers
import operator
import re

import numpy as np

from .. import _creation, _dtype
from .._device import device as _device_type
from .._errors import pass_through_file, tp_name
from ..tensor import Tensor

__all__ = ["Signature", "SIGNATURES", "signature_of", "parses", "missing_method", "none_rejected", "rejecting_none",
           "number_slots", "rejecting_tensors"]

# schema type -> the words torch's messages give it
_SHOWN = {"Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "str": "str",
          "Scalar": "Number", "ScalarType": "torch.dtype", "Device": "torch.device", "Generator": "torch.Generator",
          "Layout": "torch.layout", "MemoryFormat": "torch.memory_format", "int[]": "tuple of ints",
          "SymInt[]": "tuple of ints", "float[]": "tuple of floats", "Tensor[]": "tuple of Tensors",
          "object": "object", "Storage": "torch.Storage"}


class _Param:
    __slots__ = ("name", "kind", "size", "nullable", "default", "keyword_only", "is_self")

    def __init__(self, text, keyword_only):
        decl, _, default = text.partition("=")
        kind, name = decl.split()
        self.is_self = name == "self"  # (torch's messages call a Tensor self input, a Scalar self self)
        name = "input" if self.is_self and kind.rstrip("?") == "Tensor" else name
        self.nullable = kind.endswith("?") or default.strip() == "None"
        kind = kind.rstrip("?")
        self.size = None
        if kind.endswith("]"):  # int[1]: a single int is taken too (torch's sized int lists)
            kind, size = kind[:-1].split("[")
            self.size, kind = (int(size) if size else None), kind + "[]"
        self.kind, self.name, self.keyword_only = kind, name, keyword_only
        self.default = default.strip() or None

    def shown(self):
        text = f"{_SHOWN[self.kind]} {self.name}"
        return text if self.default is None else f"{text} = {self.default}"


def _index(v):  # torch's ``int``: a Python or numpy integer (no bool), or a 0-dim integer tensor not requiring grad
    if v is True or v is False:
        return False
    if isinstance(v, Tensor):
        return v.ndim == 0 and not v.requires_grad and not v.dtype.is_floating_point and not v.dtype.is_complex \
            and v.dtype is not _dtype.bool
    try:
        operator.index(v)
    except (TypeError, RuntimeError, ValueError):
        return False
    return True


def _sym_index(v):  # torch's ``SymInt``: also a one-element integer or bool tensor (of any rank)
    if isinstance(v, Tensor):
        return v.numel() == 1 and not v.dtype.is_floating_point and not v.dtype.is_complex
    return _index(v)


def _real(v):  # (a tensor: torch's parser takes a 0-dim one that does not require grad, of any dtype)
    if isinstance(v, Tensor):
        return v.ndim == 0 and not v.requires_grad
    return isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, np.complexfloating)


def _number(v):
    if isinstance(v, Tensor):
        return v.ndim == 0 and not v.requires_grad
    return isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, str)


_SCALAR_FITS = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "int": _index, "SymInt": _sym_index,
    "float": _real,
    "bool": lambda v: v is True or v is False,
    "str": lambda v: isinstance(v, str),
    "Scalar": _number,
    "ScalarType": lambda v: isinstance(v, _dtype.dtype) or v is float or v is int or v is bool or v is complex,
    "Device": lambda v: isinstance(v, (_device_type, str)) or _index(v),
    "Generator": lambda v: type(v).__name__ == "Generator",
    "Layout": lambda v: type(v).__name__ == "layout",
    "MemoryFormat": lambda v: type(v).__name__ == "memory_format",
    "object": lambda v: True,
    "Storage": lambda v: "Storage" in type(v).__name__,
}
_ELEMENT = {"int[]": "int", "SymInt[]": "SymInt", "float[]": "float", "Tensor[]": "Tensor"}


def _problem(p, v, position, arg_index):
    """None where ``v`` fits parameter ``p``; else the text after ``op(): `` torch's parser gives."""
    if v is None and p.nullable:
        return None
    where = f"argument '{p.name}'" + (f" (position {position})" if position is not None else "")
    element = _ELEMENT.get(p.kind)
    if element is None:
        return None if _SCALAR_FITS[p.kind](v) else f"{where} must be {_SHOWN[p.kind]}, not {tp_name(v)}"
    fits = _SCALAR_FITS[element]
    if p.size is not None and element != "Tensor" and fits(v):
        return None
    if element in ("int", "SymInt") and isinstance(v, Tensor) and not (v.dtype.is_floating_point or v.dtype.is_complex):
        return None  # (a tensor of integers is taken as the list)
    if not isinstance(v, (tuple, list)):
        return f"{where} must be {_SHOWN[p.kind]}, not {tp_name(v)}"
    for k, x in enumerate(v):
        if not fits(x):
            if k and element in ("int", "SymInt"):  # (torch matches on the first element; the others fail as it
                # unpacks them)
                return (f"\1argument '{p.name}' failed to unpack the object at pos {k + 1} with error \"type must be "
                        f"tuple of ints,but got {tp_name(x)}\"")
            if element == "Tensor":
                return f"\0expected Tensor as element {k} in argument {arg_index}, but got {tp_name(x)}"
            return f"{where} must be {_SHOWN[p.kind]}, but found element of type {tp_name(x)} at pos {k}"
    return None


_SPLIT = re.compile(r",(?![^\[]*\])")  # the commas between parameters (not those of a default: dims=[0, 1])


_HIDDEN = "[deprecated] "  # an overload's prefix: torch's parser binds it but lists it in no message


class _Overload:
    def __init__(self, text):
        self.hidden = text.startswith(_HIDDEN)
        text = text[len(_HIDDEN):] if self.hidden else text
        params, keyword_only = [], False
        for part in (s.strip() for s in _SPLIT.split(text)):
            if part == "*":
                keyword_only = True
            elif part:
                params.append(_Param(part, keyword_only))
        self.params = params
        self.method = bool(params) and params[0].is_self and params[0].kind == "Tensor"

    def surface(self, method):
        # (a method form has no ``out``: torch's Tensor methods take none, and their messages show none)
        return [p for p in self.params[1:] if not (p.keyword_only and p.name == "out")] if method else self.params

    def shown(self, method):
        params, out, star = self.surface(method), [], False
        for k, p in enumerate(params):
            if p.keyword_only and not star:
                out.append("*")
                star = True
            out.append(p.shown())
        return ", ".join(out)

    def takes(self, method, count):
        params = self.surface(method)
        return sum(1 for p in params if p.default is None) <= count <= len(params)

    def bind(self, method, args, kwargs):
        """None where the call fits; else ``(kind, detail)``: ``("type", text)``, ``("many", given)``,
        ``("missing", names)``, ``("keyword", name)``."""
        params = self.surface(method)
        positional = [p for p in params if not p.keyword_only]
        if len(positional) == 1 and positional[0].kind == "Tensor[]" and (len(args) != 1 or isinstance(args[0], Tensor)):
            args = (tuple(args),)  # torch.meshgrid(a, b): the varargs are the list
        elif len(positional) == 1 and positional[0].kind in ("int[]", "SymInt[]") and args and _index(args[0]):
            # torch.randn(2, 3), x.view(2, 3): a lone int list takes the varargs (torch's rule), unpacked later
            bad = next((k for k, a in enumerate(args) if not _index(a)), None)
            if bad is not None:
                return "unpack", (f"argument '{positional[0].name}' failed to unpack the object at pos {bad + 1} with "
                                  f"error \"type must be tuple of ints,but got {tp_name(args[bad])}\"")
            args = (tuple(args),)
        if len(args) > len(positional):
            return "many", positional
        # torch's parser goes through the parameters in order: a given one's type, or (not given, no default) the
        # error listing every required one not given; then a keyword it has not used
        for k, p in enumerate(params):
            if k < len(args):
                text = _problem(p, args[k], k + 1, k)
            elif p.name in kwargs:
                text = _problem(p, kwargs[p.name], None, 0)
            elif p.default is None:
                return "missing", [q.name for q in params[k:] if q.default is None and q.name not in kwargs]
            else:
                continue
            if text is not None:
                return ("unpack", text[1:]) if text.startswith("\1") else ("type", text)
        names = {p.name for p in params}
        for k in kwargs:
            if k not in names or any(p.name == k for p in positional[:len(args)]):
                return "keyword", k
        return None


def _got(args, kwargs):
    items = ["Tensor" if isinstance(a, Tensor) else tp_name(a) for a in args]
    kw = [f"{k}={'Tensor' if isinstance(v, Tensor) else tp_name(v)}"  # (torch reads them from an unordered_map:
          for k, v in reversed(kwargs.items())]  # the last given first)
    return ", ".join(items + kw) + (", " if kw and not items else "")


def _marked(shown, args):
    """torch's ``got (...)`` against a lone overload: each positional argument's type, between ``!`` where the
    overload's parameter at its position (``*`` skipped) does not take it or there is none."""
    parts = [p.split(" = ")[0] for p in shown.split(", ") if p != "*"]
    out = []
    for k, v in enumerate(args):
        typ = "Tensor" if isinstance(v, Tensor) else tp_name(v)
        kind = parts[k][:parts[k].rfind(" ")] if k < len(parts) and " " in parts[k] else None
        ok = kind is not None and typ in _PY_TYPES.get(kind, (kind,))
        out.append(typ if ok else f"!{typ}!")
    return "(" + ", ".join(out) + ")"


_INDENT = "      didn't match because some of the "
_PY_TYPES = {"float": ("float", "int", "long"), "int": ("int", "long")}


def _why(shown, args, kwargs):
    """The line torch's ``format_invalid_args`` adds under an overload it lists where the number of arguments given
    equals the number of ``", "``-separated parts of the overload as shown (its parser's count: ``*`` is a part, the
    empty ``()`` one, a default's value is the part's name); '' elsewhere."""
    parts = shown.split(", ")
    if len(args) + len(kwargs) != len(parts):
        return ""
    names = [p[p.rfind(" ") + 1:] for p in parts]
    if kwargs:
        bad = [k for k in kwargs if k not in names[max(len(parts) - len(kwargs), 0):]]
        if bad:
            return f"{_INDENT}keywords were incorrect: {', '.join(bad)}\n"
    shown_args = []
    for k, part in enumerate(parts):
        is_kwarg = k >= len(args)
        if is_kwarg and names[k] not in kwargs:
            return ""  # (torch's C++ looks the keyword up by the part's name here and would fail)
        v = kwargs[names[k]] if is_kwarg else args[k]
        typ = "Tensor" if isinstance(v, Tensor) else tp_name(v)
        kind = part[:part.rfind(" ")] if " " in part else ""
        ok = typ in _PY_TYPES.get(kind, (kind,))
        if isinstance(v, (tuple, list)):  # (torch shows a sequence's element types: "tuple of (int,)")
            inner = ", ".join("Tensor" if isinstance(e, Tensor) else tp_name(e) for e in v)
            typ += f" of ({inner}{',' if len(v) == 1 else ''})" if isinstance(v, tuple) else f" of [{inner}]"
        shown_args.append(("" if ok else "!") + (f"{names[k]}=" if is_kwarg else "") + typ + ("" if ok else "!"))
    return f"{_INDENT}arguments have invalid types: ({', '.join(shown_args)}{'' if args else ', '})\n"


class Signature:
    """An op's torch overloads (schema text, ``self`` first for those with a Tensor method form)."""

    def __init__(self, op, overloads):
        self.op, self.overloads = op, [_Overload(o) for o in overloads]
        params = self.overloads[0].params if len(self.overloads) == 1 else ()
        self.inplace_at = next((k for k, p in enumerate(params) if p.name == "inplace" and p.kind == "object"), None)
        self.positional = self.inplace_at is not None  # (F.X in Python, calling torch's C function)

    def _message(self, name, method, args, kwargs):
        overloads = [o for o in self.overloads if o.method or not method]
        if not overloads:
            return None
        failures = []
        for o in overloads:
            failure = o.bind(method, args, kwargs)
            if failure is None:
                return None
            if failure[0] == "unpack":  # (raised as the arguments are read: whichever overload)
                return f"{name}(): {failure[1]}"
            failures.append(failure)
        shown = [k for k, o in enumerate(overloads) if not o.hidden]  # (torch's messages skip the deprecated)
        hidden = len(shown) < len(overloads)
        overloads, failures = [overloads[k] for k in shown], [failures[k] for k in shown]
        if not overloads:
            return None
        count = len(args) + len(kwargs)  # (torch details the one overload taking that many arguments, if one)
        plausible = [k for k, o in enumerate(overloads) if o.takes(method, count)]
        if len(overloads) == 1 and not plausible and hidden:
            # (one overload listed, none taking that many arguments: torch marks each argument against it)
            return (f"{name}() received an invalid combination of arguments - got "
                    f"{_marked(overloads[0].shown(method), args)}, but expected ({overloads[0].shown(method)})")
        if len(overloads) > 1 and len(plausible) != 1:
            return (f"{name}() received an invalid combination of arguments - got ({_got(args, kwargs)}), but "
                    "expected one of:\n" + "".join(f" * ({o.shown(method)})\n{_why(o.shown(method), args, kwargs)}"
                                                   for o in overloads))
        kind, detail = failures[plausible[0] if len(overloads) > 1 else 0]
        if kind == "type":
            return detail[1:] if detail.startswith("\0") else f"{name}(): {detail}"
        if kind == "keyword":
            return f"{name}() got an unexpected keyword argument '{detail}'"
        if kind == "missing":
            names = ", ".join(f'"{n}"' for n in detail)
            return f"{name}() missing {len(detail)} required positional argument{'s' if len(detail) == 1 else ''}: {names}"
        low = sum(1 for p in detail if p.default is None)
        span = f"{low}" if low == len(detail) else f"from {low} to {len(detail)}"
        return (f"{name}() takes {span} positional argument{'' if span == '1' else 's'} but {len(args)} "
                f"{'was' if len(args) == 1 else 'were'} given")

    def raise_if_unparsed(self, args, kwargs):
        """In an op's except clause: raise torch's parser error (the function form's) for ``op(*args, **kwargs)``
        where it has one; return otherwise (the caller re-raises its own error)."""
        err = self.error(args, kwargs)
        if err is not None:
            raise TypeError(err.as_function) from None

    def error(self, args, kwargs, name=None):
        """torch's TypeError for the call ``op(*args, **kwargs)`` (``args[0]`` the input, or ``self`` of the method
        form), or None where an overload takes every argument's type.  The message is the method form's where
        ``args[0]`` is a Tensor and the op has one (positions counted without ``self``), with the function form's
        in ``as_function``, which the op table's namespace wrappers raise."""
        if any(hasattr(type(a), "__torch_function__") and not isinstance(a, Tensor)
               for a in (*args, *kwargs.values())):
            return None  # a tensor-like: its override decides
        name = name or self.op
        if self.positional and kwargs:  # (torch's Python-level F.X passes its arguments on by position)
            args, kwargs = list(args), dict(kwargs)
            for p in self.overloads[0].params[len(args):]:
                if p.keyword_only or p.name not in kwargs:
                    break
                args.append(kwargs.pop(p.name))
            args = tuple(args)
        if self.inplace_at is not None and not name.endswith("_"):  # (F.X(..., inplace=True) calls torch's X_)
            k = self.inplace_at
            if (args[k] if k < len(args) else kwargs.get("inplace", False)) is True:
                name += "_"
        function = self._message(name, False, args, kwargs)
        if function is None:
            return None
        method = self._message(name, True, args[1:], kwargs) if args and isinstance(args[0], Tensor) else None
        err = TypeError(method or function)
        err.as_function = function
        return err


def parses(*overloads, name=None):
    """Decorator for a torch function outside the op table (``torch.arange``, the RNN kernels): where the body
    raises and an argument has a type none of ``overloads`` takes, torch's parser error instead.  A call that
    succeeds pays one call frame.

    >>> @parses("Tensor input, int n")
    ... def f(input, n):
    ...     return n + 1
    >>> import torchlike
    >>> try:
    ...     f(torchlike.ones(1), "x")
    ... except TypeError as e:
    ...     print(e)
    f(): argument 'n' (position 2) must be int, not str
    """
    def deco(fn):
        sig = Signature(name or fn.__name__, overloads)
        at, slots = none_rejected(sig, fn), number_slots(sig)
        body = rejecting_none(fn, sig, at) if at else fn
        body = rejecting_tensors(body, sig, slots) if slots[0] else body

        @functools.wraps(fn)
        def parsed(*args, **kwargs):
            try:
                return body(*args, **kwargs)
            except Exception:
                err = sig.error(args, kwargs)
                if err is None:
                    raise
                raise TypeError(err.as_function) from None
        parsed.torch_signature = sig
        return parsed
    return deco


def none_rejected(sig, fn):
    """The positions (``self`` or the input 0) of ``fn``'s positional parameters whose Python default None stands
    for "not given" where every overload of ``sig`` rejects an explicit None (``torch.trapezoid(y, None)``, the
    parser's TypeError); with ``*args``, the positions it gathers.  Empty for most ops."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ()
    lists = [[p for p in o.params if not p.keyword_only] for o in sig.overloads if not o.hidden]
    if any(len(ps) == 1 and ps[0].kind == "Tensor[]" for ps in lists):
        return ()  # (varargs that are a list: torch.meshgrid(a, b))
    out = []
    for k, p in enumerate(params[1:], 1):
        if p.kind is p.VAR_POSITIONAL:
            candidates = range(k, max(map(len, lists)))
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is None:
            candidates = (k,)
        else:
            continue
        out += [j for j in candidates if not any(j < len(ps) and ps[j].nullable for ps in lists)]
        if p.kind is p.VAR_POSITIONAL:
            break
    return tuple(out)


def rejecting_none(fn, sig, at):
    """``fn`` raising ``sig``'s parser error where an argument at a position of ``at`` (``none_rejected``) is None:
    the op's default None would take it as "not given".  The success path pays a length test and, where as many
    arguments are given, a None test per position."""
    low = at[0]

    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        if len(args) > low:
            for k in at:
                if k < len(args) and args[k] is None:
                    err = sig.error(args, kwargs)
                    if err is not None:
                        raise err
        return fn(*args, **kwargs)
    return guarded


_NUMBER_KINDS = frozenset({"Scalar", "float", "int", "SymInt", "bool"})
# the kinds that make an op's calls check their number positions: a tensor given for a Number or float would be
# used as the value, one given for an int mostly fails where the op reads it (``wrap_dim``'s torch_index), so ops
# whose numbers are all ints (``transpose``, ``select``) pay no wrapper
_CHECKED_KINDS = frozenset({"Scalar", "float"})


def number_slots(sig):
    """The positions (``self`` or the input 0) and keywords where every overload of ``sig`` that has the argument
    takes a number, never a Tensor: a tensor given there is torch's parser error unless it fits (a 0-dim one not
    requiring grad; for an int, of an integer dtype).  ``((), frozenset())`` for most ops, and for those without
    such a position taking a Number or float (ints only: ``transpose``; keywords only: ``addmm``'s ``alpha``,
    ``where``'s ``self``), hot ops whose calls then pay no wrapper."""
    at, kinds = {}, {}
    for o in sig.overloads:
        for k, p in enumerate(q for q in o.params if not q.keyword_only):
            at.setdefault(k, set()).add(p.kind)
        for p in o.params:
            kinds.setdefault(p.name if not p.is_self else "self", set()).add(p.kind)
    if any(len([p for p in o.params if not p.keyword_only]) == 1 and o.params[0].kind.endswith("[]")
           for o in sig.overloads):
        at = {}  # (varargs that are a list: ``x.view(2, 3)``, ``torch.meshgrid(a, b)``)
    numbers = sorted(k for k, ks in at.items() if ks <= _NUMBER_KINDS)
    if not any(at[k] & _CHECKED_KINDS for k in numbers):
        return (), frozenset()
    return tuple(numbers), frozenset(n for n, ks in kinds.items() if ks <= _NUMBER_KINDS)


def rejecting_tensors(fn, sig, slots):
    """``fn`` raising ``sig``'s parser error (the function form's; the op table's wrappers give the method's) where
    a tensor sits at one of ``slots`` (``number_slots``) and torch's parser does not take it as a number (it
    requires grad, has dimensions, or is a float for an int).  The success path pays an ``isinstance`` per slot."""
    at, names = slots

    def reject(args, kwargs):
        err = sig.error(args, kwargs)
        if err is not None:
            raise TypeError(err.as_function)

    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        for k in at:
            if k < len(args) and isinstance(args[k], Tensor):
                reject(args, kwargs)
        if kwargs and not names.isdisjoint(kwargs):
            for n in names:
                if isinstance(kwargs.get(n), Tensor):
                    reject(args, kwargs)
        return fn(*args, **kwargs)
    return guarded


def missing_method(name, error, overloads=()):
    """A Tensor method torchlike lacks: torch's parser error for arguments its ``overloads`` reject (what torch
    raises for them), else ``error()`` (the not-implemented one)."""
    sig = Signature(name, overloads) if overloads else None

    def method(self, *args, **kwargs):
        err = None if sig is None else sig.error((self,) + args, kwargs)
        if err is not None:
            raise err
        raise error()
    method.__name__ = method.__qualname__ = name
    return method


# the wrappers' frames count as torchlike's and are skipped by a warning's stacklevel and by ``caller_op`` (a
# body's parser error names the op, not ``guarded``; see pass_through_file)
for _f in (parses, rejecting_none, rejecting_tensors):
    _f.__code__ = _f.__code__.replace(co_consts=tuple(
        c.replace(co_filename=pass_through_file(__file__, "argument parser")) if hasattr(c, "co_filename") else c
        for c in _f.__code__.co_consts))


def signature_of(fn):
    """The ``Signature`` ``register`` attached to an op's function (or a wrapper of it), None where none."""
    return getattr(fn, "torch_signature", None)


# the op table key -> torch's overloads, in schema words (``int[1]``: an int list that takes one int too; ``?`` or
# ``=None``: None is taken); torch's order, as its messages list them
SIGNATURES = {
    # linear algebra products (the add* family: ``x.addmm(0, "x")``)
    # (+ the deprecated beta/alpha-first forms, which bind but which torch's messages do not list)
    ("torch", "addbmm"): ["Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None",
                          _HIDDEN + "Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor batch2",
                          _HIDDEN + "Scalar beta, Tensor self, Tensor batch1, Tensor batch2"],
    ("torch", "addmm"): ["Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None",
                         "Tensor input, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, "
                         "Scalar alpha=1, Tensor? out=None",  # (no method form)
                         _HIDDEN + "Scalar beta, Tensor self, Scalar alpha, Tensor mat1, Tensor mat2",
                         _HIDDEN + "Scalar beta, Tensor self, Tensor mat1, Tensor mat2"],
    ("torch", "addmv"): ["Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None",
                         _HIDDEN + "Scalar beta, Tensor self, Scalar alpha, Tensor mat, Tensor vec",
                         _HIDDEN + "Scalar beta, Tensor self, Tensor mat, Tensor vec"],
    ("torch", "addr"): ["Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None",
                        _HIDDEN + "Scalar beta, Tensor self, Scalar alpha, Tensor vec1, Tensor vec2",
                        _HIDDEN + "Scalar beta, Tensor self, Tensor vec1, Tensor vec2"],
    ("torch", "baddbmm"): ["Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, "
                           "Tensor? out=None",
                           "Tensor input, Tensor batch1, Tensor batch2, ScalarType out_dtype, *, Scalar beta=1, "
                           "Scalar alpha=1, Tensor? out=None",  # (no method form)
                           _HIDDEN + "Scalar beta, Tensor self, Scalar alpha, Tensor batch1, Tensor batch2",
                           _HIDDEN + "Scalar beta, Tensor self, Tensor batch1, Tensor batch2"],
    ("torch", "addcmul"): ["Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor? out=None",
                           _HIDDEN + "Tensor self, Scalar value, Tensor tensor1, Tensor tensor2"],
    ("torch", "addcdiv"): ["Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor? out=None",
                           _HIDDEN + "Tensor self, Scalar value, Tensor tensor1, Tensor tensor2"],
    ("torch", "inner"): ["Tensor self, Tensor other"],
    ("torch", "cholesky_solve"): ["Tensor self, Tensor input2, bool upper=False"],
    ("torch", "orgqr"): ["Tensor self, Tensor input2"],
    ("torch", "ormqr"): ["Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False"],
    ("torch", "triangular_solve"): ["Tensor self, Tensor A, bool upper=True, bool transpose=False, "
                                    "bool unitriangular=False"],
    ("torch", "lu_unpack"): ["Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True"],
    # masking, scattering, filling
    ("torch", "masked_fill"): ["Tensor self, Tensor mask, Tensor value", "Tensor self, Tensor mask, Scalar value"],
    ("torch", "clamp"): ["Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor? out=None",
                         "Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor? out=None"],
    ("torch", "pow"): ["Tensor self, Tensor exponent, *, Tensor? out=None", "Scalar self, Tensor exponent, *, Tensor? out=None",
                       "Tensor self, Scalar exponent, *, Tensor? out=None"],
    ("torch", "mm"): ["Tensor self, Tensor mat2, *, Tensor? out=None",
                      "Tensor input, Tensor mat2, ScalarType out_dtype, *, Tensor? out=None"],  # (no method form)
    ("torch", "masked_scatter"): ["Tensor self, Tensor mask, Tensor source"],
    ("torch", "masked_select"): ["Tensor self, Tensor mask"],
    ("torch", "put"): ["Tensor self, Tensor index, Tensor source, bool accumulate=False"],
    ("torch", "index_select"): ["Tensor self, int dim, Tensor index"],
    ("torch", "gather"): ["Tensor self, int dim, Tensor index, *, bool sparse_grad=False"],
    ("torch", "scatter_add"): ["Tensor self, int dim, Tensor index, Tensor src"],
    ("torch", "scatter_reduce"): ["Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                                  "bool include_self=True"],
    ("torch", "index_add"): ["Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1"],
    ("torch", "select"): ["Tensor self, int dim, SymInt index"],
    ("torch", "index_put"): ["Tensor self, Tensor[] indices, Tensor values, bool accumulate=False"],
    ("torch", "index_put_"): ["Tensor self, Tensor[] indices, Tensor values, bool accumulate=False"],
    ("torch", "diagonal_scatter"): ["Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1"],
    ("torch", "fill_"): ["Tensor self, Tensor value", "Tensor self, Scalar value"],
    ("torch", "fill"): ["Tensor self, Tensor value", "Tensor self, Scalar value"],
    ("torch", "lerp"): ["Tensor self, Tensor end, Tensor weight, *, Tensor? out=None",
                       "Tensor self, Tensor end, Scalar weight, *, Tensor? out=None"],
    ("torch", "resize_as_"): ["Tensor self, Tensor the_template, *, MemoryFormat? memory_format=None"],
    ("torch", "where"): ["Tensor condition", "Tensor condition, Tensor input, Tensor other, *, Tensor? out=None",
                         "Tensor condition, Scalar self, Tensor other", "Tensor condition, Tensor input, Scalar other",
                         "Tensor condition, Scalar self, Scalar other"],
    ("Tensor", "where"): ["Tensor self, Tensor condition, Tensor other", "Tensor self, Tensor condition, Scalar other"],
    ("Tensor", "is_set_to"): ["Tensor self, Tensor tensor"],
    ("Tensor", "map_"): ["Tensor self, Tensor other, object callable"],
    ("Tensor", "copy_"): ["Tensor self, Tensor other, bool non_blocking=False"],
    # counting, binning, sampling
    ("torch", "bincount"): ["Tensor self, Tensor? weights=None, int minlength=0"],
    ("torch", "histc"): ["Tensor self, int bins=100, Scalar min=0, Scalar max=0"],
    ("torch", "histogram"): ["Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False",
                             "Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
                             "bool density=False"],
    ("torch", "histogramdd"): ["Tensor self, int[] bins, float[]? range=None, Tensor? weight=None, bool density=False",
                               "Tensor self, int bins, float[]? range=None, Tensor? weight=None, bool density=False",
                               "Tensor self, Tensor[] bins, float[]? range=None, Tensor? weight=None, "
                               "bool density=False"],
    ("torch", "multinomial"): ["Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None"],
    ("torch", "searchsorted"): ["Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, "
                                "str? side=None, Tensor? sorter=None, Tensor? out=None",
                                "Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, "
                                "str? side=None, Tensor? sorter=None, Tensor? out=None"],
    ("torch", "_grouped_mm"): ["Tensor self, Tensor mat2, Tensor? offs=None, Tensor? bias=None, "
                               "ScalarType? out_dtype=None"],
    ("torch", "_segment_reduce"): ["Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
                                  "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None"],
    ("torch", "bernoulli"): ["Tensor self, *, Generator? generator=None, Tensor? out=None",
                             "Tensor self, float p, *, Generator? generator=None"],
    ("Tensor", "random_"): ["Tensor self, *, Generator? generator=None",
                            "Tensor self, int from, int? to, *, Generator? generator=None",
                            "Tensor self, int to, *, Generator? generator=None"],
    ("torch", "normal"): ["Tensor mean, Tensor std, *, Generator? generator=None, Tensor? out=None",
                          "Tensor mean, float std=1, *, Generator? generator=None, Tensor? out=None",
                          "float mean, Tensor std, *, Generator? generator=None, Tensor? out=None",
                          "float mean, float std, int[] size, *, Generator? generator=None, Tensor? out=None, "
                          "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
                          "bool requires_grad=False"],
    # the factories that draw: a generator that is not a Generator is the parser's error (both overloads)
    **{("torch", k): [f"{a}, *, {g}Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                      "bool pin_memory=False, bool requires_grad=False" for a in args
                      for g in ("Generator generator, ", "")]
       for k, args in (("rand", ("SymInt[] size",)), ("randn", ("SymInt[] size",)), ("randperm", ("SymInt n",)),
                       ("randint", ("int high, SymInt[] size", "int low, int high, SymInt[] size")))},
    ("torch", "randint_like"): [f"Tensor self, {a}, *, {g}MemoryFormat? memory_format=None, ScalarType? dtype=None, "
                                "Layout? layout=None, Device? device=None, bool pin_memory=False, "
                                "bool requires_grad=False"
                                for a in ("int low, int high", "Tensor high", "int high")
                                for g in ("Generator? generator, ", "")],
    ("torch", "pinverse"): ["Tensor self, float rcond=1e-15"],
    # shapes
    ("torch", "dsplit"): ["Tensor self, int sections", "Tensor self, int[] indices"],
    ("torch", "hsplit"): ["Tensor self, int sections", "Tensor self, int[] indices"],
    ("torch", "vsplit"): ["Tensor self, int sections", "Tensor self, int[] indices"],
    ("torch", "repeat_interleave"): ["Tensor self, Tensor repeats, int? dim=None, *, int? output_size=None",
                                     "Tensor repeats, *, int? output_size=None",
                                     "Tensor self, int repeats, int? dim=None, *, int? output_size=None"],
    ("torch", "roll"): ["Tensor self, int[1] shifts, int[1]? dims=[]"],  # (torch takes dims=None too)
    # reductions with a whole-tensor overload beside the one taking dims
    ("torch", "sum"): ["Tensor self, *, ScalarType? dtype=None",
                       "Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None"],
    ("torch", "mean"): ["Tensor self, *, ScalarType? dtype=None, Tensor? out=None",
                        "Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None"],
    ("torch", "prod"): ["Tensor self, *, ScalarType? dtype=None",
                        "Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None"],
    **{("torch", k): ["Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor? out=None",
                      "Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor? out=None",
                      "Tensor self, bool unbiased=True"] for k in ("std", "var")},
    **{("torch", k): ["Tensor self, *, Tensor? out=None",
                      "Tensor self, int[1]? dim=None, bool keepdim=False, *, Tensor? out=None",
                      "Tensor self, int dim, bool keepdim=False, *, Tensor? out=None"] for k in ("all", "any")},
    # ops with several overloads taking an ``int dim`` (a tuple or None given for it: torch's "invalid combination")
    ("torch", "max"): ["Tensor self, *, Tensor? out=None", "Tensor self, Tensor other, *, Tensor? out=None",
                       "Tensor self, int dim, bool keepdim=False, *, Tensor[]? out=None"],
    ("torch", "min"): ["Tensor self, *, Tensor? out=None", "Tensor self, Tensor other, *, Tensor? out=None",
                       "Tensor self, int dim, bool keepdim=False, *, Tensor[]? out=None"],
    ("torch", "sort"): ["Tensor self, *, bool? stable, int dim=-1, bool descending=False, Tensor[]? out=None",
                        "Tensor self, int dim=-1, bool descending=False, *, Tensor[]? out=None"],
    ("torch", "argsort"): ["Tensor self, *, bool stable, int dim=-1, bool descending=False, Tensor? out=None",
                           "Tensor self, int dim=-1, bool descending=False"],
    ("torch", "narrow"): ["Tensor self, int dim, Tensor start, int length", "Tensor self, int dim, int start, int length"],
    # fft: an int n (a bool or float given: the parser's error, before the transform's checks)
    **{("fft", k): ["Tensor self, SymInt? n=None, int dim=-1, str? norm=None, *, Tensor? out=None"]
       for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{("fft", k): ["int n, float d=1.0, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
                    "Device? device=None, bool pin_memory=False, bool requires_grad=False"]
       for k in ("fftfreq", "rfftfreq")},
    ("torch", "transpose"): ["Tensor self, int dim0, int dim1"],  # (+ torch's Dimname forms, which its messages
    ("torch", "swapaxes"): ["Tensor self, int axis0, int axis1"],  # of a call with ints leave out)
    ("torch", "diagonal"): ["Tensor self, int offset=0, int dim1=0, int dim2=1"],
    ("torch", "flatten"): ["Tensor self, int start_dim=0, int end_dim=-1"],
    ("torch", "movedim"): ["Tensor self, int source, int destination", "Tensor self, int[] source, int[] destination"],
    ("torch", "squeeze"): ["Tensor self", "Tensor self, int dim", "Tensor self, int[] dim"],
    ("Tensor", "squeeze_"): ["Tensor self", "Tensor self, int dim", "Tensor self, int[] dim"],
    ("torch", "scatter"): ["Tensor self, int dim, Tensor index, Tensor src, *, Tensor? out=None",
                           "Tensor self, int dim, Tensor index, Tensor src, *, str reduce, Tensor? out=None",
                           "Tensor self, int dim, Tensor index, Scalar value, *, Tensor? out=None",
                           "Tensor self, int dim, Tensor index, Scalar value, *, str reduce, Tensor? out=None"],
    ("torch", "index_fill"): ["Tensor self, int dim, Tensor index, Tensor value",
                              "Tensor self, int dim, Tensor index, Scalar value"],
    ("torch", "rot90"): ["Tensor self, int k=1, int[] dims=[0, 1]"],
    ("torch", "slice_copy"): ["Tensor self, int dim=0, int? start=None, int? end=None, int step=1"],
    ("torch", "tensor_split"): ["Tensor self, int sections, int dim=0", "Tensor self, int[] indices, int dim=0",
                                "Tensor self, Tensor tensor_indices_or_sections, int dim=0"],
    ("torch", "constant_pad_nd"): ["Tensor input, int[] pad, Scalar value=0"],
    ("torch", "combinations"): ["Tensor self, int r=2, bool with_replacement=False"],
    ("torch", "cartesian_prod"): ["Tensor[] tensors"],
    ("torch", "meshgrid"): ["Tensor[] tensors, *, str? indexing=None"],
    ("torch", "vander"): ["Tensor x, int? N=None, bool increasing=False"],
    ("Tensor", "to_sparse"): ["Tensor self, *, Layout? layout=None, int[2]? blocksize=None, int? dense_dim=None",
                              "Tensor self, int sparse_dim"],
    ("Tensor", "to_sparse_csr"): ["Tensor self, int? dense_dim=None"],
    ("Tensor", "to_sparse_csc"): ["Tensor self, int? dense_dim=None"],
    ("Tensor", "to_sparse_bsr"): ["Tensor self, int[2] blocksize, int? dense_dim=None"],
    ("Tensor", "to_sparse_bsc"): ["Tensor self, int[2] blocksize, int? dense_dim=None"],
    # composites and copies whose bodies call other ops (their errors would name those): torch parses their own
    # arguments first
    ("torch", "allclose"): ["Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False"],
    ("torch", "unsafe_chunk"): ["Tensor self, int chunks, int dim=0"],
    ("torch", "unsafe_split"): ["Tensor self, SymInt split_size, int dim=0"],
    ("torch", "unsafe_split_with_sizes"): ["Tensor self, SymInt[] split_sizes, int dim=0"],
    ("torch", "split_copy"): ["Tensor self, SymInt split_size, int dim=0, *, Tensor[]? out=None"],
    ("torch", "split_with_sizes_copy"): ["Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor[]? out=None"],
    ("torch", "squeeze_copy"): ["Tensor self, *, Tensor? out=None", "Tensor self, int dim, *, Tensor? out=None",
                                "Tensor self, int[] dim, *, Tensor? out=None"],
    ("torch", "select_copy"): ["Tensor self, int dim, SymInt index, *, Tensor? out=None"],
    ("torch", "unbind_copy"): ["Tensor self, int dim=0, *, Tensor[]? out=None"],
    # the in-place random draws (whose bodies compare their numbers before any kernel)
    ("Tensor", "uniform_"): ["Tensor self, float from=0, float to=1, *, Generator? generator=None"],
    ("Tensor", "normal_"): ["Tensor self, float mean=0, float std=1, *, Generator? generator=None"],
    ("Tensor", "cauchy_"): ["Tensor self, float median=0, float sigma=1, *, Generator? generator=None"],
    ("Tensor", "log_normal_"): ["Tensor self, float mean=1, float std=2, *, Generator? generator=None"],
    ("Tensor", "exponential_"): ["Tensor self, float lambd=1, *, Generator? generator=None"],
    ("Tensor", "geometric_"): ["Tensor self, float p, *, Generator? generator=None"],
    ("Tensor", "bernoulli_"): ["Tensor self, Tensor p, *, Generator? generator=None",
                               "Tensor self, float p=0.5, *, Generator? generator=None"],
    # integration
    ("torch", "trapezoid"): ["Tensor y, Tensor x, *, int dim=-1", "Tensor y, *, Scalar dx=1, int dim=-1"],
    ("torch", "trapz"): ["Tensor y, Tensor x, *, int dim=-1", "Tensor y, *, float dx=1, int dim=-1"],
    ("torch", "cumulative_trapezoid"): ["Tensor y, Tensor x, *, int dim=-1", "Tensor y, *, Scalar dx=1, int dim=-1"],
    # nn.functional entries that are torch.X too, where torch's F.X raises the C function's parser errors (their
    # own keywords, ``object``: F's Python parameters torch's function lacks)
    ("nn.functional", "conv1d"): ["Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
                                  "int[1] padding=0, int[1] dilation=1, int groups=1",
                                  "Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
                                  "str padding=\"valid\", int[1] dilation=1, int groups=1"],
    ("nn.functional", "conv_transpose1d"): ["Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, "
                                            "int[1] padding=0, int[1] output_padding=0, int groups=1, "
                                            "int[1] dilation=1"],
    ("nn.functional", "bilinear"): ["Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None"],
    ("nn.functional", "linear"): ["Tensor input, Tensor weight, Tensor? bias=None, *, Tensor? out=None"],
    ("nn.functional", "cosine_embedding_loss"): ["Tensor input1, Tensor input2, Tensor target, float margin=0, "
                                                 "object size_average=None, object reduce=None, "
                                                 "object reduction=None"],
    ("nn.functional", "triplet_margin_loss"): ["Tensor anchor, Tensor positive, Tensor negative, float margin=1, "
                                               "float p=2, float eps=1e-06, bool swap=False, "
                                               "object size_average=None, object reduce=None, "
                                               "object reduction=None"],
    ("nn.functional", "hinge_embedding_loss"): ["Tensor input, Tensor target, float margin=1, "
                                                "object size_average=None, object reduce=None, "
                                                "object reduction=None"],
    ("nn.functional", "layer_norm"): ["Tensor input, int[] normalized_shape, Tensor? weight=None, "
                                      "Tensor? bias=None, float eps=1e-05"],
    ("nn.functional", "rms_norm"): ["Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None"],
    ("nn.functional", "group_norm"): ["Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
                                      "float eps=1e-05"],
    ("nn.functional", "max_pool1d"): ["Tensor input, int[1] kernel_size, int[1]? stride=None, int[1] padding=0, "
                                      "int[1] dilation=1, bool ceil_mode=False, bool return_indices=False"],
    ("nn.functional", "max_pool2d"): ["Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, "
                                      "int[2] dilation=1, bool ceil_mode=False, bool return_indices=False"],
    ("nn.functional", "max_pool3d"): ["Tensor input, int[3] kernel_size, int[3]? stride=None, int[3] padding=0, "
                                      "int[3] dilation=1, bool ceil_mode=False, bool return_indices=False"],
    # ops whose Number arguments take a tensor only as torch's parser does (0-dim, not requiring grad): F.X's
    # ``object inplace``: the Python parameter torch's C function lacks, whose True calls (and names) ``X_``
    # (F.hardtanh compares its bounds first, then parses them: its body checks them)
    **{("nn.functional", k): [f"Tensor input, {a}, object inplace=False"] for k, a in (
        ("leaky_relu", "Scalar negative_slope=0.01"), ("elu", "Scalar alpha=1"), ("celu", "Scalar alpha=1."),
        ("threshold", "Scalar threshold, Scalar value"),
        ("rrelu", "Scalar lower=0.125, Scalar upper=0.3333333333333333, object training=False"))},
    **{("nn.functional", k): [f"Tensor input, {a}"] for k, a in (
        ("leaky_relu_", "Scalar negative_slope=0.01"), ("hardtanh_", "Scalar min_val=-1, Scalar max_val=1"),
        ("elu_", "Scalar alpha=1"), ("celu_", "Scalar alpha=1."), ("threshold_", "Scalar threshold, Scalar value"),
        ("rrelu_", "Scalar lower=0.125, Scalar upper=0.3333333333333333, object training=False"),
        ("softplus", "Scalar beta=1, Scalar threshold=20"), ("softshrink", "Scalar lambd=0.5"), ("glu", "int dim=-1"))},
    ("torch", "hardshrink"): ["Tensor self, Scalar lambd=0.5"],
    ("torch", "renorm"): ["Tensor self, Scalar p, int dim, Scalar maxnorm"],
    ("torch", "nan_to_num"): ["Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, Tensor? out=None"],
    ("Tensor", "new_full"): ["Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
                             "Layout? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"],
    ("torch", "diff"): ["Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None, *, "
                        "Tensor? out=None"],
    ("torch", "dist"): ["Tensor self, Tensor other, Scalar p=2"],
    ("torch", "mvlgamma"): ["Tensor self, int p, *, Tensor? out=None"],
    # spectral
    ("torch", "istft"): ["Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                         "bool center=True, bool normalized=False, bool? onesided=None, int? length=None, "
                         "bool return_complex=False"],
    ("torch", "stft"): ["Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                        "bool center=True, str pad_mode=\"reflect\", bool normalized=False, bool? onesided=None, "
                        "bool? return_complex=None, bool? align_to_window=None"],
    # ops whose value checks (an input's rank, an index's dtype) would come before torch's parser
    **{("torch", n): ["Tensor self, SymInt diagonal=0, *, Tensor? out=None"] for n in ("tril", "triu")},
    ("torch", "diag"): ["Tensor self, int diagonal=0, *, Tensor? out=None"],
    ("torch", "diag_embed"): ["Tensor self, int offset=0, int dim1=-2, int dim2=-1"],
    ("torch", "diagonal_copy"): ["Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor? out=None"],
    ("torch", "take"): ["Tensor self, Tensor index, *, Tensor? out=None"],
    ("torch", "nanmean"): ["Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
                           "Tensor? out=None"],
    **{("torch", n): ["Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False",
                      "Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False",
                      "Tensor self, bool unbiased=True"] for n in ("std_mean", "var_mean")},
}

# torch.full lives in torchlike._creation, below this package (its op modules import it): its parser error reads
# this signature
_creation.FULL_SIGNATURE.append(Signature("full", [
    "SymInt[] size, Scalar fill_value, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=False, bool requires_grad=False"]))

