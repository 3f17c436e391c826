"""torch's argument-parser errors on an op's failure path: where an op raised because an argument had a type
torch's signatures reject (Python's AttributeError/ValueError/TypeError from reading it), the op table's wrappers
(``registry``) turn that into the TypeError torch's parser gives before its kernel runs.  Nothing here runs on the
success path.

    >>> import torchlike
    >>> try:
    ...     torchlike.sum(3)
    ... except TypeError as e:
    ...     print(e)
    sum(): argument 'input' (position 1) must be Tensor, not int
"""
from __future__ import annotations

import inspect
import re

from .. import _torch_function
from .._errors import argument_error
from ..tensor import Tensor

__all__ = ["not_a_tensor", "PARSER_FAILURES", "NOT_OVERRIDDEN", "overridden", "raise_parser_error", "parser_error",
           "raise_if_unparsed", "unparsed", "ATTRIBUTE_ERROR_LIKE_TORCH"]


def not_a_tensor(fn, name, arg):
    """torch's argument-parser error for a namespace function given ``arg`` (not a Tensor) as its first
    argument: ``sum(): argument 'input' (position 1) must be Tensor, not int``."""
    try:
        first = next(iter(inspect.signature(fn).parameters))
    except (StopIteration, TypeError, ValueError):
        first = "input"
    first = "input" if first == "self" else first
    return TypeError(f"{name}(): argument '{first}' (position 1) must be Tensor, not {type(arg).__name__}")


# Python's words when ``int()``/``float()`` met a str: the op took it where torch's signature has a number
_NUMBER_FROM_STR = (("invalid literal for int()", "int"), ("could not convert string to float", "float"))


# Python's own words for an operand of the wrong type (a comparison, arithmetic, iteration or int() of a str,
# None or list), never torch's: its parser rejects the argument before the op body runs
_PYTHON_OPERAND_ERRORS = ("not supported between instances of", "unsupported operand type(s)", "is not iterable",
                          "is not subscriptable", "argument must be a string", "cannot be interpreted as an integer")


# Python's error for a call that does not fit a signature, naming the function called (an internal one)
_PYTHON_ARITY_ERROR = re.compile(r"[\w.<>]+\(\) (?=missing |takes |got an unexpected |got multiple )")


# Python's words for missing arguments, and the torch functions written in Python (torch/functional.py,
# torch/_tensor.py), whose callers see those words too
_PYTHON_MISSING = re.compile(r"missing (\d+) required positional arguments?: (.*)$")
_PYTHON_LEVEL_IN_TORCH = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
    "cdist", "chain_matmul", "einsum", "lu", "meshgrid", "norm", "split", "stft", "istft", "tensordot", "unique",
    "unique_consecutive", "unravel_index", "align_tensors", "unflatten", "backward", "register_hook", "resize",
    "resize_as", "refine_names", "align_to", "rename", "rename_", "share_memory_", "module_load", "dim_order",
    "to_sparse_coo", "storage", "__format__", "__reversed__", "__rpow__", "__rsub__", "__rdiv__", "__rfloordiv__",
    "__rlshift__", "__rrshift__", "__rmatmul__", "__contains__", "__array__", "__array_wrap__", "__deepcopy__",
    "__reduce_ex__", "__setstate__", "__dlpack__", "__dlpack_device__"})
PARSER_FAILURES = (AttributeError, ValueError, TypeError)  # what an argument of the wrong Python type raises


NOT_OVERRIDDEN = object()


def overridden(public, args, kwargs):
    """For a wrapper's failure path: where an argument is a tensor-like overriding ``__torch_function__`` (keras's
    ``Variable``, linear_operator's ``LinearOperator``) and the protocol was still off (see _torch_function), switch
    it on and hand the call to that override with ``public`` (the surface called) as ``func``, as torch hands every
    call; ``NOT_OVERRIDDEN`` otherwise.  Nothing runs on the success path."""
    if _torch_function.retry_with_overrides(args, kwargs):
        return _torch_function.handle(public, _torch_function.overloaded_args(args, kwargs), args, kwargs)
    return NOT_OVERRIDDEN


def raise_parser_error(e, fn, name, args, kwargs, positions=True):
    """Raise torch's TypeError for ``e`` (see ``parser_error``) or, where it is something else, ``e`` itself:
    the except clause of every wrapper that is on the call path anyway (the success path pays nothing)."""
    err = parser_error(e, fn, name, args, kwargs, positions)
    if err is None:
        raise e
    raise err from None


def unparsed(fn, name, args, kwargs, positions):
    """torch's parser error for a call of ``fn`` (declared with torch signatures, see signatures.py) whose
    arguments fit none of them; None where they fit, or ``fn`` has none.  ``positions``: the namespace function's
    message, else the method's (with the function's in ``as_function``)."""
    sig = getattr(fn, "torch_signature", None)
    err = None if sig is None else sig.error(args, kwargs, name)
    return TypeError(err.as_function) if positions and err is not None else err


def raise_if_unparsed(fn, name, args, kwargs, positions=True):
    """In a wrapper's except clause for an error the op raised on its own (a value check, a kernel's error):
    raise torch's parser error instead where an argument has a type torch's signatures reject (torch parses
    before its kernel runs); return otherwise (the caller re-raises)."""
    err = unparsed(fn, name, args, kwargs, positions)
    if err is not None:
        raise err from None


def parser_error(e, fn, name, args, kwargs, positions=True):
    """torch's TypeError when ``e`` came from an argument of the wrong Python type: an AttributeError from
    reading a tensor attribute of an argument that is not a Tensor, a ValueError from making a number of a
    str, a TypeError in Python's words about an operand; None when ``e`` is something else.  ``positions``:
    the message gives the argument's position (a namespace function's; a wrapper that serves the method too,
    whose positions count from 0, gives none)."""
    err = unparsed(fn, name, args, kwargs, positions)
    if err is not None:
        return err
    if isinstance(e, TypeError):
        if type(e) is not TypeError:
            return None
        if positions and hasattr(e, "as_function"):  # a method-form parser error (method_argument_error)
            return TypeError(e.as_function)
        text = str(e)
        placed = _with_position(fn, name, text, args, positions)
        if placed is not None:
            return placed
        if any(w in text for w in _PYTHON_OPERAND_ERRORS):
            got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
            return TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)})")
        arity = _PYTHON_ARITY_ERROR.match(text)  # a check's or helper's signature: torch's words name the op
        if arity and name not in _PYTHON_LEVEL_IN_TORCH:
            missing = _PYTHON_MISSING.match(text[arity.end():])
            if missing is not None and "'" in missing.group(2):  # (not yet in torch's words)  # torch's parser's words (its plural and singular swapped, as its source has)
                names = re.findall(r"'(\w+)'", missing.group(2))
                return TypeError(f"{name}() missing {len(names)} required positional argument"
                                 f"{'s' if len(names) == 1 else ''}: {', '.join(f'{chr(34)}{n}{chr(34)}' for n in names)}")
        return TypeError(f"{name}() {text[arity.end():]}") if arity and not text.startswith(name + "(") else None
    if isinstance(e, AttributeError):
        at = [k for k, a in (*enumerate(args), *kwargs.items()) if a is e.obj and not isinstance(a, Tensor)]
        if not at or name in ATTRIBUTE_ERROR_LIKE_TORCH:  # (torch's Python reads the attribute too)
            return None
        if at[0] == 0:
            return not_a_tensor(fn, name, args[0])
        return _argument_type_error(fn, name, at[0], e.obj, "Tensor", positions)
    text = str(e)
    expected = next((kind for words, kind in _NUMBER_FROM_STR if text.startswith(words)), None)
    at = [k for k, a in (*enumerate(args), *kwargs.items()) if isinstance(a, str)]
    if expected is None or not at:
        return None
    value = args[at[0]] if isinstance(at[0], int) else kwargs[at[0]]
    return _argument_type_error(fn, name, at[0], value, expected, positions)


# a shared helper's parser error (``wrap_dim``'s, ``argument_error`` without a position): it cannot know where the
# argument sits in the op's signature
_NO_POSITION = re.compile(r"^(\w+)\(\): argument '(\w+)' (must be .*)$", re.S)


def _with_position(fn, name, text, args, positions):
    """``text`` (a parser error without a position) with the position torch's parser gives, where the argument it
    names was passed positionally (a method's, counted without ``self``, or with ``positions`` the function's;
    the method form's carries the function's in ``as_function``); None where that does not apply."""
    m = _NO_POSITION.match(text)
    if m is None:
        return None
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    op, arg, rest = m.groups()
    op = name if name == op + "_" else op  # (an in-place method's error raised by its out-of-place body)
    k = params.index(arg) if arg in params else -1
    if not 0 < k < len(args):
        return None
    err = TypeError(f"{op}(): argument '{arg}' (position {k}) {rest}")
    err.as_function = f"{op}(): argument '{arg}' (position {k + 1}) {rest}"
    return TypeError(err.as_function) if positions else err


def _argument_type_error(fn, name, at, value, expected, positions):
    """``argument_error`` for argument ``at`` (a position or a keyword) of op ``fn``."""
    if isinstance(at, str):
        return argument_error(value, expected, at, name)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    arg = params[at].name if at < len(params) and params[at].kind in (params[at].POSITIONAL_ONLY,
                                                                     params[at].POSITIONAL_OR_KEYWORD) else "input"
    return argument_error(value, expected, arg, name, at + 1 if positions else None)


# torch's own Python-level functions (torch.functional) that read ``input.dim()`` & co. first: a non-Tensor
# input raises Python's AttributeError there too
ATTRIBUTE_ERROR_LIKE_TORCH = frozenset({"norm", "split", "tensordot", "svd_lowrank", "pca_lowrank"})
