"""torch's exceptions for failures that JAX, XLA or numpy would otherwise report in their own words.

Two halves, both off the hot path:

* ``translate(exc, f, name, arrays)`` is called by the dispatcher only after an op's JAX function
  raised.  A failure of torchlike's own code (or of user code) passes through untouched; a failure
  raised inside JAX/XLA/numpy becomes torch's: a broadcasting clash becomes "The size of tensor a (3)
  must match the size of tensor b (4) at non-singleton dimension 1", an exhausted allocator becomes
  torch's ``DefaultCPUAllocator`` message, anything else a ``RuntimeError`` naming the op.
* ``check_alloc(shape, dtype)`` is called by the few ops whose result can be far larger than their
  inputs (factories, random draws, ``expand``, ``repeat``...) before the request reaches XLA, which
  aborts the process on a shape whose element count overflows int64 and may be killed by the
  system on a request larger than the machine's memory.

    >>> import torchlike
    >>> try:
    ...     torchlike.zeros(2, 3) + torchlike.zeros(4)
    ... except RuntimeError as e:
    ...     print(e)
    The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
"""
from __future__ import annotations

import math
import operator
import os
import re
import sys
import types
import warnings

import jax
import numpy as np

__all__ = ["PACKAGE_DIR", "warn_at_caller", "argument_error", "no_arguments_error", "extra_arguments_error", "method_argument_error", "bool_arg", "no_other_keywords", "as_tensor_methods", "renamed", "caller_op", "called_op", "int_arg", "torch_index", "float_arg", "translate", "to_host", "broadcast_shape", "inplace_error", "check_alloc", "alloc_error", "broadcast_error", "is_foreign", "memory_limit",
           "GraphBreak", "OutOfMemoryError", "AcceleratorError"]


class OutOfMemoryError(RuntimeError):
    """``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``): a device ran out of memory."""


class AcceleratorError(RuntimeError):
    """``torch.AcceleratorError``: an accelerator reported a failure."""


OutOfMemoryError.__module__ = AcceleratorError.__module__ = "torch"


class GraphBreak(RuntimeError):
    """Raised when traced code needs a concrete value (``.item()``, ``bool(t)``, data-dependent shapes);
    the compile path recognises it (homed in ``torchlike.compile._errors``)."""


_INT64_MAX = 2 ** 63 - 1
_SMALL = 2 ** 26
_FOREIGN_MODULES = ("jax", "jaxlib", "numpy", "ml_dtypes", "opt_einsum")
_FOREIGN_PATH = re.compile(r"[\\/](jax|jaxlib|numpy|ml_dtypes|opt_einsum)[\\/]")
_FOREIGN_WORDS = re.compile(r"\b(jax\w*|jnp|lax|xla|stablehlo|mlir)\b", re.I)
# JAX's refusal of an operand dtype at trace time (``erf does not accept dtype complex64``): its frames are
# already stripped, so only the text tells it apart
_JAX_DTYPE = re.compile(r"\b\w+ does not accept dtypes? (\w+)\.? Accepted dtypes")
TYPE_NAMES = {}  # numpy dtype name -> torch's ScalarType name ("int64" -> "Long"); filled by _dtype
# the op table's surfaces, ``("torch", "subtract")``, ``("Tensor", "greater")`` (registry's claims, the same dict)
OP_SURFACES = {}
_limit = None


def memory_limit():
    """Bytes above which a single allocation fails: the machine's memory plus swap, the bound Linux's
    default overcommit heuristic applies to torch's ``malloc``."""
    global _limit
    if _limit is None:
        total = 0
        try:
            with open("/proc/meminfo") as fh:
                for line in fh:
                    key, _, rest = line.partition(":")
                    if key in ("MemTotal", "SwapTotal"):
                        total += int(rest.split()[0]) * 1024
        except (OSError, ValueError, IndexError):
            total = 0
        if not total:
            try:
                total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            except (ValueError, OSError, AttributeError):
                total = 1 << 40
        _limit = total
    return _limit


def alloc_error(nbytes):
    """torch's CPU allocator failure for a request of ``nbytes`` bytes."""
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                        f"memory: you tried to allocate {int(nbytes)} bytes. Error code 12 (Cannot allocate "
                        f"memory)")


def _itemsize(dtype):
    if isinstance(dtype, int):
        return dtype
    np_dtype = getattr(dtype, "np", dtype)
    return np.dtype(np_dtype).itemsize


SIZE_ARG_NAMES = {"reshape": "shape", "repeat": "repeats", "tile": "dims"}  # torch's size arguments (others': 'size')


def check_int64_sizes(shape):
    """torch's parser error for a size past int64 (``torch.zeros(10**30)``), which it fails to unpack before any
    check of the op: for the failure paths of the size checks (a storage overflow, a negative or wrong size)."""
    for i, s in enumerate(shape):
        if isinstance(s, int) and not -_INT64_MAX - 1 <= s <= _INT64_MAX:
            op = caller_op()
            raise TypeError(f"{op}(): argument '{SIZE_ARG_NAMES.get(op, 'size')}' failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"")


def check_alloc(shape, dtype, *, overflow="storage", given=False):
    """Raise torch's error if allocating ``shape`` x ``dtype`` overflows int64 or exceeds memory.

    ``overflow="numel"`` gives the message torch uses where it only counts elements (``expand``); ``given``: the
    sizes are the user's (a factory's), where one past int64 is torch's parser error instead.
    Cheap: one ``math.prod`` and a comparison for any request under a gibibyte.  Symbolic (export) dims
    are skipped."""
    try:
        numel = math.prod(shape)
        if numel <= _SMALL:  # far below int64 and any machine's memory, at 16 bytes an element
            return
    except Exception:  # noqa: BLE001 - symbolic dims: a TypeError, or JAX's inconclusive comparison
        return
    if not all(isinstance(s, (int, np.integer)) for s in shape):
        return
    if given:  # (sizes as the user gave them, not computed: one past int64 is torch's parser error)
        check_int64_sizes(shape)
    numel = math.prod(int(s) for s in shape)
    if numel > _INT64_MAX:
        if overflow == "numel":
            raise RuntimeError("numel: integer multiplication overflow")
        raise RuntimeError(f"Storage size calculation overflowed with sizes={[int(s) for s in shape]}")
    nbytes = numel * _itemsize(dtype)
    if nbytes > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={[int(s) for s in shape]}")
    if nbytes > memory_limit():
        raise alloc_error(nbytes)


def broadcast_error(shapes):
    """torch's error for the first pair of ``shapes`` (folded left to right) that don't broadcast, or None."""
    acc = None
    for sh in shapes:
        sh = tuple(sh)
        if acc is None:
            acc = sh
            continue
        n = max(len(acc), len(sh))
        x, y = (1,) * (n - len(acc)) + acc, (1,) * (n - len(sh)) + sh
        out = []
        for i in range(n - 1, -1, -1):
            if x[i] != y[i] and x[i] != 1 and y[i] != 1:
                return RuntimeError(f"The size of tensor a ({x[i]}) must match the size of tensor b ({y[i]}) at "
                                    f"non-singleton dimension {i}")
        for a, b in zip(x, y):
            out.append(b if a == 1 else a)
        acc = tuple(out)
    return None


def inplace_error(exc, self, args):
    """For an in-place op: torch broadcasts the written-to tensor first, so a broadcasting clash names
    ``self`` as tensor a.  Returns the error to raise (``exc`` when it is not a broadcasting clash)."""
    if not str(exc).startswith("The size of tensor a"):
        return exc
    err = broadcast_error([tuple(self.shape)] + [tuple(a.shape) for a in args if hasattr(a, "shape")])
    if err is None:
        return exc
    err.__cause__, err.__suppress_context__ = None, True
    return err


def broadcast_shape(*shapes):
    """The shape ``shapes`` broadcast to, or torch's error naming the first clashing dimension."""
    err = broadcast_error(shapes)
    if err is not None:
        raise err
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s, n - len(s)):
            if v != 1:
                out[i] = v
    return tuple(out)


def is_foreign(exc):
    """True when ``exc`` was raised inside JAX, XLA or numpy (not by torchlike or user code)."""
    if isinstance(exc, GraphBreak):  # torchlike's own, whatever its text names
        return False
    mod = type(exc).__module__.split(".")[0]
    if mod in _FOREIGN_MODULES or isinstance(exc, MemoryError):
        return True
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is not None and _FOREIGN_PATH.search(last.tb_frame.f_code.co_filename or ""):
        return True
    return bool(_FOREIGN_WORDS.search(str(exc)) or _JAX_DTYPE.search(str(exc)))


def _clean(exc):
    """Strip JAX's frames, notes and chained exceptions from an exception of torchlike's or the user's
    own that passed through a JAX trace, so none of JAX's text reaches the user."""
    notes = getattr(exc, "__notes__", None)
    if notes:
        kept = [n for n in notes if not _FOREIGN_WORDS.search(n)]
        if kept:
            exc.__notes__ = kept
        else:
            del exc.__notes__
    for attr in ("__cause__", "__context__"):
        c = getattr(exc, attr)
        if c is not None and is_foreign(c):
            setattr(exc, attr, None)
            exc.__suppress_context__ = True
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if not _FOREIGN_PATH.search(tb.tb_frame.f_code.co_filename or ""):
            frames.append(tb)
        tb = tb.tb_next
    new = None
    for t in reversed(frames):
        new = types.TracebackType(new, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return exc.with_traceback(new)


def _op_name(f, name):
    if name and name not in ("Op", "CopySlices") and name.endswith(("Backward0", "Backward1")):
        base = name[:-len("Backward0")]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()
    fn = getattr(f, "__name__", "op")
    return fn.strip("_").removesuffix("_impl") or "op"


def _parsing_op(f, name):
    """The op torch's parser error names for an operand of a type no op takes: the op table surface the user
    called (``x.subtract(None)``, ``torch.greater(x, "a")``, ``x.float_power(None)``: torch parses the alias's or
    composite's own arguments before any kernel runs), else the op of the failing JAX function."""
    return called_op(_op_name(f, name))


# ops whose torch kernel broadcasts its operands in another order than torchlike passes them
_OPERAND_ORDER = {"MaskedFillBackward0": (1, 0), "MaskedFillBackward1": (1, 0)}  # masked_fill: expand_outplace(mask, self)


def _bytes_in(text):
    m = re.search(r"allocat\w*\s+(\d+)\s*bytes", text)
    return int(m.group(1)) if m else None


def _sanitize(text):
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = re.sub(r"https?://\S+", "", line)
    line = re.sub(r"\b(?:jax\w*|jnp|lax|xla|mlir|stablehlo)\b(?:\.\w+)*\.?", "", line, flags=re.I)
    line = re.sub(r"\b(?:tracer|traced|jit(?:ted)?)\b", "", line, flags=re.I)
    line = re.sub(r"^[\w.]*Error:\s*", "", line)
    return re.sub(r"\s{2,}", " ", line).strip(" .:") or "invalid arguments"


_NOT_OPERANDS = (str, type(None), list, dict)  # what no op takes as a tensor operand


def through_jax(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``: a JAX transformation running the user's function. What it raises reaches the
    user without the notes JAX adds at its API boundary ("JAX has removed its internal frames ...")."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        _clean(e)
        raise


def translate(exc, f=None, name=None, arrays=()):
    """torch's exception for ``exc``, raised while running an op's JAX function on ``arrays``; ``exc``
    itself (without JAX's frames and notes) when it is torchlike's or the user's own."""
    if isinstance(exc, AttributeError) and not hasattr(exc.obj, "shape"):
        at = next((i for i, a in enumerate(arrays) if a is exc.obj), None)
        if at is not None:  # an operand neither a Tensor nor a number (``x.sub(None)``): torch's parser error
            return TypeError(f"{_parsing_op(f, name)}(): argument '{'other' if at else 'input'}' must be Tensor, "
                             f"not {type(exc.obj).__name__}")
    if isinstance(exc, OverflowError):  # JAX met a Python int past int64: the words of torch's Scalar conversion
        big = next((a for a in arrays if type(a) is int and not -_INT64_MAX - 1 <= a <= _INT64_MAX), None)
        if big is not None:  # (torch takes one up to 2**64 - 1 as an unsigned Scalar; torchlike does not)
            return OverflowError("can't convert negative int to unsigned" if big < 0 else "int too big to convert")
    if not is_foreign(exc):
        return _clean(exc)
    # JAX met a str, list or None where the op takes a tensor: torch's parser rejects its type. (None is also an
    # optional operand some ops' JAX functions take, so it is the culprit only where JAX's message names it.)
    at = next((i for i, a in enumerate(arrays) if isinstance(a, _NOT_OPERANDS) and a is not None), None)
    if at is None and "None" in str(exc):
        at = next((i for i, a in enumerate(arrays) if a is None), None)
    if at is not None:
        return TypeError(f"{_parsing_op(f, name)}(): argument '{'other' if at else 'input'}' must be Tensor, "
                         f"not {type(arrays[at]).__name__}")
    text = str(exc)
    low = text.lower()
    if "resource_exhausted" in low or "out of memory" in low or isinstance(exc, MemoryError) or \
            "array is too big" in low:
        n = _bytes_in(text)
        if n is None and getattr(exc, "shape", None) is not None:  # numpy's _ArrayMemoryError
            n = math.prod(exc.shape) * _itemsize(exc.dtype)
        return alloc_error(n if n is not None else 0)
    m = _JAX_DTYPE.search(text)
    if m:  # a kernel without that dtype: torch's NotImplementedError
        return NotImplementedError(f'"{_op_name(f, name)}_cpu" not implemented for '
                                   f"'{TYPE_NAMES.get(m.group(1), m.group(1))}'")
    shapes = [tuple(a.shape) for a in arrays if hasattr(a, "shape")]
    if "broadcast" in low or "same shape" in low or "incompatible shapes" in low:
        order = _OPERAND_ORDER.get(name)
        err = broadcast_error([tuple(getattr(arrays[i], "shape", ())) for i in order] if order else shapes)
        if err is not None:
            return err
    op = _op_name(f, name)
    detail = _sanitize(text)
    where = ", ".join(str(list(s)) for s in shapes)
    return RuntimeError(f"{op}(): {detail}" + (f" (got inputs of shapes {where})" if where else ""))


def _translated(fn):
    def wrapper(exc, *a, **kw):
        err = fn(exc, *a, **kw)
        if err is not exc:
            err.__cause__, err.__suppress_context__ = None, True
        return err
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


translate = _translated(translate)


def is_tracer(x):
    """Whether ``x`` is a value being traced (inside torchlike.compile or a JAX transformation)."""
    return isinstance(x, jax.core.Tracer)


def to_host(x):
    """``np.asarray(x)`` for reading a value on the host; a computation that failed asynchronously
    (XLA reports an exhausted allocator only when the result is read) raises torch's error here."""
    if is_tracer(x):   # a value being traced (numpy(), np.asarray inside a compiled function)
        raise GraphBreak("the tensor's value was read on the host, but the tensor is being traced (inside "
                         "torchlike.compile / jax.jit)")
    try:
        if hasattr(x, "block_until_ready"):
            x.block_until_ready()  # raises for a failed buffer, which np.asarray would abort the process on
        return np.asarray(x)
    except Exception as e:
        raise translate(e, None, "Op", ())


# torchlike's own files (frames from here are not the user's: warnings, stacks, the legacy-overload check)
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def caller_op():
    """The name of the torchlike function the user called: the code name of the outermost torchlike frame
    (the op table's pass-through wrappers aside).  For messages built on a failure path, where a shared
    helper (a dim or size coercer) does not know which op it serves."""
    f, name = sys._getframe(1), "op"
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIR):
        if not f.f_code.co_filename.endswith("importlib_bootstrap>"):
            name = f.f_code.co_name
        f = f.f_back
    # (a dunder is its op, ``__sub__`` sub; a trailing underscore stays: ``x.cumsum_("a")`` names cumsum_, as torch's)
    return (name[2:-2] if name.startswith("__") and name.endswith("__") else name.lstrip("_")) or "op"


def called_op(default):
    """For a parser error built on a failure path inside an op shared by several surfaces (an alias's body is its
    op's, ``subtract``'s ``sub``; a composite calls others): ``caller_op()`` where it is an op table surface
    (``torch.X`` or ``Tensor.X``), as torch parses the arguments of the function called; else ``default``."""
    called = caller_op()
    if ("torch", called) in OP_SURFACES or ("Tensor", called) in OP_SURFACES:
        return called
    return default


def tp_name(value):
    """The name torch's messages give ``value``'s type: CPython's ``tp_name``, which for a type defined in C
    outside the builtins carries its module (``numpy.ndarray``, ``numpy.float64``), for others is the bare name.

    >>> import numpy as np
    >>> tp_name(np.zeros(1)), tp_name(1.5), tp_name(ValueError())
    ('numpy.ndarray', 'float', 'ValueError')
    """
    t = type(value)
    if t.__name__ in _TORCH_C_TYPES and t.__module__.startswith("torchlike"):  # (torch's own C types)
        return f"torch.{t.__name__}"
    if t.__flags__ & _HEAPTYPE or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


_TORCH_C_TYPES = frozenset({"dtype", "device", "layout", "memory_format", "Generator", "Size", "finfo", "iinfo"})
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (its tp_name has no module)


def argument_error(value, expected, arg, op=None, position=None):
    """torch's argument-parser TypeError for ``value`` given as argument ``arg`` where torch's signature takes
    ``expected`` (``"int"``, ``"tuple of ints"``, ``"Tensor"``...), naming ``op`` (default: ``caller_op()``).

    >>> str(argument_error("x", "tuple of ints", "dim", "sum", 1))
    "sum(): argument 'dim' (position 1) must be tuple of ints, not str"
    """
    where = f" (position {position})" if position is not None else ""
    return TypeError(f"{op or caller_op()}(): argument '{arg}'{where} must be {expected}, not {tp_name(value)}")


def no_arguments_error(name, given):
    """CPython's TypeError for torch's C method ``name`` (one of _parser_errors.NO_ARGUMENT_METHODS) given ``given``
    positional arguments (0: keywords).

    >>> str(no_arguments_error("item", 1))
    'TensorBase.item() takes no arguments (1 given)'
    """
    if not given:
        return TypeError(f"TensorBase.{name}() takes no keyword arguments")
    return TypeError(f"TensorBase.{name}() takes no arguments ({given} given)")


def extra_arguments_error(name, given, takes=1, no_arguments=False):
    """torch's TypeError for a hot Tensor method kept without a wrapper frame (its body gathers ``*args`` to see
    them) given ``given`` positional arguments past ``self``: its parser's, counted without ``self`` (or, with
    ``no_arguments``, CPython's for a C method taking none), with the namespace function's (``takes`` positional
    arguments, the input counted) in ``as_function``, which the op table's namespace wrapper raises instead.

    >>> e = extra_arguments_error("clone", 1)
    >>> str(e), e.as_function
    ('clone() takes 0 positional arguments but 1 was given', 'clone() takes 1 positional argument but 2 were given')
    """
    err = no_arguments_error(name, given) if no_arguments else \
        TypeError(f"{name}() takes 0 positional arguments but {given} {'was' if given == 1 else 'were'} given")
    err.as_function = (f"{name}() takes {takes} positional argument{'' if takes == 1 else 's'} but {given + takes} "
                       f"{'was' if given + takes == 1 else 'were'} given")
    err.extra_arguments = given  # (the in-place method's wrapper words its own: _parser_errors.parser_error)
    return err


def no_other_keywords(op, kwargs, allowed=()):
    """torch's TypeError for a keyword ``op``'s signature lacks, where ``op`` gathers keywords in ``**kwargs``
    (``x.uniform_(out=y)``: torch's Tensor methods take no ``out``); ``allowed``: names it does take.

    >>> try:
    ...     no_other_keywords("uniform_", {"out": None})
    ... except TypeError as e:
    ...     print(e)
    uniform_() got an unexpected keyword argument 'out'
    """
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"{op}() got an unexpected keyword argument '{k}'")


def as_tensor_methods(mixin):
    """Name the methods of ``mixin`` (a base class of ``Tensor``) ``Tensor.X`` in Python's own argument errors,
    as torch's (``x.float(out=y)``: "Tensor.float() got an unexpected keyword argument 'out'"), not the mixin's.

    >>> class M:
    ...     def f(self): pass
    >>> as_tensor_methods(M)
    >>> M.f.__code__.co_qualname
    'Tensor.f'
    """
    for f in vars(mixin).values():
        if isinstance(f, types.FunctionType):
            f.__qualname__ = "Tensor." + f.__name__
            f.__code__ = f.__code__.replace(co_qualname=f.__qualname__)


def renamed(fn, name, qualname=None):
    """``fn`` itself where it is named ``name``, else a copy of it named ``name`` (and ``qualname``): an alias
    (``Tensor.absolute``, ``abs``'s function) whose argument errors, Python's own, name the alias called, as
    torch's (``x.absolute(out=y)``).  A wrapper's inner functions (``__wrapped__``) are copied too, as they
    raise those errors; the copy costs nothing per call.

    >>> def f(x): pass
    >>> renamed(f, "g").__code__.co_name
    'g'
    """
    if type(fn) is not types.FunctionType or fn.__name__ == name and qualname in (None, fn.__qualname__):
        return fn
    closure, inner = fn.__closure__, getattr(fn, "__wrapped__", None)
    if closure and type(inner) is types.FunctionType:
        copy_in = renamed(inner, name, qualname)
        closure = tuple(types.CellType(copy_in) if _holds(c, inner) else c for c in closure)
    qualname = qualname or name
    copy = types.FunctionType(fn.__code__.replace(co_name=name, co_qualname=qualname), fn.__globals__, name,
                              fn.__defaults__, closure)
    copy.__kwdefaults__, copy.__doc__, copy.__module__ = fn.__kwdefaults__, fn.__doc__, fn.__module__
    copy.__dict__.update(fn.__dict__)
    if closure is not fn.__closure__:
        copy.__wrapped__ = copy_in
    copy.__qualname__ = qualname
    return copy


def _holds(cell, value):
    try:
        return cell.cell_contents is value
    except ValueError:  # an empty cell
        return False


def method_argument_error(value, expected, arg, op, position=None):
    """``argument_error`` for an op that is a Tensor method and a namespace function: ``position`` is the
    method's (self not counted; None for a keyword argument), and the function's message (one more: its input
    counts) rides along in ``as_function``, which the op table's namespace wrapper raises instead.

    >>> e = method_argument_error("x", "bool", "keepdim", "sum", 2)
    >>> str(e), e.as_function
    ("sum(): argument 'keepdim' (position 2) must be bool, not str", "sum(): argument 'keepdim' (position 3) must be bool, not str")
    """
    err = argument_error(value, expected, arg, op, position)
    if position is not None:
        err.as_function = str(argument_error(value, expected, arg, op, position + 1))
    return err


def bool_arg(value, arg, op, position=None):
    """``value`` where torch's signature takes a bool: exactly True or False (its parser rejects 1, numpy's bool,
    None, a str); else its TypeError (see ``method_argument_error`` for ``position``).  A hot path tests
    ``value is not True and value is not False`` itself and calls this only then.

    >>> bool_arg(True, "some", "qr")
    True
    """
    if value is True or value is False:
        return value
    raise method_argument_error(value, "bool", arg, op, position)


def torch_index(value):
    """``operator.index(value)`` under torch's parser's rule for an ``int`` (a dim; not a ``SymInt``, which takes
    any one-element integer tensor): a tensor only where it is 0-dim and of an integer dtype, not bool (a
    one-element 1-dim tensor or a bool one: TypeError, as a float one)."""
    if hasattr(value, "requires_grad") and (value.ndim != 0 or value.dtype.name == "bool"):
        raise TypeError(type(value).__name__)
    return operator.index(value)


def int_arg(value, arg, position=None):
    """``value`` as an int where torch's signature takes one (numpy's integers and one-element integer
    tensors index); torch's argument-parser TypeError for a str, a float, None or a larger tensor."""
    try:
        return operator.index(value)
    except (TypeError, RuntimeError):
        raise argument_error(value, "int", arg, position=position) from None


def float_arg(value, arg, position=None):
    """``float(value)`` where torch's signature takes a float; torch's argument-parser TypeError for a str,
    None or a sequence (Python's ValueError/TypeError otherwise)."""
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        raise argument_error(value, "float", arg, position=position) from None


_WARNED_ONCE: set = set()


def torch_warn(message, where, *, once=False, category=UserWarning):
    """A warning torch's C++ gives (``TORCH_WARN``): its text ends with the source line that triggered it,
    and it names the first frame outside torchlike (``warn_at_caller``). ``once``: ``TORCH_WARN_ONCE``, given
    once per process whatever the warning filters say.

    >>> import warnings, torchlike._errors as e
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always"); e.torch_warn("careful", "aten/src/ATen/native/X.cpp:1")
    >>> w[0].message.args[0]
    'careful (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/X.cpp:1.)'
    """
    if once:
        if where in _WARNED_ONCE:
            return
        _WARNED_ONCE.add(where)
    warn_at_caller(f"{message} (Triggered internally at /__w/pytorch/pytorch/{where}.)", category)


# code objects of the functions (and scripted modules' forward) given to torch.jit.script
SCRIPTED_CODE = set()


def called_from_script():
    """Whether the first frame outside torchlike runs a function given to ``torch.jit.script``: TorchScript calls
    aten directly, so notes torch's Python bindings give (the sparse factories' invariant note) do not fire there.

    >>> import torchlike._errors as e
    >>> e.called_from_script()
    False
    """
    if not SCRIPTED_CODE:
        return False
    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename.startswith(PACKAGE_DIR) or warnings._is_internal_frame(f)):
        f = f.f_back
    return f is not None and f.f_code in SCRIPTED_CODE


def warn_at_caller(message, category=UserWarning):
    """``warnings.warn`` attributed to the first frame outside torchlike (the user's line, however deep the
    call sits in torchlike), as torch's warnings from C++ kernels point at the Python line that called them.

    >>> import warnings, torchlike._errors as e
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always"); e.warn_at_caller("careful")
    >>> w[0].message.args[0]
    'careful'
    """
    f = sys._getframe(1)
    while f is not None and (f.f_code.co_filename.startswith(PACKAGE_DIR) or warnings._is_internal_frame(f)):
        f = f.f_back
    if f is None:
        warnings.warn(message, category, stacklevel=2)
        return
    g = f.f_globals
    warnings.warn_explicit(message, category, f.f_code.co_filename, f.f_lineno, module=g.get("__name__"),
                           registry=g.setdefault("__warningregistry__", {}))


def pass_through_file(module_file, label):
    """A file name for code whose frames sit between a user's call and an op (the dispatchers of _torch_function,
    the op table's wrappers, the layout decorators): inside the package directory (``module_file``'s), so that frame filters (tracebacks,
    graph-break lines, the deprecated-overload warning) count it as torchlike's; and containing "importlib" and
    "_bootstrap", which CPython's warnings machinery (``warnings._is_internal_frame``, the same in its C version)
    skips when it counts a ``stacklevel``: a warning torchlike gives with ``stacklevel=2`` still names the user's
    line when such a frame sits in between."""
    return os.path.join(os.path.dirname(os.path.abspath(module_file)), f"<{label} importlib_bootstrap>")
