"""torchlike.fx._symbolic_trace: ``Tracer``, ``symbolic_trace`` and ``wrap``.

The tracer runs a module's ``forward`` (or a function) once on Proxies.  While it runs, ``nn.Module.__call__``
records leaf modules (those of ``torchlike.nn``) as ``call_module`` nodes and steps into the others, and
``nn.Module.__getattr__`` turns parameters and buffers read in ``forward`` into ``get_attr`` nodes.  Both are
restored afterwards, so the cost is paid only while tracing.

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x) + 1)
    >>> print(gm.code.strip())
    def forward(self, x):
        relu = torch.relu(x);  x = None
        add = relu + 1;  relu = None
        return add
"""
from __future__ import annotations

import builtins
import enum
import functools
import importlib
import itertools
import inspect
import math
import operator
import sys
import types

from .. import _torch_function
from .._C import ScriptObject  # noqa: F401 (torch.fx._symbolic_trace's name)
from .._dtype import dtype as _dtype_cls
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .graph import Graph, base_globals
from . import graph_module as _graph_module
from .graph_module import GraphModule, exec_forward
from ._patcher import _Patcher, compatibility  # noqa: F401 (torch.fx._symbolic_trace's names)
from .node import WRAPPED, Node
from .proxy import _ITER_MESSAGE, Attribute, ParameterProxy, Proxy, TraceError, proxies_in

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "rebuild_graph_module"]

_WRAPPED = []  # (globals dict, name) registered by wrap(): patched in while tracing


def _positional_form(fn):
    """``fn`` with its ``*args``/``**kwargs`` parameters made plain positional ones, so that the tracer can pass
    one Proxy for each (as torch's tracer does, by rewriting the code's flags)."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return fn
    extra = bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    new = types.FunctionType(code.replace(co_flags=flags, co_argcount=code.co_argcount + extra), fn.__globals__,
                             fn.__name__, None, fn.__closure__)
    return new


def _assert_is_none(value, msg):
    """What a ``concrete_args`` entry of None leaves in the graph: a check that the input is still None."""
    assert value is None, msg


class _PH:
    """A concrete_args placeholder: the argument stays an input of the graph."""

    def __repr__(self):
        return "PH"


PH = _PH()


def wrap(fn_or_name):
    """Make a module-level function a leaf of FX tracing: called on Proxies it records one call_function node
    instead of being traced through.  Call it at module scope, with the function or its name.

    >>> import torchlike
    >>> torchlike.fx.wrap("len") == "len"
    True
    """
    frame = inspect.currentframe().f_back
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if not any(g is frame.f_globals and n == name for g, n in _WRAPPED):
        _WRAPPED.append((frame.f_globals, name))
    return fn_or_name


def _wrapped(tracer, fn):
    def leaf(*args, **kwargs):
        if proxies_in(args, kwargs):
            return tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)
    leaf.__wrapped__ = fn
    return leaf


# where leaf modules are defined (under ``python -m torchlike run`` torchlike's classes report torch's module names)
_NN_MODULES = ("torchlike.nn.", "torchlike.ao.nn.", "torch.nn.", "torch.ao.nn.")
_BASE_TYPES = (str, int, float, bool, complex, type(None), type(...), range, enum.Enum, _dtype_cls)


class Tracer:
    """Builds a ``Graph`` by running a module or function on Proxies (torch.fx.Tracer); subclass it and override
    ``is_leaf_module`` to choose which modules stay whole ``call_module`` nodes.

    >>> import torchlike
    >>> class Net(torchlike.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torchlike.nn.Linear(2, 2)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> g = torchlike.fx.Tracer().trace(Net())
    >>> [(n.op, n.target) for n in g.nodes]
    [('placeholder', 'x'), ('call_module', 'fc'), ('call_method', 'relu'), ('output', 'output')]
    """

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        self.autowrap_modules, self.autowrap_functions = autowrap_modules, autowrap_functions
        # torch's names for the same (a Tracer.trace written outside torch, as torch_geometric's, reads them)
        self._autowrap_function_ids = {id(v) for n, v in itertools.chain(*(vars(m).items() for m in autowrap_modules))
                                       if not n.startswith("_") and callable(v)} | {id(f) for f in autowrap_functions}
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.proxy_buffer_attributes = True
        self.submodule_paths = None
        self.root = None
        self.graph = None
        self.tensor_attrs = {}

    # ---- node creation -----------------------------------------------------------------------------
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Record a node (its Proxy arguments become Nodes) and return its Proxy."""
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs), name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """A value as a node argument: Proxies as their Nodes, parameters/buffers of the root and other tensors
        as get_attr nodes (constants are stored on the root as ``_tensor_constant<i>``)."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(x) for x in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(x) for x in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                if not isinstance(k, str):
                    raise NotImplementedError(f"dict keys must be str, got {type(k)}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, Tensor):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            name = self.tensor_attrs.get(id(a))
            if name is None:
                for n, b in self.root.named_buffers():
                    if a is b:
                        name = n
                        break
            if name is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                name = f"_tensor_constant{i}"
                self.root.register_buffer(name, a) if not isinstance(a, Parameter) else setattr(self.root, name, a)
                self.tensor_attrs[id(a)] = name
            return self.create_node("get_attr", name, (), {})
        if isinstance(a, Module):
            return self.create_node("get_attr", self.path_of_module(a), (), {})
        if isinstance(a, _BASE_TYPES) or callable(a) or type(a).__module__.startswith(("torchlike", "torch")):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    # ---- modules and attributes --------------------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """torch's rule: modules defined in torch.nn (here torchlike.nn) are leaves, except Sequential."""
        return type(m).__module__.startswith(_NN_MODULES) and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of submodule ``mod`` of the root."""
        if self.submodule_paths:  # keyed by module, as torch's (a trace of one's own fills it so)
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, m in self.root.named_modules():
            if m is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A call of submodule ``m``: a call_module node for a leaf, else ``forward`` traced through."""
        qualname = self.path_of_module(m)
        if not self.is_leaf_module(m, qualname):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", qualname, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """``module.attr`` read during tracing: parameters and buffers of the root become get_attr Proxies."""
        if isinstance(attr_val, Parameter):
            tables = [self.root.named_parameters()]
        elif self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            tables = [self.root.named_buffers()]
        else:
            return attr_val
        for table in tables:
            for n, p in table:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        if self.param_shapes_constant and isinstance(p, Parameter):
                            factory = lambda node, n=n, p=p: ParameterProxy(self, node, n, p)  # noqa: E731
                        else:
                            factory = None
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {},
                                                                     proxy_factory_fn=factory)
                    return parameter_proxy_cache[n]
        return attr_val

    def iter(self, obj):
        raise TraceError(_ITER_MESSAGE)

    def to_bool(self, obj):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def keys(self, obj):
        return Attribute(obj, "keys")()

    # ---- tracing -----------------------------------------------------------------------------------
    def _placeholders(self, fn, skip_self, concrete_args):
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1 if skip_self else 0:]
        concrete_args = concrete_args or {}
        if not isinstance(concrete_args, dict):
            concrete_args = dict(zip((p.name for p in params), concrete_args))
        values = []
        for p in params:
            if p.kind is p.KEYWORD_ONLY:
                raise NotImplementedError(f"torchlike.fx.symbolic_trace does not trace keyword-only parameters ({fn})")
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:  # one Proxy for the tuple / the dict
                star = "*" if p.kind is p.VAR_POSITIONAL else "**"
                values.append(self.create_proxy("placeholder", star + p.name, (), {}))
                continue
            if p.name in concrete_args and concrete_args[p.name] is not PH:
                value = concrete_args[p.name]
                self.graph._namespace.create_name(p.name, None)  # torch names such an input ``<name>_1``
                default = () if p.default is inspect.Parameter.empty else (p.default,)
                ph = self.create_proxy("placeholder", p.name, default, {})
                ph.node.target = ph.node.name
                if value is None:
                    self.create_proxy("call_function", _assert_is_none,
                                      (ph, f"{p.name} has been specialized to have value None but got another "
                                           "value"), {})
                elif isinstance(value, (bool, int, float, str)):
                    eq = self.create_proxy("call_function", operator.eq, (ph, value), {})
                    self.create_proxy("call_function", sys.modules["torchlike"]._assert,
                                      (eq, f"{p.name} has been specialized to have value {value} but got another "
                                           "value"), {})
                values.append(value)
                continue
            default = () if p.default is inspect.Parameter.empty else (p.default,)
            typed = None if p.annotation is inspect.Parameter.empty else p.annotation
            values.append(self.create_proxy("placeholder", p.name, default, {}, type_expr=typed))
        return values

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """torch's hook for a ``trace`` of one's own: ``root_fn`` callable on the returned arguments (the root module
        first for a module's forward, then one placeholder Proxy or concrete value per parameter)."""
        args = self._placeholders(root_fn, is_module, concrete_args)
        return _positional_form(root_fn), ([self.root] if is_module else []) + args

    def _autowrap(self, fn, saved):
        """Make the public functions of ``autowrap_modules`` (``math``) and ``autowrap_functions`` leaves while
        tracing, both as module attributes (``math.sqrt``) and as globals of the traced code (``from math import
        sqrt``); ``saved`` collects what to restore."""
        leaves = {}
        for m in self.autowrap_modules:
            for name, value in list(vars(m).items()):
                if not name.startswith("_") and callable(value) and not isinstance(value, type):
                    leaves[id(value)] = value
                    saved.append((vars(m), name, True, value))
                    vars(m)[name] = _wrapped(self, value)
        for f in self.autowrap_functions:
            leaves[id(f)] = f
        globals_ = getattr(fn, "__globals__", {})
        for name, value in list(globals_.items()):
            if id(value) in leaves:
                saved.append((globals_, name, True, value))
                globals_[name] = _wrapped(self, value)
        WRAPPED.update(leaves)

    def trace(self, root, concrete_args=None):
        """Run ``root`` (a Module's forward, or a function) on Proxies and return the recorded Graph."""
        if isinstance(root, Module):
            self.root, fn, skip_self = root, type(root).forward, True
        else:
            self.root, fn, skip_self = Module(), root, False
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        cache = {}
        tracer = self
        orig_call = Module.__dict__.get("__call__")
        orig_getattr = Module.__getattr__

        def module_call(mod, *args, **kwargs):
            return tracer.call_module(mod, mod.forward, args, kwargs)

        def module_getattr(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), cache)

        with _torch_function.enabled_while():  # torchlike functions called on Proxies record nodes
            saved = []
            try:
                Module.__call__ = module_call
                Module.__getattr__ = module_getattr
                for globals_, name in _WRAPPED:
                    if name in globals_ or name in vars(builtins):
                        fn_obj = globals_.get(name, vars(builtins).get(name))
                        saved.append((globals_, name, name in globals_, globals_.get(name)))
                        globals_[name] = _wrapped(self, fn_obj)
                        WRAPPED[id(fn_obj)] = fn_obj
                self._autowrap(fn, saved)
                args = self._placeholders(fn, skip_self, concrete_args)
                call = _positional_form(fn)
                result = call(self.root, *args) if skip_self else call(*args)
                ret_type = getattr(fn, "__annotations__", {}).get("return")
                self.create_node("output", "output", (self.create_arg(result),), {}, type_expr=ret_type)
            finally:
                if orig_call is None:
                    del Module.__call__
                else:
                    Module.__call__ = orig_call
                Module.__getattr__ = orig_getattr
                for globals_, name, had, old in reversed(saved):
                    if had:
                        globals_[name] = old
                    else:
                        globals_.pop(name, None)
        return self.graph


# ---- torch.fx._symbolic_trace's module-level helpers, for a Tracer.trace written outside torch --------------------
FunctionType = types.FunctionType
_orig_module_call = Module.__call__
_orig_module_getattr = Module.__getattr__


def _create_wrapped_func(orig_fn):
    """``orig_fn`` as a leaf: called on Proxies it records one call_function node in their tracer's graph."""
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        found = proxies_in(args, kwargs)
        if found:
            return found[0].tracer.create_proxy("call_function", orig_fn, args, kwargs)
        return orig_fn(*args, **kwargs)
    WRAPPED[id(orig_fn)] = orig_fn
    return wrapped


def _patch_wrapped_functions(patcher):
    """Patch the functions registered with ``wrap`` into their modules' globals for the patcher's block."""
    for globals_, name in _WRAPPED:
        if name in globals_ or name in vars(builtins):
            patcher.patch(globals_, name, _create_wrapped_func(globals_.get(name, vars(builtins).get(name))))


def _autowrap_check(patcher, frame_dict, function_ids):
    """Patch the public functions of ``frame_dict`` whose ids are in ``function_ids`` (``math.sqrt``) as leaves."""
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def symbolic_trace(root, concrete_args=None):
    """Trace a Module or function into a ``GraphModule`` (torch.fx.symbolic_trace).

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(torchlike.nn.Linear(3, 2))
    >>> gm(torchlike.ones(1, 3)).shape
    torch.Size([1, 2])
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


class _KeepModules(Tracer):
    def is_leaf_module(self, m, module_qualified_name):
        return True


def _resolve(module, qualname):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def rebuild_graph_module(body, code, imports, class_name):
    """Unpickle a GraphModule: run its pickled ``code`` as ``forward`` of a module holding the pickled attributes
    and trace that (every submodule a leaf) into the graph (torch pickles GraphModules as code too)."""
    globals_ = {name: _resolve(module, qualname) for name, module, qualname in imports}
    forward = exec_forward(code, {**base_globals(), **globals_})
    holder = type(class_name, (Module,), {"forward": forward})
    fake = holder.__new__(holder)
    fake.__dict__.update(body)
    graph = _KeepModules().trace(fake)
    gm = GraphModule(fake, graph, class_name)
    for k, v in body.items():
        gm.__dict__.setdefault(k, v)
    return gm


_graph_module._rebuild_hook.append(rebuild_graph_module)
