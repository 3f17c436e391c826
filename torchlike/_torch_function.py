"""The ``__torch_function__`` protocol: Tensor subclasses keep their type through ops, and any object whose type
defines ``__torch_function__`` (a Tensor subclass, or a tensor-like such as linear_operator's ``LinearOperator``)
can override the torch functions and Tensor methods it is passed to, as in torch.

Zero cost until used: the op table installs the plain functions.  The first Tensor subclass whose
``__torch_function__`` is not ``_disabled_torch_function_impl`` (``nn.Parameter``'s, and torchlike's own
subclasses') switches the protocol on (``enable``): every public Tensor method, operator and property getter and
every public function of the registered namespaces (``torch``, ``torch.nn.functional``, ``torch.linalg``, ...)
is replaced by a wrapper that looks for overriding arguments first.  A tensor-like that is not a Tensor switches
it on too: when its class is made (``_classmethod_set_name``), or the first time a check of the op table rejects
it as an argument (``retry_with_overrides``; a class made before torchlike was imported).

    >>> import torchlike
    >>> class Tagged(torchlike.Tensor):
    ...     pass
    >>> t = torchlike.ones(2).as_subclass(Tagged)
    >>> type(t + 1).__name__, type(torchlike.exp(t)).__name__
    ('Tagged', 'Tagged')
"""
from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
import os
import sys
import threading
import types

from ._errors import pass_through_file  # (layer 0: the layout decorators use it too; the op table reads it here)
from .tensor import Tensor

__all__ = ["enable", "enabled", "register_namespace", "overloaded_args", "handle", "has_torch_function",
           "disabled_torch_function_impl", "DisableTorchFunctionSubclass", "has_torch_function_unary",
           "handle_torch_function",
           "has_torch_function_variadic", "DisableTorchFunction",
           "default_nowrap_functions", "IGNORED_TORCH_NAMES", "retry_with_overrides", "redispatch",
           "enabled_while", "register_argument_form"]


def disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """``torch._C._disabled_torch_function_impl``: a subclass that sets it as its ``__torch_function__`` opts out
    of the protocol (its instances behave as plain Tensors in ops, as ``nn.Parameter``'s do)."""
    return func(*args, **(kwargs or {}))


disabled_torch_function_impl.__name__ = "_disabled_torch_function_impl"


class _State(threading.local):
    subclass_off = 0  # depth of DisableTorchFunctionSubclass blocks
    all_off = 0  # depth of DisableTorchFunction blocks


_state = _State()
_T = Tensor
_ON = []  # [True] while the protocol is on
_STICKY = []  # [True, ...] once something switched it on for good (``enable``)
_SWAPS = []  # (function, its dispatching code, its original code): ``enabled_while`` switches them back and forth
_UNNESTED = []  # (closure cell, what it held before ``_unnest``)
_MODES = []  # the TorchFunctionMode stack (torch.overrides), innermost last
_NAMESPACES = []  # (module, names to leave alone, its own functions then) registered by the facade

# torch.overrides.get_ignored_functions() among the public names of the torch namespace: creation and global
# state functions, which torch never dispatches
IGNORED_TORCH_NAMES = frozenset((
    "arange", "are_deterministic_algorithms_enabled", "as_strided", "as_tensor", "asarray", "bartlett_window",
    "blackman_window", "broadcast_shapes", "can_cast", "compile", "cond", "default_generator", "device", "dtype",
    "empty", "empty_permuted", "empty_strided", "enable_grad", "eye", "fill", "finfo", "fork", "from_file",
    "from_numpy", "frombuffer", "full", "get_default_device", "get_default_dtype", "get_deterministic_debug_mode",
    "get_device_module", "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
    "get_rng_state", "hamming_window", "hann_window", "iinfo", "inference_mode", "init_num_threads",
    "initial_seed", "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_autocast_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "is_grad_enabled", "is_inference_mode_enabled",
    "is_storage", "is_tensor", "is_warn_always_enabled", "kaiser_window", "layout", "linspace", "load",
    "logspace", "manual_seed", "memory_format", "no_grad", "normal", "ones", "promote_types", "qscheme", "rand",
    "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "range", "result_type", "save",
    "scalar_tensor", "seed", "set_anomaly_enabled", "set_default_device", "set_default_dtype",
    "set_default_tensor_type", "set_deterministic_debug_mode", "set_float32_matmul_precision",
    "set_flush_denormal", "set_grad_enabled", "set_num_interop_threads", "set_num_threads", "set_printoptions",
    "set_rng_state", "set_warn_always", "sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor",
    "sparse_coo_tensor", "sparse_csc_tensor", "sparse_csr_tensor", "tensor", "tril_indices", "triu_indices",
    "typename", "use_deterministic_algorithms", "vander", "vmap", "wait", "zeros",
    # torchlike's own callables that take functions or hold no tensor semantics
    "jit", "func", "autograd", "library", "export", "is_tensor_like",
))

# Tensor attributes that never dispatch: construction, attribute plumbing, copying and pickling protocols
_TENSOR_SKIP = frozenset((
    "__new__", "__init__", "__init_subclass__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__",
    "__class__", "__dict__", "__weakref__", "__slots__", "__module__", "__doc__", "__torch_function__",
    "__hash__", "__copy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__",
    "__sizeof__", "__dir__", "__subclasshook__", "__class_getitem__", "__array_priority__", "__eq__hash",
    "as_subclass", "__iter__", "__instancecheck__", "__array_wrap__", "__array_ufunc__", "__array_function__",
))


def _disabled(tf):
    return tf is disabled_torch_function_impl or getattr(tf, "__func__", None) is disabled_torch_function_impl


def _overrides(t):
    """Whether instances of type ``t`` (not exactly Tensor) take part in the protocol.  Real torch's own
    tensors (``torch.from_dlpack`` interop hands them in) do not: their handler would call our function back
    under torch's own switch, which we cannot see, forever."""
    tf = getattr(t, "__torch_function__", None)
    if tf is None or _disabled(tf):
        return False
    module = getattr(t, "__module__", "")
    if module.partition(".")[0] != "torch" or issubclass(t, Tensor):
        return True
    # under ``python -m torchlike run`` torchlike's own classes (torch.fx.Proxy) carry torch's module names: their
    # module, as imported, is torchlike's (its own globals' ``__name__``: the runner's module attribute says torch's)
    home = sys.modules.get(module)
    return home is not None and str(vars(home).get("__name__", "")).startswith("torchlike")


def overloaded_args(args, kwargs=None):
    """The arguments (also inside list/tuple arguments and keyword values) whose type overrides
    ``__torch_function__``, one per type, subclasses before their superclasses (torch's order)."""
    found = None
    for group in (args, kwargs.values() if kwargs else ()):
        for a in group:
            t = type(a)
            if t is Tensor:
                continue
            if t is list or t is tuple:
                for b in a:
                    tb = type(b)
                    if tb is not Tensor and not (tb is int or tb is float) and _overrides(tb):
                        found = _insert(found, b)
            elif not (t is int or t is float or t is bool or a is None) and _overrides(t):
                found = _insert(found, a)
    return found


def _insert(found, a):
    if found is None:
        return [a]
    t = type(a)
    if any(type(f) is t for f in found):
        return found
    for i, f in enumerate(found):  # before the first argument of a superclass
        if issubclass(t, type(f)):
            found.insert(i, a)
            return found
    found.append(a)
    return found


_PUBLIC_NAMES = {}  # wrapper -> torch's dotted name of it (``torch.exp``, ``torch.Tensor.__getitem__``)


def _api_name(func):
    name = _PUBLIC_NAMES.get(func)
    if name is None:
        mod = (getattr(func, "__module__", None) or "").replace("torchlike", "torch", 1)
        name = f"{mod}.{getattr(func, '__name__', func)}"
    return name


def handle(public_api, overloaded, args, kwargs, message=None):
    """Call the ``__torch_function__`` of each overloading argument's type in turn until one does not return
    NotImplemented (torch's ``handle_torch_function``); ``message`` replaces the TypeError's text if all do."""
    overloaded = overloaded or ()
    types_ = tuple(type(a) for a in overloaded)
    kwargs = kwargs or {}
    if _MODES and not _state.all_off:  # the innermost mode first, popped while it runs (torch's order)
        mode = _MODES.pop()
        try:
            r = mode.__torch_function__(public_api, types_, args, kwargs)
        finally:
            _MODES.append(mode)
        if r is not NotImplemented:
            return r
        if message is None and not overloaded:
            raise TypeError(f"no implementation found for '{_api_name(public_api)}' on types that implement "
                            f"__torch_function__: [] nor in mode {mode}")
    for a in overloaded:
        r = type(a).__torch_function__(public_api, types_, args, kwargs)
        if r is not NotImplemented:
            return r
    listed = "".join(f"  - tensor subclass {t}\n" for t in types_)
    raise TypeError(message or f"Multiple dispatch failed for '{_api_name(public_api)}'; all __torch_function__ "
                    f"handlers returned NotImplemented:\n\n{listed}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def mode_active():
    """Whether a TorchFunctionMode would see a call made now."""
    return bool(_MODES) and not _state.all_off


def has_torch_function(relevant_args):
    """torch.overrides.has_torch_function: whether an argument's type (other than exactly Tensor) overrides
    ``__torch_function__`` and the protocol is not disabled (a yes switches the protocol on: see ``enable``)."""
    if _MODES and not _state.all_off:
        return True
    if _state.subclass_off or _state.all_off:
        return False
    for a in relevant_args:
        t = type(a)
        if t is not Tensor and _overrides(t):
            enable()
            return True
    return False


_IMPLS = []  # key -> (the function's original body as a new function, the public API the protocol passes)
_DONE = set()  # ids of functions already made dispatching
_ORIGINALS = {}  # key -> the dispatching function (the original object)



def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Dispatch ``public_api`` to the ``__torch_function__`` of the overriding types among ``relevant_args``
    (subclasses first); TypeError when each returns NotImplemented."""
    found = overloaded_args(tuple(relevant_args)) or []
    return handle(public_api, found, args, kwargs,
                  f"no implementation found for '{_api_name(public_api)}' on types that implement "
                  f"__torch_function__: {[type(a) for a in found]}")


def has_torch_function_unary(a):
    """``has_torch_function((a,))``."""
    return has_torch_function((a,))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)``."""
    return has_torch_function(args)

def _entry(key, args, kwargs):
    """The slow path of a dispatching function (an argument that is not a plain Tensor or number, a keyword
    argument, or an active mode): its overriding arguments' ``__torch_function__``, else its original body."""
    impl, public = _IMPLS[key]
    if type(public) is _LookedUp:
        public = getattr(Tensor, public.name)
    if _MODES and not _state.all_off:  # a TorchFunctionMode is active: it sees every call
        return handle(public, None if _state.subclass_off else overloaded_args(args, kwargs), args, kwargs)
    if not (_state.subclass_off or _state.all_off):
        found = overloaded_args(args, kwargs)
        if found is not None:
            form = _ARG_FORMS.get(_PUBLIC_NAMES.get(_ORIGINALS[key])) if _ARG_FORMS else None
            return handle(public, found, form(args) if form is not None else args, kwargs)
    return impl(*args, **kwargs)


_ARG_FORMS = {}  # torch API name -> the arguments torch's own Python hands the overriding types (see below)


def register_argument_form(api_name, form):
    """Where torch's Python rewrites a call before dispatching it (``torch.functional.einsum(eq, [a, b])`` calls
    ``einsum(eq, a, b)``), ``form(args)`` gives the overriding types -- found inside a list argument -- the
    rewritten arguments, as they get in torch (torch.fx records ``einsum('ij,jk->ik', a, b)``; opt_einsum_fx
    reads the operands from there). A TorchFunctionMode sees the call as made, before torch's rewrite."""
    _ARG_FORMS[api_name] = form


_TEMPLATES = {}
_KEY = 987654321  # the placeholder constant each dispatching code object replaces with its key
# the names a dispatching function's code reads from its module's globals (set there by _make_dispatching)
_GLOBALS = {"__torchlike_tf_entry__": _entry, "__torchlike_tf_impls__": _IMPLS, "__torchlike_tf_modes__": _MODES,
            "__torchlike_tf_tensor__": Tensor}


_GENERATED = pass_through_file(__file__, "generated dispatch")


def _template(nfree):
    """A code object ``(*args, **kwargs)`` with ``nfree`` (unused) free variables, so that it can replace the code
    of a closure with that many cells: plain Tensors and numbers go straight to the original body (one loop over
    the arguments is the protocol's whole cost); anything else takes ``_entry``."""
    t = _TEMPLATES.get(nfree)
    if t is None:
        cells = [f"_c{i}" for i in range(nfree)]
        src = "def _outer():\n" + "".join(f"    {c} = None\n" for c in cells) + \
            "    def _f(*args, **kwargs):\n" + (f"        {', '.join(cells)}\n" if cells else "") + \
            "        for a in args:\n" \
            "            t = type(a)\n" \
            "            if t is not __torchlike_tf_tensor__ and t is not int and t is not float:\n" \
            f"                return __torchlike_tf_entry__({_KEY}, args, kwargs)\n" \
            "        if kwargs or __torchlike_tf_modes__:\n" \
            f"            return __torchlike_tf_entry__({_KEY}, args, kwargs)\n" \
            f"        return __torchlike_tf_impls__[{_KEY}][0](*args, **kwargs)\n" \
            "    return _f\n"
        ns = {}
        exec(compile(src, _GENERATED, "exec"), ns)  # noqa: S102 (a fixed template, no user input)
        t = _TEMPLATES[nfree] = ns["_outer"]().__code__
    return t


_GETTER_SRC = ("def _f(self):\n"
               "    if type(self) is __torchlike_tf_tensor__ and not __torchlike_tf_modes__:\n"
               f"        return __torchlike_tf_impls__[{_KEY}][0](self)\n"
               f"    return __torchlike_tf_entry__({_KEY}, (self,), {{}})\n")


def _getter_template():
    """The code of a dispatching property getter (``self`` only: a plain Tensor costs one type check)."""
    t = _TEMPLATES.get("getter")
    if t is None:
        ns = {}
        exec(compile(_GETTER_SRC, _GENERATED, "exec"), ns)  # noqa: S102 (a fixed template)
        t = _TEMPLATES["getter"] = ns["_f"].__code__
    return t


def original(f):
    """``f`` itself, or, once the protocol has made ``f`` dispatching, a function with ``f``'s original body
    (what a check of how a surface was generated compares)."""
    for key, g in _ORIGINALS.items():
        if g is f:
            return _IMPLS[key][0]
    return f


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _ours(f):
    """Whether function ``f`` is torchlike's (its code is in the package, generated wrappers included). A
    function a program or library put on Tensor or in a namespace (nnsight's ``Tensor.backward``, a monkeypatched
    ``torch.nn.functional.gelu``) is called as it is in torch: no ``__torch_function__`` dispatch, no frame in
    between (such code reads its caller with ``sys._getframe``), its ``__code__`` untouched."""
    return f.__code__.co_filename.startswith(_PACKAGE_DIR)


def _make_dispatching(f, public=None, name=None):
    """Give function ``f`` (in place: every reference to it, captured before or after, is the same object) a body
    that dispatches ``__torch_function__`` first; ``public`` is what handlers receive as ``func`` (``f``).
    Functions that are not torchlike's own (``_ours``) are left as they are."""
    if not isinstance(f, types.FunctionType) or id(f) in _DONE or not _ours(f):
        return
    _DONE.add(id(f))
    impl = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    impl.__kwdefaults__ = f.__kwdefaults__
    impl.__dict__.update(f.__dict__)  # (``__wrapped__`` of install's wrappers)
    key = len(_IMPLS)
    _IMPLS.append((impl, f if public is None else public))
    _ORIGINALS[key] = f
    if name is not None:
        _PUBLIC_NAMES[f] = name
    for k, v in _GLOBALS.items():
        f.__globals__.setdefault(k, v)
    c = f.__code__
    getter = name is not None and name.endswith(".__get__") and c.co_argcount == 1 and not c.co_freevars and \
        not c.co_kwonlyargcount and not (c.co_flags & 0x0C)  # (0x0C: *args, **kwargs)
    code = _getter_template() if getter else _template(len(c.co_freevars))
    consts = tuple(key if c == _KEY else c for c in code.co_consts)
    f.__code__ = code.replace(co_consts=consts, co_name=c.co_name, co_qualname=c.co_qualname,
                              co_freevars=c.co_freevars, co_varnames=(c.co_varnames[0],) if getter else code.co_varnames)
    _SWAPS.append((f, f.__code__, c))
    if not hasattr(f, "__wrapped__"):
        f.__wrapped__ = impl  # inspect.signature reads the original signature


_TENSOR_OWN = {}  # name -> Tensor's attribute as torchlike made it (``snapshot_tensor``)
# torch's Tensor methods written in Python (torch/_tensor.py): they dispatch ``Tensor.<name>`` looked up when
# called, so a handler's ``func`` is the replacement a library put there (nnsight's ``backward``), not the original
_LOOKED_UP_WHEN_CALLED = frozenset((
    "__array__", "__array_wrap__", "__contains__", "__deepcopy__", "__dir__", "__dlpack__", "__dlpack_device__",
    "__format__", "__len__", "__reduce_ex__", "__repr__", "__reversed__", "__setstate__", "backward", "dim_order",
    "index", "is_shared", "istft", "lu", "module_load", "norm", "register_hook",
    "register_post_accumulate_grad_hook", "resize", "resize_as", "share_memory_", "split", "stft", "storage",
    "storage_type", "unflatten", "unique", "unique_consecutive"))


class _LookedUp:
    """The public API of a ``_LOOKED_UP_WHEN_CALLED`` method: ``Tensor.<name>`` at the time of the call."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _tensor_attributes():
    """Tensor's attributes by name, the first class of its MRO that has one winning."""
    found = {}
    for klass in Tensor.__mro__[:-1]:
        for name, v in vars(klass).items():
            found.setdefault(name, v)
    return found


def snapshot_tensor():
    """Remember Tensor's own methods and properties (once torchlike is built): a function a library later puts
    in their place is not torchlike's, so ``_make_dispatching`` leaves it alone, and the original it replaced
    (which the replacement usually calls) still dispatches when the protocol comes on, as torch's does."""
    if not _TENSOR_OWN:
        _TENSOR_OWN.update(_tensor_attributes())


def _foreign(v):
    f = v.fget if isinstance(v, property) else v
    return isinstance(f, types.FunctionType) and not _ours(f)


def _wrap_tensor():
    for name, v in _tensor_attributes().items():
        if name in _TENSOR_SKIP:
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if _foreign(v):  # put there by a program or library: wrap the original it replaced, if any
            v = _TENSOR_OWN.get(name, v)
        if isinstance(v, property) and isinstance(v.fget, types.FunctionType):
            _make_dispatching(v.fget, v.__get__, f"torch.Tensor.{name}.__get__")
        elif isinstance(v, types.FunctionType):
            if getattr(v, "__torch_function_transparent__", False):
                continue  # a wrapper whose function dispatches itself (the table's operators)
            if name.startswith("__") and vars(Tensor).get(name[2:-2]) is not v and id(v) not in _DONE:
                v.__name__ = name  # an operator of its own (``__getitem__``), named so as torch's
            _make_dispatching(v, _LookedUp(name) if name in _LOOKED_UP_WHEN_CALLED else None, f"torch.Tensor.{name}")


def _wrap_namespace(mod, skip, own):
    """Make the public functions of ``mod`` dispatch: torchlike's own, and the originals (``own``, as registered)
    of any a program or library replaced since (``F.gelu = my_gelu``: ``my_gelu`` is left as it is)."""
    prefix = mod.__name__.replace("torchlike", "torch", 1)
    quiet = _tensor_never_dispatching()
    for name, v in list(vars(mod).items()) + list(own.items()):
        if not name.startswith("_") and name not in skip and isinstance(v, types.FunctionType) and id(v) not in quiet:
            _make_dispatching(v, None, f"{prefix}.{name}")


def _tensor_never_dispatching():
    """ids of Tensor's own methods that never dispatch (``_TENSOR_SKIP``, private ones): a library may put one in
    a namespace (fastai: ``torch.as_subclass = torch.Tensor.as_subclass``, as torch has none), and making it
    dispatch there would change the method itself (fastai's ``as_subclass`` patch then recursed forever)."""
    return {id(v) for name, v in (_TENSOR_OWN or _tensor_attributes()).items()
            if name in _TENSOR_SKIP or (name.startswith("_") and not (name.startswith("__") and name.endswith("__")))}


# the protocol's own helpers, which some namespaces re-export (torch.nn.functional): never dispatched
_PROTOCOL_NAMES = frozenset(("has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
                             "handle_torch_function"))


def register_namespace(mod, skip=frozenset()):
    """Have ``enable`` make the public functions of ``mod`` (except ``skip``) dispatch; at once if it is on."""
    skip = frozenset(skip) | _PROTOCOL_NAMES
    snapshot_tensor()  # (the facade registers its namespaces once Tensor has all its methods)
    own = {k: v for k, v in vars(mod).items() if isinstance(v, types.FunctionType) and _ours(v)}
    _NAMESPACES.append((mod, skip, own))
    if _ON:
        _wrap_namespace(mod, skip, own)


def enabled():
    return bool(_ON)


def enable():
    """Switch the protocol on (once; it stays on): Tensor's public methods, operators and property getters and
    the registered namespaces' functions dispatch ``__torch_function__`` from now on."""
    first = not _STICKY
    _STICKY.append(True)
    _switch_on()
    if first:
        _watch(False)


def _switch_on():
    if _ON:
        return
    _ON.append(True)
    for f, dispatching, _ in _SWAPS:  # on before, then off again (``enabled_while``)
        f.__code__ = dispatching
    for mod, skip, own in _NAMESPACES:  # namespaces first: their names are torch's (torch.add, not Tensor.add)
        _wrap_namespace(mod, skip, own)
    _wrap_tensor()
    _unnest()


def _unnest():
    """Point the closures of the original bodies at the original bodies of the dispatching functions they call
    (``torch.add``'s out= and sparse layers wrap ``Tensor.add``): the outermost surface checks the arguments once,
    and a nested surface (an implementation detail, as torch's C++ is) does not check them again."""
    key_of = {id(f): k for k, f in _ORIGINALS.items()}
    for impl, _ in _IMPLS:
        for cell in impl.__closure__ or ():
            try:
                k = key_of.get(id(cell.cell_contents))
            except ValueError:  # an empty cell
                continue
            if k is not None:
                _UNNESTED.append((cell, cell.cell_contents))
                cell.cell_contents = _IMPLS[k][0]


@contextlib.contextmanager
def enabled_while():
    """The protocol on inside the block and, unless something needs it to stay on (a Tensor subclass, a mode, a
    tensor-like: ``enable``), off again after it: FX tracing records torch functions called on Proxies, and ops
    on plain Tensors keep their usual cost once the trace is over."""
    if _ON:
        yield
        return
    _switch_on()
    try:
        yield
    finally:
        if not _STICKY:
            for f, _, orig in _SWAPS:
                f.__code__ = orig
            for cell, old in reversed(_UNNESTED):
                cell.cell_contents = old
            _UNNESTED.clear()
            _ON.clear()


def retry_with_overrides(args, kwargs):
    """For a check of the op table that rejected an argument: True (and the protocol switched on) when some
    argument is a tensor-like overriding ``__torch_function__``, so the caller retries through the protocol."""
    if _ON or _state.subclass_off or _state.all_off:
        return False
    if overloaded_args(args, kwargs) is None:
        return False
    enable()
    return True


def redispatch(name, fallback, args, kwargs):
    """Call op ``name`` again through its surface (the Tensor method when the first argument is a Tensor, else the
    torch function), now that ``retry_with_overrides`` switched the protocol on."""
    surface = getattr(Tensor, name, None) if isinstance(args[0] if args else None, Tensor) else \
        (getattr(_NAMESPACES[0][0], name, None) if _NAMESPACES else None)
    if surface is None:
        return handle(fallback, overloaded_args(args, kwargs), args, kwargs)
    return surface(*args, **kwargs)


def default_nowrap_functions():
    """torch.overrides.get_default_nowrap_functions(): getters whose results the default ``__torch_function__``
    leaves unconverted (``Tensor.grad``, ``Tensor._base``)."""
    return {getattr(Tensor, n).__get__ for n in ("grad", "_base", "_grad") if isinstance(getattr(Tensor, n, None), property)}


def _convert(ret, cls):
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(items) if type(ret) in (tuple, list) or not hasattr(ret, "_fields") else type(ret)(*items)
    return ret


def _default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor's ``__torch_function__``: run ``func`` with the protocol off for subclasses and return its Tensor
    results as instances of ``cls`` (except for ``get_default_nowrap_functions()``)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if cls is Tensor or func in default_nowrap_functions():
            return ret
        return _convert(ret, cls)


def _on_subclass(cls, /, **kwargs):
    # positional-only, as the hooks this stands for: a class keyword named ``cls`` reaches object's check
    super(Tensor, cls).__init_subclass__(**kwargs)
    if not _STICKY and _overrides(cls):
        enable()


def _is_tensor_like(cls):
    """Whether a class just made is a tensor-like that switches the protocol on: not a Tensor, not torchlike's,
    with a classmethod ``__torch_function__`` of its own (keras's ``Variable``).  Modes (instance methods),
    torchlike's own classes and Tensor subclasses (``_on_subclass``) are not tensor-likes here."""
    return not _STICKY and isinstance(cls, type) and isinstance(vars(cls).get("__torch_function__"), classmethod) \
        and not issubclass(cls, Tensor) and not str(getattr(cls, "__module__", "")).startswith("torchlike") \
        and _overrides(cls)


def _classmethod_set_name(self, owner, name, /):
    """``classmethod.__set_name__`` while torchlike watches for tensor-likes: ``type.__new__`` calls it (from C)
    for every classmethod in a new class's namespace, so a class that binds ``__torch_function__`` to one switches
    the protocol on as it is made, by a class statement or by ``type(name, bases, ns)``.  torch dispatches every
    function, method and operator to such an argument; switched on when the class is made, every torchlike surface
    does too, from the first call on (one that cannot hold a tensor-like otherwise fails before
    ``retry_with_overrides`` is reached: ``tensor.add(variable)``, ``F.linear(x, variable)``).  Running after the
    class body, from C, it puts no frame between a class body and the scope running its class statement, which
    libraries read (``overrides``' ``@override`` finds the base classes in that frame's bytecode), and classmethods
    stay the builtin's own objects (``type(cm) is classmethod``; cloudpickle and pickle see what they see in
    torch's process)."""
    if name == "__torch_function__" and _is_tensor_like(owner):
        enable()


_classmethod_set_name.__qualname__ = "classmethod.__set_name__"


def _classmethod_dict():
    """The dict behind ``classmethod.__dict__`` (a builtin type's attributes are otherwise read-only)."""
    found = [d for d in gc.get_referents(classmethod.__dict__) if isinstance(d, dict)]
    if len(found) != 1 or found[0].get("__get__") is not vars(classmethod)["__get__"]:
        raise LookupError("classmethod's dict")
    return found[0]


def _set_classmethod_attr(name, value):
    d = _classmethod_dict()
    if value is None:
        d.pop(name, None)
    else:
        d[name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(classmethod))  # drop the attribute caches of the old dict


_build_class = builtins.__build_class__


def _build_class_watching(func, name, /, *bases, **kwargs):
    """``builtins.__build_class__`` that switches the protocol on when a class statement makes a tensor-like: the
    watch where ``classmethod.__set_name__`` cannot be set (its Python frame sits between every class body and
    the scope running the class statement, which ``overrides``' ``@override`` cannot read).  ``func`` and ``name``
    are positional-only, as in the builtin: a class keyword (``class C(B, name='')``, tensorly-torch's factorized
    tensors) goes to the metaclass, not here."""
    cls = _build_class(func, name, *bases, **kwargs)
    if _is_tensor_like(cls):
        enable()
    return cls


def _watch(on):
    """Watch for tensor-like classes as they are made (``on``), or stop (the protocol is on for good: nothing is
    left to watch for, and classmethod is the builtin again)."""
    try:
        _set_classmethod_attr("__set_name__", _classmethod_set_name if on else None)
        if on and getattr(classmethod(len), "__set_name__", None).__func__ is not _classmethod_set_name:
            raise LookupError("classmethod.__set_name__")
    except Exception:  # an interpreter whose builtin types take no attribute: the class-statement hook instead
        with contextlib.suppress(Exception):
            _set_classmethod_attr("__set_name__", None)
        builtins.__build_class__ = _build_class_watching if on else _build_class
    else:
        if builtins.__build_class__ is _build_class_watching:
            builtins.__build_class__ = _build_class


_watch(True)


# the protocol's own frames between a user's call and the op are ones warnings' stacklevel skips (see _GENERATED)
for _f in (_entry, handle, _default_torch_function):
    _f.__code__ = _f.__code__.replace(co_filename=_GENERATED)
del _f
# named as torch's (code reading its caller's frame, as nnsight's Tensor.backward does, sees torch's name)
_default_torch_function.__code__ = _default_torch_function.__code__.replace(
    co_name="__torch_function__", co_qualname="Tensor.__torch_function__")
_default_torch_function.__name__, _default_torch_function.__qualname__ = "__torch_function__", "Tensor.__torch_function__"

Tensor.__torch_function__ = classmethod(_default_torch_function)
Tensor.__init_subclass__ = classmethod(_on_subclass)


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass``: inside it, ops ignore the ``__torch_function__`` of their
    arguments' types."""

    def __enter__(self):
        _state.subclass_off += 1
        return self

    def __exit__(self, *exc):
        _state.subclass_off -= 1
        return False


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """``torch._C.DisableTorchFunction``: the protocol off altogether (subclasses and modes)."""

    def __enter__(self):
        _state.all_off += 1
        return self

    def __exit__(self, *exc):
        _state.all_off -= 1
        return False


for _c in (DisableTorchFunctionSubclass, DisableTorchFunction):
    _c.__module__ = "torch._C"
