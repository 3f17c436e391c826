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
from .autograd.function import Function
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


class CustomOpDef:
    """An operator defined with :func:`custom_op`: callable, with ``register_fake``/``register_autograd``."""

    def __init__(self, namespace, name, schema, fn):
        self._namespace, self._name, self._schema, self._init_fn = namespace, name, schema, fn
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
        return (lambda f: f) if func is None else func

    def register_autocast(self, device_type, cast_inputs):
        pass

    def _impl(self):
        return self._kernels.get("cpu", self._kernels.get(None, self._init_fn))

    def _autograd_function(self):
        if self._function is None:
            op = self

            def forward(*args):
                return op._impl()(*args)

            def setup_context(ctx, inputs, output):
                if op._setup_context_fn is not None:
                    op._setup_context_fn(ctx, inputs, output)

            def backward(ctx, *grads):
                out = op._backward_fn(ctx, *grads)
                return out
            self._function = type(self._name, (Function,), {"forward": staticmethod(forward),
                                                            "setup_context": staticmethod(setup_context),
                                                            "backward": staticmethod(backward)})
        return self._function

    def __call__(self, *args, **kwargs):
        if self._backward_fn is None:
            return self._impl()(*args, **kwargs)
        if kwargs:
            import inspect
            bound = inspect.signature(self._init_fn).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        return self._autograd_function().apply(*args)

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap ``fn`` as the operator ``name`` (``"namespace::opname"``); usable as a decorator."""
    ns, opname = _split(name)

    def wrap(f):
        return CustomOpDef(ns, opname, schema, f)
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
    if target is None:
        raise ValueError(f"register_kernel(op): no operator named {op!r} was defined with custom_op")
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


def infer_schema(prototype_function, /, *, mutates_args, op_name=None) -> str:
    import inspect
    params = ", ".join(f"Tensor {p}" for p in inspect.signature(prototype_function).parameters)
    return f"({params}) -> Tensor"


def opcheck(op, args, kwargs=None, *, test_utils=None, raise_exception=True, atol=None, rtol=None):
    """Runs ``op`` once on the arguments (torchlike has no dispatcher-level checks to run)."""
    (op._impl() if isinstance(op, CustomOpDef) else op)(*args, **(kwargs or {}))
    return {}


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
        elif qual not in _OPS:
            CustomOpDef(self.ns, name, None, fn)
        else:
            _OPS[qual].register_kernel(None, fn)

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        pass

    def _destroy(self):
        for name in self._defined:
            _OPS.pop(f"{self.ns}::{name}", None)


def define(qualname, schema, *, lib=None, tags=()):
    ns, name = _split(qualname)
    (lib or Library(ns, "FRAGMENT")).define(name + schema)


def impl(qualname, types, func=None, *, lib=None):
    ns, name = _split(qualname)

    def reg(f):
        (lib or Library(ns, "FRAGMENT")).impl(name, f)
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
        if overload.startswith("__"):
            raise AttributeError(overload)
        return self

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._qualname.replace('::', '.')}')>"

    def __str__(self):
        return self._qualname.replace("::", ".")


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
