"""The op table: every operator is declared once and its surfaces are generated from it.

An entry is a Python function with torch's signature (it computes the result dtype with
``_dtype.result_type`` and calls ``dispatch`` with a JAX function) plus flags that say which
surfaces it has: ``torchlike.X`` (or another namespace), ``Tensor.X``, ``Tensor.X_`` and ``out=``.
``install()`` generates those surfaces; the conformance harness reads ``TABLE``.

    >>> import torchlike
    >>> torchlike._ops.registry.TABLE['torch', 'add'].inplace
    True
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from typing import Callable

import numpy as np

from .. import _errors
from .._errors import inplace_error, method_argument_error, renamed
from .. import _profiler_state as _prof, _torch_function
from .. import _dtype
from ..tensor import Tensor
from ._parser_errors import (ATTRIBUTE_ERROR_LIKE_TORCH, NOT_OVERRIDDEN, PARSER_FAILURES, PYTHON_LEVEL_IN_TORCH,
                             overridden, parser_error, raise_if_unparsed, raise_parser_error, unparsed)
from .signatures import SIGNATURES, Signature, none_rejected, number_slots, rejecting_none, rejecting_tensors
from .tensor_operators import BINARY_OPERATORS, OWN_OPERATORS, _operator, _own_function  # noqa: F401  (re-exported)
from .._mutation import check_inplace, check_no_overlap, check_out_overlap, write_out  # noqa: F401  (re-exported: the ops' import path)
from .._mutation import on_inplace
from .._dispatch import host_pointwise

__all__ = ["OpEntry", "TABLE", "register", "functional", "declares", "install", "sparse_kernels", "write_out",
           "check_no_overlap"]


@dataclasses.dataclass
class OpEntry:
    name: str
    fn: Callable
    namespaces: tuple = ("torch",)
    method: bool = True
    inplace: bool = False
    out: bool = False
    promote: str = "same"  # same | float | result_type | bool | int | complex | none (float, bool: tests/test_registry.py checks torch agrees)
    # False: no grad_fn (tests/test_registry.py checks it against torch); an ATen name: torch's NotImplemented
    # node, recorded when an input requires grad, whose backward raises
    differentiable: bool | str = True
    dunders: tuple = ()
    checks: tuple = ()  # argument checks (see _ops/checks.py), already applied to ``fn``
    aten: str = ""  # torch's op name in its messages (``div`` for true_divide, ``special_erfcx``); default: name
    # the op on sparse operands: ``sparse(surface, args, kwargs)`` -> a callable running the sparse kernel on those
    # arguments, or None (no sparse kernel: the dense error stands). torchlike.sparse (a layer above) fills it
    # through ``sparse_kernels`` before ``install``, which then makes the namespace functions and the in-place
    # method fall back to it when the dense kernel raises NotImplementedError (it reads a sparse operand's data):
    # no cost while every argument is dense
    sparse: Callable | None = None
    # what ``install`` put in the entry's namespaces (``fn`` with its out= and sparse surfaces); None before
    public: Callable | None = None
    # out= rules of torch's kernel beyond "no internal overlap" (an expanded out always raises): "any" (out may
    # share no memory with an argument: index_select, kthvalue), "partial" (out may alias an argument exactly,
    # not in part: elementwise ops, the default for the pointwise modules), None (not checked; declared "none" in
    # a pointwise module)
    out_overlap: str | None = None
    # the in-place method's overlap rule (see _mutation.check_inplace), checked before the op: "partial" (the
    # default for elementwise ops), "any", "internal" (the default otherwise); "writes": no check, an expanded self
    # is written as torch's fill-like kernels do; a callable ``check(self, args, kwargs)`` -> that "writes" flag
    inplace_overlap: str | Callable | None = None
    out_same_dtype: object = False  # out must have the result's dtype, no cast (complex, polar; a callable:
    # its message, out_dtype_message)
    # the op's own ``out=`` form, ``out_form(out, *args, **kwargs)``, where torch's out= kernel has checks of its
    # own (gather's dtype message, multinomial's Long out): the namespace function calls it when out is given,
    # so ``fn`` (also the Tensor method, which takes no out= in torch) has no ``out`` parameter
    out_form: Callable | None = None
    # the Tensor method takes its int-list argument spread out as well (``x.flip(0, 1)``, ``x.vsplit(1, 2)``)
    method_varargs: bool = False
    alias: bool = False  # another name of an op (``subtract``: ``sub``'s entry), whose errors name the alias called


# (namespace, name) -> entry; the namespace is the entry's first (``"Tensor"`` for a method-only entry), so
# torch.softmax and special.softmax, torch.cross and linalg.cross are separate entries
TABLE: dict[tuple, OpEntry] = {}
_CLAIMS: dict[tuple, tuple] = _errors.OP_SURFACES  # each surface ("torch", "add"), ("Tensor", "add_") -> the TABLE
# key declaring it (_errors reads it: a parser error names the surface called)


def _surfaces(e):
    out = [(ns, e.name) for ns in e.namespaces]
    if e.method:
        out.append(("Tensor", e.name))
    if e.inplace:
        out.append(("Tensor", e.name + "_"))
    out += [("Tensor", d) for d in e.dunders]
    return out


def _add(entry):
    key = (entry.namespaces[0] if entry.namespaces else "Tensor", entry.name)
    surfaces = _surfaces(entry)
    for s in [key] + surfaces:
        if s in _CLAIMS or s in TABLE:
            other = TABLE[_CLAIMS.get(s, s)].fn
            raise ValueError(f"op table: {'.'.join(s)} is declared twice ({entry.fn.__module__}."
                             f"{entry.fn.__qualname__} and {other.__module__}.{other.__qualname__})")
    TABLE[key] = entry
    for s in surfaces:
        _CLAIMS[s] = key


def declares(namespace, name):
    """Whether an entry declares ``namespace.name`` (as its key or one of its surfaces)."""
    return (namespace, name) in _CLAIMS or (namespace, name) in TABLE


def _keywords_as_positions(fn, args, kwargs):
    """``(args, kwargs)`` with the arguments ``fn`` takes by position or keyword moved to positions, or None
    when there is nothing to move (or ``fn`` rejects the call: its own error is then the one to raise)."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    if len(bound.args) == len(args):
        return None
    return bound.args, bound.kwargs


def _checked(fn, checks, name):
    """``fn`` running ``checks`` (each ``check(name, *args, **kwargs)``, raising torch's error) first.  A check's
    TypeError on a tensor-like argument (one overriding ``__torch_function__``) switches that protocol on and
    retries through it (see _torch_function)."""
    def rejected(e, args, kwargs):  # a check raised TypeError: a tensor-like's override, or torch's parser error
        if kwargs and e.__traceback__ is not None and e.__traceback__.tb_next is None:
            moved = _keywords_as_positions(fn, args, kwargs)  # the check's own parameters did not take the op's
            if moved is not None:  # keywords (``x.pow(exponent=2)``): pass those by position, as the op binds them
                return checked(*moved[0], **moved[1])
        if _torch_function.retry_with_overrides(args, kwargs):
            return _torch_function.redispatch(name, checked, args, kwargs)
        err = parser_error(e, fn, name, args, kwargs, positions=False)
        if err is None:
            raise e
        raise err from None

    def failed(e, args, kwargs):  # the body raised: a tensor-like's override, or torch's TypeError for an argument
        r = overridden(checked, args, kwargs)  # of the wrong Python type
        if r is not NOT_OVERRIDDEN:
            return r
        raise_parser_error(e, fn, name, args, kwargs, positions=False)

    if len(checks) == 1:
        check = checks[0]

        def checked(*args, **kwargs):
            try:
                check(name, *args, **kwargs)
            except TypeError as e:
                return rejected(e, args, kwargs)
            except Exception:  # a value check: torch's parser would have rejected a wrong type first
                raise_if_unparsed(fn, name, args, kwargs, positions=False)
                raise
            try:
                return fn(*args, **kwargs)
            except (AttributeError, ValueError, TypeError) as e:
                return failed(e, args, kwargs)
            except Exception:
                raise_if_unparsed(fn, name, args, kwargs, positions=False)
                raise
    else:
        def checked(*args, **kwargs):
            try:
                for c in checks:
                    c(name, *args, **kwargs)
            except TypeError as e:
                return rejected(e, args, kwargs)
            except Exception:
                raise_if_unparsed(fn, name, args, kwargs, positions=False)
                raise
            try:
                return fn(*args, **kwargs)
            except (AttributeError, ValueError, TypeError) as e:
                return failed(e, args, kwargs)
            except Exception:
                raise_if_unparsed(fn, name, args, kwargs, positions=False)
                raise
    functools.update_wrapper(checked, fn)
    checked.parses_on_failure = True
    checked.__name__ = name
    checked.__code__ = checked.__code__.replace(co_name=name, co_qualname=name)  # (caller_op names the op)
    return checked


_NUMPY_NAMES = (("axis", "dim"), ("keepdims", "keepdim"))


def _takes(fn, names):
    while hasattr(fn, "__wrapped__"):  # decorated ops (autocast policies) keep their signature underneath
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return any(n in params for n in names)


# torch's bool parameters among the arguments of the ops taking a dim: its parser takes exactly True or False
# there (not 1, numpy's bool, None or a str), where the op body's truth test would let any value through
# (``x.sum(0, "x")``); ``stable`` and ``unbiased`` are optional (None) in torch's signatures too
_FLAGS = frozenset({"keepdim", "descending", "stable", "largest", "sorted", "return_inverse", "return_counts",
                    "include_self", "sparse_grad", "unbiased"})
_FLAGS_OPTIONAL = frozenset({"stable", "unbiased"})
# ops whose torch signature has a dim that is not optional, where torchlike's default None means "not given":
# a None given for it is torch's parser error (``x.max(None)``), not the whole-tensor reduction; what it takes
_DIM_REQUIRED = {"max": "int", "min": "int", "median": "int", "nanmedian": "int", "prod": "int",
                 "logsumexp": "tuple of ints", "squeeze": "int", "squeeze_": "int"}


def _argument_checks(fn):
    """The arguments of ``fn`` (unwrapped) that ``_numpy_names`` checks: ``((position, name), ...)`` of its
    flags (position None: keyword-only) and the position of a required dim (None: none)."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = fn.__code__
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    flags = tuple((k if k < code.co_argcount else None, n) for k, n in enumerate(params) if n in _FLAGS)
    dim = params.index("dim") if fn.__name__ in _DIM_REQUIRED and "dim" in params[:code.co_argcount] else None
    return flags, dim


def _numpy_names(fn, serves_method=True):
    """``fn`` also taking numpy's keyword names, as torch's argument parser does: ``axis=`` for ``dim=``,
    ``keepdims=`` for ``keepdim=`` (``x.sum(axis=1, keepdims=True)``), and rejecting what torch's parser rejects
    in its bool arguments (``_FLAGS``) and required dims (``_DIM_REQUIRED``); the success path pays a length
    test (and, with keywords, a dict look-up per flag).  ``serves_method``: ``fn`` is the Tensor method too, so
    its arity errors are the method's (``torch.split(x)``, a function only, keeps Python's ``split() missing
    ...``); either way its errors give no positions (torch's Python-level functions call the method form)."""
    flags, dim_at = _argument_checks(fn)
    at = tuple(k for k, _ in flags if k is not None)
    dim_required = dim_at is not None
    dim_at = 1 << 30 if dim_at is None else dim_at
    first = min(at + (dim_at,), default=1 << 30)  # no flag nor required dim among fewer positional arguments
    keywords = tuple(n for _, n in flags)

    def check(args, kwargs):  # raise the error for an argument torch's parser rejects (a slow path)
        sig = getattr(fn, "torch_signature", None)  # (the op's signatures first: ``torch.unique``'s name its callee)
        err = None if sig is None else sig.error(args, kwargs)
        if err is not None:
            raise err
        for k, n in flags:
            if k is not None and k < len(args):
                v, k = args[k], k
            elif n in kwargs:
                v, k = kwargs[n], None
            else:
                continue
            if v is not True and v is not False and (v is not None or n not in _FLAGS_OPTIONAL):
                raise method_argument_error(v, "bool", n, fn.__name__, k)
        if len(args) > dim_at and args[dim_at] is None or dim_required and "dim" in kwargs and kwargs["dim"] is None:
            raise method_argument_error(None, _DIM_REQUIRED[fn.__name__], "dim", fn.__name__,
                                        dim_at if len(args) > dim_at else None)

    @functools.wraps(fn)
    def numpy_names(*args, **kwargs):
        if kwargs:
            if "axis" in kwargs or "keepdims" in kwargs:
                for alias, name in _NUMPY_NAMES:
                    if alias in kwargs:
                        if name in kwargs:  # torch's parser then sees the alias as an unknown name
                            raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{alias}'")
                        kwargs[name] = kwargs.pop(alias)
            for n in keywords:
                if (v := kwargs.get(n, False)) is not True and v is not False:
                    check(args, kwargs)
            if dim_required and "dim" in kwargs:
                check(args, kwargs)
        if len(args) > first:  # (one test on the success path of a call passing no flag positionally)
            if args[dim_at if len(args) > dim_at else 0] is None:
                check(args, kwargs)
            for k in at:
                if k < len(args) and (v := args[k]) is not True and v is not False:
                    check(args, kwargs)
        try:
            return fn(*args, **kwargs)
        except PARSER_FAILURES as e:
            r = overridden(numpy_names, args, kwargs)
            if r is not NOT_OVERRIDDEN:
                return r
            raise_parser_error(e, fn, fn.__name__, args, kwargs, positions=False, method=serves_method)
        except Exception:
            raise_if_unparsed(fn, fn.__name__, args, kwargs, positions=False)
            raise
    # the op's own name on the frame too (sparse's "Could not run 'aten::<op>'" reads the calling frame)
    numpy_names.__code__ = numpy_names.__code__.replace(co_name=fn.__name__,
                                                        co_qualname=getattr(fn, "__qualname__", fn.__name__))
    numpy_names.parses_on_failure = True
    return numpy_names


# the modules of elementwise (TensorIterator) ops: their out= may alias an argument exactly, not in part
_ELEMENTWISE_MODULES = frozenset({"torchlike._ops._util", "torchlike._ops.pointwise", "torchlike._ops.pointwise_composite",
                                  "torchlike._ops.special"})


def register(name=None, *, namespaces=("torch",), method=True, inplace=False, out=False, promote="same",
             differentiable=True, dunders=(), aliases=(), checks=(), aten=None, inline_checks=(), out_overlap=None,
             out_same_dtype=False, method_varargs=False, inplace_overlap=None, out_form=None):
    """Declare an op.  The decorated function is torch's functional form; ``checks`` (see _ops/checks.py) run
    before it on every surface; ``aten`` is the name torch's messages use (default: ``name``, prefixed with a
    namespace other than torch's, as ``special_erfcx``; aliases use their op's).  Returns the function as
    declared (checks included).  ``inline_checks``: checks ``fn`` already runs itself (recorded in the entry).
    ``out_overlap``/``out_same_dtype``: the ``out=`` rules, ``inplace_overlap`` the in-place method's (see OpEntry);
    ``method_varargs``, ``out_form`` (implies ``out``): see OpEntry.  ``fn`` itself takes no ``out``: it is the
    Tensor method too, and torch's methods have no out= (``x.add(y, out=z)`` is a TypeError).
    """
    checks = tuple(checks)

    def deco(fn):
        n = name or fn.__name__
        overloads = SIGNATURES.get((namespaces[0] if namespaces else "Tensor", n))
        if overloads is not None:  # (the wrappers below copy it: functools.wraps)
            fn.torch_signature = Signature(aten or n, overloads)
        code = getattr(fn, "__code__", None)
        if code is not None and "<locals>" in fn.__qualname__:  # a factory's closure: its frames and Python's
            fn.__code__ = code.replace(co_name=n, co_qualname=n)  # arity errors name its op (caller_op, tracebacks)
            fn.__qualname__ = n
            inner = getattr(fn, "__wrapped__", None)  # under a layout decorator: the factory's body, which
            if type(inner) is types.FunctionType and "<locals>" in inner.__qualname__:  # caller_op names
                inner.__code__ = inner.__code__.replace(co_name=n, co_qualname=n)
        elif code is not None and fn.__name__ != n and (not namespaces or fn.__name__.startswith("_")):
            fn = renamed(fn, n)  # a function under a private Python name (``_where_method``, ``_float_power``): the
            # same, its copy under the op's name (``x.where(c, y, out=z)``: "where() got an unexpected keyword ...")
        at = none_rejected(fn.torch_signature, fn) if overloads is not None else ()
        if at:  # (an explicit None where the op's default None means "not given": torch's parser error)
            fn = rejecting_none(fn, fn.torch_signature, at)
        slots = number_slots(fn.torch_signature) if overloads is not None else ((), ())
        if slots[0]:  # (a tensor where torch takes only a number: its parser's rule, see signatures.number_slots)
            fn = rejecting_tensors(fn, fn.torch_signature, slots)
        ns = tuple(namespaces)
        functional = bool(ns) and ns[0] == "nn.functional"  # torch's Python-level F.X: its own argument names
        if _takes(fn, ("dim", "keepdim")) and not functional:
            fn = _numpy_names(fn, serves_method=bool(method))
        elementwise = getattr(fn, "__module__", None) in _ELEMENTWISE_MODULES
        entry = OpEntry(n, _checked(fn, checks, n) if checks else fn, ns, method, inplace,
                        out or out_form is not None, promote,
                        differentiable, tuple(dunders), tuple(inline_checks) + checks,
                        aten or (n if not ns or ns[0] in ("torch", "nn.functional") else f"{ns[0]}_{n}"),
                        out_overlap=(out_overlap or ("partial" if elementwise and out_form is None else None))
                        if out_overlap != "none" else None,
                        out_same_dtype=out_same_dtype, out_form=out_form,
                        method_varargs=method_varargs,
                        inplace_overlap=inplace_overlap or ("partial" if elementwise else "internal"))
        _add(entry)
        for a in aliases:
            _add(dataclasses.replace(entry, name=a, dunders=(), fn=_checked(fn, checks, a) if checks else fn,
                                     alias=True))
        return entry.fn
    return deco


def functional(name=None, *, torch=False, **kwargs):
    """Declare a ``torch.nn.functional`` function: ``register`` in the "nn.functional" namespace with no Tensor
    method (``torch=True``: ``torchlike.X`` too, where torch's ``torch.X`` is ``F.X``).  Its namespace function is
    the declared function itself (no wrapper: torch's F functions are Python that checks its own arguments),
    homed at ``torchlike.nn.functional``; install makes it when that package has loaded.

    >>> import torchlike
    >>> e = torchlike._ops.registry.TABLE['nn.functional', 'relu']
    >>> e.public is torchlike.nn.functional.relu, e.method, e.public.__module__
    (True, False, 'torchlike.nn.functional')
    """
    return register(name, namespaces=("nn.functional", "torch") if torch else ("nn.functional",), method=False,
                    **kwargs)


def _typed(fn, name, positions=True):
    """``fn`` as a namespace function: where its body reads a tensor attribute of a first argument that is
    not a Tensor (``torch.sum(3)``), torch's TypeError instead of Python's AttributeError, and where it failed
    on an argument of a type the op's torch signatures reject, torch's parser error.  Nothing runs on the
    success path but the call.  ``positions=False``: the Tensor method of an op with torch signatures (its
    messages count positions without ``self``)."""
    @functools.wraps(fn)
    def typed(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except PARSER_FAILURES as e:
            r = overridden(typed, args, kwargs)
            if r is not NOT_OVERRIDDEN:
                return r
            raise_parser_error(e, fn, name, args, kwargs, positions)
        except Exception:
            raise_if_unparsed(fn, name, args, kwargs, positions)
            raise
    return typed


def _checks_operands(e):
    """No argument-type wrapper needed: the unary/binary factories check their operands themselves (and
    are the hottest namespace functions), and torch's own Python-level functions (nn.functional's among them)
    raise what their bodies raise."""
    return (e.name in ATTRIBUTE_ERROR_LIKE_TORCH or getattr(e.fn, "__module__", None) == "torchlike._ops._util"
            or e.namespaces[:1] == ("nn.functional",))


def _check_out_type(fn, name, args, kwargs, out):
    """An ``out=`` that is not a Tensor: torch's parser error where the op's signatures take none (a tuple or list
    only where they declare several outputs; ``torch.mm(a, b, out=1)``, ``torch.exp(a, out=(t,))``)."""
    sig = getattr(fn, "torch_signature", None)
    if sig is not None and any(p.name == "out" for o in sig.overloads for p in o.params):  # (declared: its words)
        err = unparsed(fn, name, args, {**kwargs, "out": out}, True)
        if err is not None:
            raise err
    elif not isinstance(out, (tuple, list)):  # (a tuple or list: checked against the result's count after the call)
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")


def _with_out(fn, name, rule=None, exact=False, own=None, called=None):
    """``fn`` with torch's ``out=`` keyword; ``rule``/``exact``/``own``: the entry's out_overlap/out_same_dtype/
    out_form.  ``name``: the op its kernel's errors name (``div``), ``called`` (default ``name``) the one its
    argument-parser errors name (the alias called, ``true_divide``)."""
    parsed = called or name

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is not None:
            if not isinstance(out, Tensor):
                _check_out_type(fn, parsed, args, kwargs, out)
            check_out_overlap(out, args, rule)
        try:
            r = fn(*args, **kwargs) if out is None or own is None else own(out, *args, **kwargs)
        except PARSER_FAILURES as e:
            r = overridden(wrapper, args, kwargs if out is None else {**kwargs, "out": out})
            if r is not NOT_OVERRIDDEN:
                return r
            raise_parser_error(e, fn, parsed, args, kwargs)
        except Exception:
            raise_if_unparsed(fn, parsed, args, kwargs)
            raise
        if out is None or own is not None:
            return r
        if isinstance(out, (tuple, list)) and isinstance(r, Tensor):  # (several outs for one result)
            raise TypeError(f"{parsed}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if exact and out.dtype is not r.dtype:  # (no cast into out: torch's check names both dtypes)
            if callable(exact):  # (the op's own words: out_dtype_message)
                raise RuntimeError(exact(args, r.dtype, out.dtype))
            raise RuntimeError(f"Expected object of scalar type {_dtype._CAP[r.dtype.name]} but got scalar type "
                               f"{_dtype._CAP[out.dtype.name]} for argument 'out'")
        return write_out(out, r, name)
    return wrapper


# install()'s first call (its namespaces and Tensor class): the table's surfaces are generated, so a field set
# now would not reach them
_INSTALLED = []


def out_dtype_message(kind):
    """An ``out_same_dtype`` rule for the BLAS-backed products, whose out must have the result's dtype: the words
    of torch's check for ``kind`` (mm, dot, mv, addbmm; matmul: those of the product its operands' ranks pick)."""
    def message(args, rd, od):
        k = kind
        if k == "matmul":
            k = {(1, 1): "dot", (2, 1): "mv"}.get((args[0].ndim, args[1].ndim), "mm")
        c, n = _dtype.C_NAMES, _dtype._CAP
        if k == "dot":
            return f"result dtype {n[od.name]} does not match input dtype {n[rd.name]}"
        if k == "mv":
            return f"addmv input tensors must have the same dtype, but got {n[od.name]}, {n[rd.name]}, and {n[rd.name]}"
        if k == "addbmm":
            return f"self and mat2 must have the same dtype, but got {n[od.name]} and {n[rd.name]}"
        return f"Expected out tensor to have dtype {c.get(rd.name, rd.name)}, but got {c.get(od.name, od.name)} instead"
    return message


# the out_same_dtype rule of torch's structured kernels (scatter*, index_add/copy/reduce, msort, take_along_dim):
# out must have the result's dtype, "Expected out tensor to have dtype float, but got double instead"
STRUCTURED_OUT = out_dtype_message("structured")


def sparse_kernels(names, kernel):
    """Fill the ``sparse`` field of the torch ops ``names`` (see OpEntry.sparse); before ``install``."""
    if _INSTALLED:
        raise RuntimeError("op table: sparse kernels must be declared before install()")
    for n in names:
        TABLE["torch", n].sparse = kernel


def _with_sparse(fn, surface, sparse):
    """``fn`` (a namespace function) retrying on ``sparse``'s kernel when the dense kernel met a sparse operand."""
    def with_sparse(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:  # a dense kernel read a sparse operand's data
            kernel = sparse(surface, args, kwargs)
            if kernel is None:
                raise
        return kernel()  # outside the handler: its errors are not chained to the dense one
    functools.update_wrapper(with_sparse, fn)
    return with_sparse


def _int_element(a):
    """An int list's element to torch's parser: an int (not a bool) or a 0-dim integer tensor."""
    if isinstance(a, (int, np.integer)):
        return not isinstance(a, bool)
    return isinstance(a, Tensor) and a.ndim == 0 and not (a.is_floating_point() or a.is_complex())


# ops whose namespace function takes only an int list where the method also takes one int as that list
_LONE_INT_IS_LIST = frozenset({"flip", "permute"})


def _spread(fn):
    """The method of an op whose torch method form also takes its int list spread out (``x.flip(0, 1)`` is
    ``x.flip((0, 1))``): two or more positional arguments are that list."""
    params = list(inspect.signature(fn).parameters)
    arg = "indices" if fn.__name__.endswith("split") else params[1] if len(params) > 1 else "dims"  # (torch's names)
    lone_int = fn.__name__ in _LONE_INT_IS_LIST

    def method(self, *args, **kwargs):
        if len(args) > 1:
            for k, a in enumerate(args):  # torch's parser unpacks them as one int list: a non-int fails there
                if not _int_element(a):
                    raise TypeError(f"{fn.__name__}(): argument '{arg}' failed to unpack the object at pos {k + 1} "
                                    f"with error \"type must be tuple of ints,but got {type(a).__name__}\"")
            args = (args,)
        elif lone_int and len(args) == 1 and _int_element(args[0]):
            args = ((args[0],),)  # x.flip(0): the method's varargs; torch.flip(x, 0) is a TypeError
        try:
            return fn(self, *args, **kwargs)
        except PARSER_FAILURES as e:
            r = overridden(method, (self,) + args, kwargs)
            if r is not NOT_OVERRIDDEN:
                return r
            raise_parser_error(e, fn, fn.__name__, (self,) + args, kwargs, positions=False)
        except Exception:
            raise_if_unparsed(fn, fn.__name__, (self,) + args, kwargs, positions=False)
            raise
    method.__name__, method.__qualname__, method.__doc__, method.__wrapped__ = fn.__name__, fn.__qualname__, \
        fn.__doc__, fn
    method.__code__ = method.__code__.replace(co_name=fn.__name__, co_qualname=fn.__name__)  # (caller_op)
    return method


def _inplace_failure(e, fn, name, self, args, kwargs):
    """The error an in-place method raises for ``e``, raised by its out-of-place op ``fn``; None: ``e`` itself."""
    err = unparsed(fn, name + "_", (self,) + args, kwargs, positions=False)
    if err is not None:
        return err
    if isinstance(e, RuntimeError):  # torch names the written-to tensor first in a broadcasting clash
        err = inplace_error(e, self, args)
        return None if err is e else err
    err = parser_error(e, fn, name + "_", (self,) + args, kwargs, positions=False)  # an argument's wrong type
    if err is None and type(e) is TypeError and e.args and str(e.args[0]).startswith(name + "("):
        err = TypeError(name + "_" + e.args[0][len(name):])  # the out-of-place op's: torch names the method
    return err


_INPLACE_FAILURES = (RuntimeError, AttributeError, ValueError, TypeError)


def _make_inplace(fn, name, sparse=None, overlap="internal"):
    rule = overlap if isinstance(overlap, str) and overlap != "writes" else None  # (see OpEntry.inplace_overlap)
    check = overlap if callable(overlap) else None
    aliased = overlap == "writes"
    # (ufunc, dtypes) of an op whose host result keeps its operands' dtype (add, sub, mul: ``host_ufunc``)
    ufunc, dtypes = getattr(fn, "host_ufunc", (None, None))

    def inplace(self, *args, **kwargs):
        # a dispatch mode (or a __torch_dispatch__ subclass) sees torch's in-place overload (aten.add_.Tensor)
        if _prof.MODES or _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:
            return _prof.MODE_INPLACE[0](inplace, name + "_", self, args, kwargs)
        if ufunc is not None and self.__class__ is Tensor and self._x.__class__ is np.ndarray and len(args) == 1 \
                and not kwargs and not on_inplace and host_pointwise(ufunc, self, args[0], dtypes, True) is not None:
            return self  # host tensors of one dtype and shape (or one and a number): numpy, self stays on the host
            # (two host tensors never share memory but as self.add_(self), which the overlap rules allow)
        if rule is not None:
            check_inplace(self, args, kwargs, rule)
        w = check(self, args, kwargs) if check is not None else aliased
        try:
            r = fn(self, *args, **kwargs)
        except _INPLACE_FAILURES as e:
            r = overridden(inplace, (self,) + args, kwargs)
            if r is not NOT_OVERRIDDEN:
                return r
            err = _inplace_failure(e, fn, name, self, args, kwargs)
            if err is None:
                raise
            raise err from None
        return self._inplace_update(r, w)

    def inplace_or_sparse(self, *args, **kwargs):  # the same, falling back to the sparse kernel (dense.add_(sparse))
        if _prof.MODES or _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:
            return _prof.MODE_INPLACE[0](inplace_or_sparse, name + "_", self, args, kwargs)
        if ufunc is not None and self.__class__ is Tensor and self._x.__class__ is np.ndarray and len(args) == 1 \
                and not kwargs and not on_inplace and host_pointwise(ufunc, self, args[0], dtypes, True) is not None:
            return self  # (as inplace's)
        if rule is not None:
            check_inplace(self, args, kwargs, rule)
        w = check(self, args, kwargs) if check is not None else aliased
        try:
            try:
                r = fn(self, *args, **kwargs)
            except _INPLACE_FAILURES as e:
                r = overridden(inplace, (self,) + args, kwargs)
                if r is not NOT_OVERRIDDEN:
                    return r
                err = _inplace_failure(e, fn, name, self, args, kwargs)
                if err is None:
                    raise
                raise err from None
            return self._inplace_update(r, w)
        except NotImplementedError:  # a dense kernel read a sparse operand's data
            kernel = sparse(name + "_", (self,) + args, kwargs)
            if kernel is None:
                raise
        return kernel()

    if sparse is not None:
        inplace = inplace_or_sparse
    inplace.__name__ = inplace.__qualname__ = name + "_"
    inplace.__doc__ = f"In-place version of :meth:`Tensor.{name}`."
    return inplace


# methods of ops with torch signatures that stay the declared function itself (no wrapper frame): the hot ones,
# called per step by models (state copies, ``torch.where``); their namespace functions and in-place forms still
# raise torch's parser errors
_BARE_METHODS = frozenset({"copy_", "fill_", "where"})
# the other methods kept without a wrapper frame (see ``method_parses``): the cheap per-step ones, whose wrapper
# would cost a measurable share of the call (``x.t()``: 8%), and the dunders (Python's protocols call them)
_HOT_METHODS = _BARE_METHODS | frozenset({
    "clone", "contiguous", "to", "zero_", "t", "view", "view_as", "reshape", "expand", "expand_as", "as_strided",
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "square", "backward", "data_ptr",
    "untyped_storage", "storage"})


def _parses_late(fn):
    """Whether the Tensor method ``fn`` needs a wrapper to raise torch's parser error on its failure path: it has
    torch signatures and no checks/flag wrapper (which do it already).  Its cost: one call frame, on the ops that
    declare signatures (failure-prone ones: value checks that would otherwise come first)."""
    return getattr(fn, "torch_signature", None) is not None and not getattr(fn, "parses_on_failure", False)


def method_parses(fn, name):
    """Whether install makes Tensor method ``name`` (op function ``fn``) ``_typed``'s wrapper, which raises torch's
    parser errors on the failure path: the ops with torch signatures (``_parses_late``) but ``_BARE_METHODS``, and
    the others with no wrapper of their own but the hot ones (``_HOT_METHODS``, the elementwise factories'), so
    that a call that does not fit says what torch's says (``x.triu(1.5)``: the argument's position; ``x.matmul()``:
    its parser's missing-argument words; ``x.numpy(1)``: counts without ``self``; see _parser_errors)."""
    if name in _BARE_METHODS:
        return False
    if _parses_late(fn):
        return True
    return not (getattr(fn, "parses_on_failure", False) or name in _HOT_METHODS or name.startswith("__")
                or name in PYTHON_LEVEL_IN_TORCH  # (torch's own Python: its errors are Python's, as torchlike's)
                or getattr(fn, "__module__", None) == "torchlike._ops._util")


def install(namespaces: dict, tensor_cls=None):
    """Generate the surfaces of every entry in TABLE not generated yet: namespace functions, methods, in-place
    methods, dunders.  A namespace given as None has not loaded yet (``nn.functional``, whose package needs the
    finished torch namespace): its entries wait, whole, for the call that gives it, with no ``tensor_cls``: the
    namespaces and Tensor class of the first call, plus those given."""
    def put(obj, attr, value, where):
        if attr in vars(obj):
            raise RuntimeError(f"op table: {where}.{attr} is already defined ({vars(obj)[attr]!r}); "
                               "declare each op once")
        setattr(obj, attr, value)

    if tensor_cls is None:
        first, tensor_cls = _INSTALLED[0]
        namespaces = {**first, **namespaces}
    else:
        _INSTALLED.append((namespaces, tensor_cls))
    for (_, name), e in TABLE.items():
        if e.public is not None or any(namespaces.get(ns) is None for ns in e.namespaces):
            continue
        if "<locals>" in e.fn.__qualname__:  # made by a factory (``unary``): its repr names the op, as torch's
            e.fn.__qualname__ = e.fn.__name__
        inner = getattr(e.fn, "__wrapped__", None)  # under a layout decorator (_memory_format._after): the body's
        if inner is not None and "<locals>" in inner.__qualname__:  # own call errors name the op too
            inner.__qualname__ = e.fn.__name__
        own, called = _alias_function(e, name)
        public = _with_out(own, e.aten, e.out_overlap, e.out_same_dtype, e.out_form, called) if e.out else \
            own if _checks_operands(e) and not _parses_late(own) else _typed(own, called)
        if e.sparse is not None:
            public = _with_sparse(public, name, e.sparse)
        if e.namespaces[:1] == ("nn.functional",):  # torch.nn.functional.X's home, whichever file defines it
            public.__module__ = namespaces["nn.functional"].__name__
        e.public = public
        for ns in e.namespaces:
            put(namespaces[ns], name, public, ns)
        fn = renamed(e.fn, name)  # (an alias's method: ``Tensor.absolute`` is ``abs``'s function named absolute)
        method = None
        if e.method:
            method = _operator(fn, name) if name in BINARY_OPERATORS else _spread(fn) if e.method_varargs else \
                _typed(fn, name if e.alias else e.aten, positions=False) if method_parses(fn, name) else fn
            put(tensor_cls, name, method, "Tensor")
        if e.inplace:
            put(tensor_cls, name + "_", _make_inplace(fn, name, e.sparse, e.inplace_overlap), "Tensor")
        for d in e.dunders:
            put(tensor_cls, d, method if name in BINARY_OPERATORS and d in BINARY_OPERATORS else  # (one object)
                _operator(e.fn, d) if d in BINARY_OPERATORS else _own_function(e.fn) if d in OWN_OPERATORS else
                e.fn, "Tensor")


def _alias_function(e, name):
    """The namespace function of entry ``e`` (as ``name``) and the op name its errors give: an alias
    (``torchlike.subtract``, sub's entry under another name) gets ``sub``'s code named subtract, so its argument
    errors name the alias called, as torch's do; any other entry its own function and aten name."""
    if not e.namespaces or e.fn.__name__ == name and not e.alias:
        return e.fn, e.aten
    called = name if e.namespaces[0] in ("torch", "nn.functional") else f"{e.namespaces[0]}_{name}"
    if e.aten == called:
        return e.fn, e.aten
    return renamed(e.fn, called), called




# The wrappers' frames sit between a user's call and the op body: their code carries a pass-through file name,
# so an op's warning given with ``stacklevel=2`` names the user's line whether or not a wrapper was in between
# (``x.std(0)`` of one row: torch's degrees-of-freedom warning at the caller's line, not here).
WRAPPER_FILE = _torch_function.pass_through_file(__file__, "op table wrapper")


def _rename_nested(factory):
    factory.__code__ = factory.__code__.replace(co_consts=tuple(
        c.replace(co_filename=WRAPPER_FILE) if isinstance(c, types.CodeType) else c
        for c in factory.__code__.co_consts))


for _factory in (_numpy_names, _typed, _with_out, _with_sparse, _make_inplace, _operator, _spread):
    _rename_nested(_factory)
del _factory
