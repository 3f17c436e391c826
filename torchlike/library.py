"""torchlike.library: user-defined operators (torch.library) and the ``torch.ops`` namespace.

An op made with :func:`custom_op` runs its Python implementation; ``register_autograd`` gives it a
backward (run through ``torchlike.autograd.Function``), ``register_fake`` records its shape function. The op
is reachable as ``torchlike.ops.<namespace>.<name>``.

>>> import torchlike
>>> @torchlike.library.custom_op("mylib::double_it", mutates_args=())
... def double_it(x: torchlike.Tensor) -> torchlike.Tensor:
...     return x * 2
>>> def backward(ctx, grad):
...     return grad * 2
>>> double_it.register_autograd(backward)
>>> x = torchlike.ones(2, requires_grad=True)
>>> torchlike.ops.mylib.double_it(x).sum().backward(); x.grad
tensor([2., 2.])
"""
from __future__ import annotations

import functools
import inspect

import jax
import numpy as np

from . import _grad_mode
from ._errors import GraphBreak, is_tracer
from .tensor import Tensor
from ._library_schema import infer_schema
from .autograd.function import Function
from . import _ops as _ops_package
from ._ops.aten_ops import ATEN

__all__ = ["Library", "custom_op", "CustomOpDef", "define", "impl", "register_fake", "impl_abstract",
           "register_autograd", "register_kernel", "register_vmap", "register_torch_dispatch", "register_autocast",
           "get_ctx", "opcheck", "fallthrough_kernel", "infer_schema", "triton_op", "wrap_triton"]

_OPS: dict = {}  # "ns::name" -> CustomOpDef
_FAKES: dict = {}


def _split(qualname: str):
    if "::" not in qualname:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name should "
                         "look something like ns::foo")
    ns, name = qualname.split("::", 1)
    return ns, name.split(".", 1)[0]


def _records_grad(values):
    """Whether autograd records an op on ``values``: grad mode is on and one of them requires grad."""
    return _grad_mode._state.enabled and any(getattr(a, "requires_grad", False) for a in values)


class CustomOpDef:
    """An operator defined with :func:`custom_op`: callable, with ``register_fake``/``register_autograd``."""

    def __init__(self, namespace, name, schema, fn, mutates_args=()):
        self._namespace, self._name, self._schema, self._init_fn = namespace, name, schema, fn
        self._mutates_args = mutates_args
        self._vmap_fn = None
        self._abstract_fn = None
        self._backward_fn = self._setup_context_fn = None
        self._kernels = {}
        self._function = None
        functools.update_wrapper(self, fn)
        _OPS[f"{namespace}::{name}"] = self

    def register_fake(self, fn=None, /):
        if fn is None:
            return lambda f: self.register_fake(f)
        self._abstract_fn = fn
        return fn

    def register_kernel(self, device_types, fn=None, /):
        def reg(f):
            for d in ([device_types] if isinstance(device_types, str) or device_types is None else device_types):
                self._kernels[d] = f
            return f
        return reg if fn is None else reg(fn)

    def register_autograd(self, backward, /, *, setup_context=None):
        self._backward_fn, self._setup_context_fn = backward, setup_context
        self._function = None

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        return (lambda f: f) if fn is None else fn

    def register_vmap(self, func=None, /):
        def reg(f):
            self._vmap_fn = f
            return f
        return reg if func is None else reg(func)

    def register_autocast(self, device_type, cast_inputs):
        pass

    def _impl(self):
        return self._kernels.get("cpu", self._kernels.get(None, self._init_fn))

    def _autograd_function(self):
        """The op as an autograd Function (torch's generated autograd kernel): its backward is the registered
        formula, or torch's error when there is none."""
        if self._function is None:
            op = self

            def forward(*args):
                return op._impl()(*args)

            def setup_context(ctx, inputs, output):
                if op._setup_context_fn is not None:
                    op._setup_context_fn(ctx, inputs, output)

            def backward(ctx, *grads):
                if op._backward_fn is None:
                    raise op._no_formula()
                return op._backward_fn(ctx, *grads)
            name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
            self._function = type(name, (Function,), {"forward": staticmethod(forward),
                                                      "setup_context": staticmethod(setup_context),
                                                      "backward": staticmethod(backward)})
        return self._function

    def _no_formula(self):
        """torch's error for a backward through the op without ``register_autograd``."""
        return RuntimeError(f"Trying to backward through {self._namespace}.{self._name}.default but no autograd "
                            "formula was registered. Please use register_autograd to add one.")

    def _traced_call(self, args, kwargs):
        """Inside a compiled (or vmapped) function an implementation that reads values on the host runs there
        (``jax.pure_callback``, once per example under vmap) on the concrete values, its results shaped as its
        fake impl says: the op stays opaque, as in torch."""
        if self._abstract_fn is None:
            raise GraphBreak(f"{self} has no fake impl (register_fake), so a compiled function cannot call it")
        if _records_grad(args):
            raise GraphBreak(f"{self} is called on tensors that require grad inside a compiled function")
        fake = self._abstract_fn(*args, **kwargs)
        single = not isinstance(fake, (tuple, list))
        fakes = (fake,) if single else tuple(fake)
        specs = tuple(jax.ShapeDtypeStruct(tuple(f.shape), f._value.dtype) for f in fakes)
        slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        impl = self._impl()

        def host(*arrays):
            concrete = list(args)
            for i, x in zip(slots, arrays):
                concrete[i] = Tensor._wrap(jax.numpy.asarray(x))
            with _grad_mode.no_grad():
                out = impl(*concrete, **kwargs)
            return tuple(np.asarray(o.detach()._value) for o in ((out,) if single else out))
        res = jax.pure_callback(host, specs, *(args[i]._value for i in slots), vmap_method="sequential")
        outs = tuple(Tensor._wrap_where(r) for r in res)
        return outs[0] if single else outs

    def __call__(self, *args, **kwargs):
        if any(isinstance(a, Tensor) and is_tracer(a._value) for a in args):
            try:   # an implementation made of torch ops traces like any other code (compile, vmap)
                return self._impl()(*args, **kwargs)
            except GraphBreak:   # one that reads values on the host (numpy) runs as a callback
                return self._traced_call(args, kwargs)
        if not _records_grad(list(args) + list(kwargs.values())):
            return self._impl()(*args, **kwargs)
        if kwargs:
            bound = inspect.signature(self._init_fn).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        return self._autograd_function().apply(*args)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap ``fn`` as the operator ``name`` (``"namespace::opname"``); usable as a decorator. Its schema is
    inferred from ``fn``'s annotations unless given (unannotated parameters are torch's ValueError)."""
    def wrap(f):
        ns, opname = name.split("::")
        return CustomOpDef(ns, opname, schema if schema is not None else infer_schema(f, mutates_args=mutates_args),
                           f, mutates_args)
    return wrap if fn is None else wrap(fn)


def triton_op(name, fn=None, /, *, mutates_args):
    return custom_op(name, fn, mutates_args=mutates_args)


def wrap_triton(triton_kernel, /):
    raise NotImplementedError("torch.library.wrap_triton is not supported by torchlike (no Triton kernels on "
                              "XLA); see docs/differences.md")


def _lookup(op):
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, str):
        ns, name = _split(op)
        return _OPS.get(f"{ns}::{name}")
    return None


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Record ``func`` as the shape ("fake") function of ``op``; usable as a decorator."""
    def reg(f):
        target = _lookup(op)
        if target is not None:
            target._abstract_fn = f
        else:
            _FAKES[op if isinstance(op, str) else id(op)] = f
        return f
    return reg if func is None else reg(func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Give ``op`` a backward formula (``backward(ctx, *grads)``)."""
    target = _lookup(op)
    if target is None:
        raise ValueError(f"register_autograd(op): no operator named {op!r} was defined with custom_op")
    target.register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    target = _lookup(op)
    if target is None and isinstance(op, str):  # an op defined with torch.library.define / Library.define
        return impl(op, device_types, func, lib=lib)
    if target is None:
        raise ValueError(f"register_kernel({op}): got unexpected type for op: {type(op)}")
    return target.register_kernel(device_types, func)


def register_vmap(op, func=None, /, *, lib=None):
    return (lambda f: f) if func is None else func


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    return (lambda f: f) if func is None else func


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    pass


class _FakeCtx:
    def new_dynamic_size(self, *, min=0, max=None):  # noqa: A002 - torch's names
        raise NotImplementedError("torch.library.get_ctx().new_dynamic_size is not supported by torchlike")


def get_ctx():
    return _FakeCtx()


def fallthrough_kernel():
    raise NotImplementedError("fallthrough_kernel should never be called")


class OpCheckError(Exception):
    """An ``opcheck`` test failed."""


OpCheckError.__module__ = "torch.testing._internal.optests.generate_tests"
_OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_static",
                  "test_aot_dispatch_dynamic")
_DEFAULT_OPCHECK_TESTS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def _clone_args(args):
    return [a.detach().clone() if hasattr(a, "detach") else a for a in args]


def _check_schema(op, args, kwargs):
    """Arguments not declared in ``mutates_args`` keep their values."""
    mutable = getattr(op, "_mutates_args", "unknown")
    if mutable == "unknown":
        return
    names = list(inspect.signature(op._init_fn).parameters) if isinstance(op, CustomOpDef) else []
    work, before = _clone_args(args), _clone_args(args)
    with _grad_mode.no_grad():
        op(*work, **kwargs)
    for k, (a, b) in enumerate(zip(work, before)):
        name = names[k] if k < len(names) else k
        if hasattr(a, "detach") and name not in mutable and not (
                a.shape == b.shape and a.allclose(b, rtol=0, atol=0, equal_nan=True)):
            raise RuntimeError(f"Argument {name} is not defined as mutable but was mutated")


def _check_fake(op, args, kwargs):
    if not isinstance(op, CustomOpDef):
        return
    if op._abstract_fn is None:
        raise RuntimeError(f"There was no fake impl registered for {op}. This is necessary for "
                           "torch.compile/export/fx tracing to work. Please use "
                           f"`{op._init_fn.__name__}.register_fake` to add an fake impl.")
    with _grad_mode.no_grad():
        real = op._impl()(*_clone_args(args), **kwargs)
        fake = op._abstract_fn(*_clone_args(args), **kwargs)
    reals = real if isinstance(real, (tuple, list)) else (real,)
    fakes = fake if isinstance(fake, (tuple, list)) else (fake,)
    for r, f in zip(reals, fakes):
        if hasattr(r, "shape") and (tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype):
            raise RuntimeError(f"{op}: the fake impl returned a tensor of shape {tuple(f.shape)} and dtype "
                               f"{f.dtype} but the op returned shape {tuple(r.shape)} and dtype {r.dtype}")


def _check_aot(op, args, kwargs):
    _check_fake(op, args, kwargs)
    if isinstance(op, CustomOpDef) and op._backward_fn is None and any(getattr(a, "requires_grad", False)
                                                                      for a in args):
        raise op._no_formula()


_OPCHECKS = {"test_schema": _check_schema, "test_autograd_registration": lambda op, args, kwargs: None,
             "test_faketensor": _check_fake, "test_aot_dispatch_static": _check_aot,
             "test_aot_dispatch_dynamic": _check_aot}


def opcheck(op, args, kwargs=None, *, test_utils=_DEFAULT_OPCHECK_TESTS, raise_exception=True, atol=None,
            rtol=None):
    """Check a custom op as torch's ``opcheck`` does: its declared mutations (``test_schema``), its fake impl
    against the real outputs (``test_faketensor``), that what compile needs (a fake impl, and a backward
    formula for inputs that require grad) is registered (``test_aot_dispatch_*``). Returns
    ``{test: "SUCCESS" or the exception}``; with ``raise_exception`` the first failure raises ``OpCheckError``."""
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not set(test_utils) <= set(_OPCHECK_TESTS):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
                         f"{_OPCHECK_TESTS} but it was not")
    results = {}
    for name in test_utils:
        try:
            _OPCHECKS[name](op, tuple(args), dict(kwargs or {}))
            results[name] = "SUCCESS"
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for stack trace)") from ex
            results[name] = ex
    return results


class Library:
    """``Library(ns, kind)``: ``define`` schemas and ``impl`` them; the ops appear under ``torchlike.ops.ns``."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError("Unsupported kind: ", kind)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []

    def define(self, schema, alias_analysis="", *, tags=()):
        name = schema.split("(", 1)[0].split(".", 1)[0].strip()
        self._defined.append(name)
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        name = op_name if isinstance(op_name, str) else getattr(op_name, "__name__", str(op_name))
        name = name.split("::")[-1].split(".", 1)[0]
        qual = f"{self.ns}::{name}"
        key = dispatch_key or self.dispatch_key
        if key == "Meta":  # a shape function, not the kernel
            register_fake(qual, fn)
        elif key.startswith(("Autocast", "Autograd")) and key != "Autograd":
            pass  # torchlike has no per-backend autocast/autograd dispatch keys to route through
        else:
            device = _device_of_key(key)
            if qual not in _OPS:  # a defined schema's first kernel (a CPU/composite one is also its default)
                CustomOpDef(self.ns, name, None, fn if device in (None, "cpu") else None)
            _OPS[qual].register_kernel(device, fn)

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        pass

    def _destroy(self):
        for name in self._defined:
            _OPS.pop(f"{self.ns}::{name}", None)


def _device_of_key(key):
    """The device type a dispatch key (``"CPU"``, ``"CUDA"``) or device type (``"cpu"``) names; None for the
    composite keys, ``"default"`` and no key: a kernel for every device."""
    if not key or key == "default" or key.startswith(("Composite", "Autograd")):
        return None
    return key.lower()


def define(qualname, schema, *, lib=None, tags=()):
    ns, name = _split(qualname)
    (lib or Library(ns, "FRAGMENT")).define(name + schema)


def impl(qualname, types, func=None, *, lib=None):
    ns, name = _split(qualname)

    def reg(f):
        for key in [types] if isinstance(types, str) or types is None else types:
            (lib or Library(ns, "FRAGMENT")).impl(name, f, key or "")
        return f
    return reg if func is None else reg(func)


# --- torch.ops ------------------------------------------------------------------------------------
class _OpOverloadPacket:
    """``torch.ops.ns.name``: callable; ``.default`` and named overloads call the same function."""

    def __init__(self, qualname, fn):
        self._qualname, self._fn = qualname, fn
        self.__name__ = qualname.split("::")[-1]

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, overload):
        if overload.startswith("_"):  # no overload's name starts with one: a probe for another attribute
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{overload}'")
        o = _OpOverload(self, overload)
        setattr(self, overload, o)  # one object per overload: ``aten.mm.default is aten.mm.default``
        return o

    def __deepcopy__(self, memo=None):  # operators are singletons: deepcopy(a dict keyed by them) keeps the keys
        return self

    def overloads(self):
        return [k for k, v in vars(self).items() if isinstance(v, _OpOverload)]

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._qualname.replace('::', '.')}')>"

    def __str__(self):
        return self._qualname.replace("::", ".")


# "name.overload" -> the callable taking aten's arguments, where it differs from the packet's torch-level function
# (torchlike.export._aten.ATEN, filled in by torchlike.utils._python_dispatch); and the dispatches a
# TorchDispatchMode is handling now: (overload, run) pairs, run replaying torchlike's own op for that call
OVERLOAD_IMPLS: dict = {}
PENDING: list = []


class _OpOverload:
    """``torch.ops.aten.addmm.default``: one overload of an operator, what a ``TorchDispatchMode`` receives as
    ``func``. ``str`` is ``aten.addmm.default``, ``name()`` ``aten::addmm``; calling it runs the op (inside
    ``__torch_dispatch__``, the very call the mode is handling)."""

    def __init__(self, packet, overload):
        self._overloadpacket = self.overloadpacket = packet
        self._overloadname = overload
        self.namespace = packet._qualname.split("::")[0]
        self.__name__ = f"{packet.__name__}.{overload}"
        self.__qualname__ = self._opname = packet.__name__

    def __deepcopy__(self, memo=None):
        return self

    def name(self):
        q = self._overloadpacket._qualname
        return q if self._overloadname == "default" else f"{q}.{self._overloadname}"

    def __call__(self, *args, **kwargs):
        if PENDING and PENDING[-1][0] is self:
            return PENDING[-1][1](*args, **kwargs)
        fn = OVERLOAD_IMPLS.get(self.__name__) if self.namespace == "aten" else None
        return (fn or self._overloadpacket._fn)(*args, **kwargs)

    def __repr__(self):
        return f"<OpOverload(op='{str(self._overloadpacket)}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"{self._overloadpacket}.{self._overloadname}"

    def __hash__(self):
        return hash((self._overloadpacket._qualname, self._overloadname))

    def __eq__(self, other):
        return isinstance(other, _OpOverload) and other._overloadpacket._qualname == \
            self._overloadpacket._qualname and other._overloadname == self._overloadname


_PACKETS = {}


def _packet(qual, fn):
    """One packet per op (``torch.ops.aten.mm is torch.ops.aten.mm``, so packets key dicts), renewed when the
    op's function changes (a library redefines it)."""
    p = _PACKETS.get(qual)
    if p is None or p._fn is not fn:
        p = _PACKETS[qual] = _OpOverloadPacket(qual, fn)
    return p


def aten_packet(name):
    """``torch.ops.aten.<name>``."""
    return getattr(ops.aten, name)


class _OpNamespace:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        qual = f"{self._name}::{op}"
        if qual in _OPS:
            return _packet(qual, _OPS[qual])
        if self._name == "aten":
            if op in vars(ATEN):  # the op table's aten-only entries
                return _packet(qual, getattr(ATEN, op))
            import torchlike  # lazy: torch.ops.aten.X resolves X on the facade (layer 6), built after this
            fn = getattr(torchlike, op.rstrip("_") if not hasattr(torchlike, op) else op, None)
            if fn is None and hasattr(torchlike.nn.functional, op):
                fn = getattr(torchlike.nn.functional, op)
            if fn is not None and callable(fn):
                return _packet(qual, fn)
            if op in _ATEN_EXTRA:
                return _packet(qual, _ATEN_EXTRA[op])
            method = getattr(torchlike.Tensor, op, None)  # aten ops that torch has only as Tensor methods
            if callable(method) and not op.startswith("_"):
                return _packet(qual, method)
            impl = OVERLOAD_IMPLS.get(f"{op}.default") or next(  # aten-only ops torchlike runs by overload
                (fn for k, fn in OVERLOAD_IMPLS.items() if k.partition(".")[0] == op), None)
            if impl is not None:
                return _packet(qual, impl)
        raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{op}'")


def _aten_to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=False, non_blocking=False,
                  memory_format=None):
    return self.to(device=device, dtype=dtype, copy=True)


def _aten_slice(self, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * self.dim()
    index[dim] = slice(start, end, step)
    return self[tuple(index)]


def _aten_index(self, indices):
    return self[tuple(indices)]


def _aten_unsupported(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"aten::{name} is not implemented in torchlike (see docs/differences.md)")
    return fn


# aten operators that have no torch.* function of their name (libraries register overrides for them by name)
_ATEN_EXTRA = {"_to_copy": _aten_to_copy, "alias": lambda self: self.view_as(self), "slice": _aten_slice,
               "index": _aten_index, "_pin_memory": lambda self, device=None: self.clone(),
               "_sparse_addmm": _aten_unsupported("_sparse_addmm"),
               "_sparse_mm_reduce_impl": _aten_unsupported("_sparse_mm_reduce_impl"),
               "convolution_backward": _aten_unsupported("convolution_backward")}


class _Ops:
    """``torch.ops``: operator namespaces (``torch.ops.aten``, custom ones from :func:`custom_op`)."""

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _OpNamespace(ns)

    loaded_libraries: set = set()

    def load_library(self, path):
        """Load a compiled torch extension's operators. torchlike loads none, except that torchvision's own
        ``_C`` is answered with torchlike's ``torch.ops.torchvision`` operators; any other library fails the
        way a torch extension that cannot be loaded fails (``OSError``)."""
        import os
        path = os.path.realpath(path)
        base = os.path.basename(path)
        if os.path.basename(os.path.dirname(path)) == "torchvision" and base.split(".", 1)[0] == "_C":
            from . import _vision_ops  # lazy: torchvision's operators are defined only when torchvision asks
            _vision_ops.register()
            self.loaded_libraries.add(path)
            return
        raise OSError(f"Could not load this library: {path} (torchlike cannot load compiled torch extensions; "
                      "see docs/differences.md)")


ops = _Ops()

# torch._ops (torchlike._ops under the runner) names the operator classes: this package's hook (see there)
for _name, _value in {"OpOverload": _OpOverload, "OpOverloadPacket": _OpOverloadPacket,
                      "_OpNamespace": _OpNamespace, "_Ops": _Ops, "ops": ops}.items():
    setattr(_ops_package, _name, _value)
del _name, _value
