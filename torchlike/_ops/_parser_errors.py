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
import sys

from .. import _torch_function
from .._errors import argument_error, no_arguments_error
from ..tensor import Tensor

__all__ = ["not_a_tensor", "PARSER_FAILURES", "NOT_OVERRIDDEN", "overridden", "raise_parser_error", "parser_error",
           "raise_if_unparsed", "unparsed", "ATTRIBUTE_ERROR_LIKE_TORCH", "NO_ARGUMENT_METHODS", "method_arity_error",
           "PYTHON_LEVEL_IN_TORCH"]


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
PYTHON_LEVEL_IN_TORCH = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
    "cdist", "chain_matmul", "einsum", "lu", "meshgrid", "norm", "split", "stft", "istft", "tensordot", "unique",
    "unique_consecutive", "unravel_index", "align_tensors", "unflatten", "backward", "register_hook", "resize",
    "resize_as", "refine_names", "align_to", "rename", "rename_", "share_memory_", "module_load", "dim_order",
    "to_sparse_coo", "storage", "__format__", "__reversed__", "__rpow__", "__rsub__", "__rdiv__", "__rfloordiv__",
    "__rlshift__", "__rrshift__", "__rmatmul__", "__contains__", "__array__", "__array_wrap__", "__deepcopy__",
    "__reduce_ex__", "__setstate__", "__dlpack__", "__dlpack_device__"})
PARSER_FAILURES = (AttributeError, ValueError, TypeError)  # what an argument of the wrong Python type raises

# torch's Tensor methods that are C functions taking no arguments (METH_NOARGS): CPython's words for an argument
# given, naming the C base class (``x.item(1)``: "TensorBase.item() takes no arguments (1 given)")
NO_ARGUMENT_METHODS = frozenset({
    "abs", "abs_", "absolute", "absolute_", "acos", "acos_", "acosh", "acosh_", "adjoint", "angle", "arccos",
    "arccos_", "arccosh", "arccosh_", "arcsin", "arcsin_", "arcsinh", "arcsinh_", "arctan", "arctan_", "arctanh",
    "arctanh_", "argwhere", "asin", "asin_", "asinh", "asinh_", "atan", "atan_", "atanh", "atanh_", "bitwise_not",
    "bitwise_not_", "ccol_indices", "ceil", "ceil_", "coalesce", "col_indices", "conj", "conj_physical",
    "conj_physical_", "const_data_ptr", "corrcoef", "cos", "cos_", "cosh", "cosh_", "crow_indices", "data_ptr",
    "deg2rad", "deg2rad_", "dense_dim", "dequantize", "det", "detach", "detach_", "digamma", "digamma_", "dim",
    "element_size", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "exp", "exp2", "exp2_", "exp_", "expm1",
    "expm1_", "fix", "fix_", "fliplr", "flipud", "floor", "floor_", "frac", "frac_", "frexp", "geqrf", "get_device",
    "i0", "i0_", "indices", "int_repr", "inverse", "is_coalesced", "is_complex", "is_conj", "is_distributed",
    "is_floating_point", "is_inference", "is_neg", "is_nonzero", "is_signed", "isfinite", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "item", "lgamma", "lgamma_", "log", "log10", "log10_", "log1p", "log1p_",
    "log2", "log2_", "log_", "logdet", "logical_not", "logical_not_", "matrix_exp", "msort", "ndimension", "neg",
    "neg_", "negative", "negative_", "nelement", "numel", "positive", "q_per_channel_axis", "q_per_channel_scales",
    "q_per_channel_zero_points", "q_scale", "q_zero_point", "qscheme", "rad2deg", "rad2deg_", "ravel", "reciprocal",
    "reciprocal_", "relu", "relu_", "resolve_conj", "resolve_neg", "retain_grad", "row_indices", "rsqrt", "rsqrt_",
    "sgn", "sgn_", "sigmoid", "sigmoid_", "sign", "sign_", "signbit", "sin", "sin_", "sinc", "sinc_", "sinh",
    "sinh_", "slogdet", "sparse_dim", "sqrt", "sqrt_", "square", "square_", "storage_offset", "t", "t_", "tan",
    "tan_", "tanh", "tanh_", "tolist", "trace", "trunc", "trunc_", "untyped_storage", "values", "zero_"})
_PYTHON_TAKES = re.compile(r"takes (?:from (\d+) to )?(\d+) positional arguments? but (\d+) (?:was|were) given$")


def _own_call(e):
    """Whether ``e`` (caught by a wrapper) was raised calling the op itself, not in its body: the frames past the
    wrapper's are pass-through wrappers' (an autocast policy's) only, so a Python arity error is about the op's
    own parameters."""
    tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.endswith("importlib_bootstrap>"):
            return False
        tb = tb.tb_next
    return True


def method_arity_error(name, rest):
    """torch's words for Python's arity error ``rest`` (the text after ``f() ``) of Tensor method ``name``'s own
    call, whose counts include ``self``: CPython's for a C method taking no arguments, the Python method's own
    (``Tensor.unflatten() missing ...``) where torch's method is Python (torch/_tensor.py), else its parser's,
    which counts without ``self`` (``x.clone(1)``: "clone() takes 0 positional arguments but 1 was given").

    >>> str(method_arity_error("mm", "takes 2 positional arguments but 3 were given"))
    'mm() takes 1 positional argument but 2 were given'
    """
    takes = _PYTHON_TAKES.match(rest)
    if name in NO_ARGUMENT_METHODS:
        if takes is not None:
            return no_arguments_error(name, int(takes.group(3)) - 1)
        if rest.startswith("got an unexpected keyword"):
            return no_arguments_error(name, 0)
    if name in PYTHON_LEVEL_IN_TORCH:
        return TypeError(f"Tensor.{name}() {rest}")
    if takes is not None:
        low, high, given = (int(n) - 1 if n is not None else None for n in takes.groups())
        span = f"{high}" if low is None else f"from {low} to {high}"
        return TypeError(f"{name}() takes {span} positional argument{'' if span == '1' else 's'} but {given} "
                         f"{'was' if given == 1 else 'were'} given")
    missing = _PYTHON_MISSING.match(rest)
    if missing is not None:  # torch's parser's words (its plural and singular swapped, as its source has)
        names = re.findall(r"'(\w+)'", missing.group(2))
        return TypeError(f"{name}() missing {len(names)} required positional argument"
                         f"{'s' if len(names) == 1 else ''}: {', '.join(f'{chr(34)}{n}{chr(34)}' for n in names)}")
    return TypeError(f"{name}() {rest}")


NOT_OVERRIDDEN = object()


def overridden(public, args, kwargs):
    """For a wrapper's failure path: where an argument is a tensor-like overriding ``__torch_function__`` (keras's
    ``Variable``, linear_operator's ``LinearOperator``) and the protocol was still off (see _torch_function), switch
    it on and hand the call to that override with ``public`` (the surface called) as ``func``, as torch hands every
    call; ``NOT_OVERRIDDEN`` otherwise.  Nothing runs on the success path."""
    if _torch_function.retry_with_overrides(args, kwargs):
        return _torch_function.handle(public, _torch_function.overloaded_args(args, kwargs), args, kwargs)
    return NOT_OVERRIDDEN


def raise_parser_error(e, fn, name, args, kwargs, positions=True, method=True):
    """Raise torch's TypeError for ``e`` (see ``parser_error``) or, where it is something else, ``e`` itself:
    the except clause of every wrapper that is on the call path anyway (the success path pays nothing)."""
    err = parser_error(e, fn, name, args, kwargs, positions, method)
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
    e = sys.exc_info()[1]
    if isinstance(e, OverflowError) and args and type(args[0]) is int and not any(
            isinstance(a, Tensor) for a in (*args, *kwargs.values())):  # (``torch.clone(10**30)``: the int met
        raise not_a_tensor(fn, name, args[0]) from None  # JAX where torch's parser wants a Tensor first)


def parser_error(e, fn, name, args, kwargs, positions=True, method=True):
    """torch's TypeError when ``e`` came from an argument of the wrong Python type: an AttributeError from
    reading a tensor attribute of an argument that is not a Tensor, a ValueError from making a number of a
    str, a TypeError in Python's words about an operand; None when ``e`` is something else.  ``positions``:
    the message gives the argument's position (a namespace function's; a wrapper that serves the method too,
    whose positions count from 0, gives none).  ``method``: False for a wrapper that serves no Tensor method (its
    own arity errors stay a function's)."""
    err = unparsed(fn, name, args, kwargs, positions)
    if err is not None:
        return err
    if isinstance(e, TypeError):
        if type(e) is not TypeError:
            return None
        if positions and hasattr(e, "as_function"):  # a method-form parser error (method_argument_error)
            return TypeError(e.as_function)
        if getattr(e, "extra_arguments", None) is not None:  # a hot method's own count (extra_arguments_error),
            return method_arity_error(name, f"takes 1 positional argument but {e.extra_arguments + 1} were given")
            # raised for the in-place method that called it
        text = str(e)
        placed = _with_position(fn, name, text, args, positions)
        if placed is not None:
            return placed
        if any(w in text for w in _PYTHON_OPERAND_ERRORS):
            got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
            return TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)})")
        arity = _PYTHON_ARITY_ERROR.match(text)  # a check's or helper's signature: torch's words name the op
        if arity and method and not positions and args and isinstance(args[0], Tensor) and _own_call(e):
            return method_arity_error(name, text[arity.end():])  # (the method's own counts include self)
        if arity and name not in PYTHON_LEVEL_IN_TORCH:
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
