"""torchlike.fx.node: ``Node``, one operation of an FX ``Graph``, and ``map_arg``/``map_aggregate``.

A node's ``op`` is one of ``placeholder`` (an input), ``get_attr`` (a parameter, buffer or submodule read from
the owning module), ``call_function``, ``call_method``, ``call_module`` and ``output``.  Nodes sit in their
graph's doubly linked list (``prev``/``next``); each keeps the nodes it reads (``all_input_nodes``) and the
nodes reading it (``users``) up to date whenever its ``args``/``kwargs`` change.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> x = g.placeholder("x")
    >>> y = g.call_function(torchlike.relu, (x,))
    >>> _ = g.output(y)
    >>> y.op, y.name, list(x.users), y.all_input_nodes
    ('call_function', 'relu', [relu], [x])
"""
from __future__ import annotations

import builtins
import operator
import sys
import types

from .._C import NN_BUILTINS

__all__ = ["Node", "map_arg", "map_aggregate", "Argument", "Target"]

Argument = object
Target = object

# the op kinds, in the order torch lists them
_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
_TORCH_NAMESPACES = ("", "nn.functional", "linalg", "special", "fft", "Tensor")
_QUALNAMES = {}  # id(function) -> "torch.x.y" for torchlike's public functions (filled on first use)
# torch.nn.functional functions that are one object with the torch function of the same name in torchlike but a
# Python function of their own in torch, which torch.fx names ``torch.nn.functional.<name>`` (read from torch
# 2.13's qualified names); other shared functions are torch's ``torch.<name>``
_FUNCTIONAL_NAMED = frozenset((
    "adaptive_max_pool1d", "alpha_dropout", "batch_norm", "binary_cross_entropy_with_logits", "celu",
    "cosine_embedding_loss", "ctc_loss", "dropout", "dropout1d", "dropout2d", "dropout3d", "embedding",
    "embedding_bag", "feature_alpha_dropout", "group_norm", "hinge_embedding_loss", "instance_norm", "kl_div",
    "layer_norm", "margin_ranking_loss", "max_pool1d", "max_pool2d", "max_pool3d", "poisson_nll_loss", "rms_norm",
    "rrelu", "selu", "softmin", "threshold", "triplet_margin_loss"))
WRAPPED = {}  # id(function) -> function, for the functions fx.wrap made leaves (generated code re-wraps them)


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of the nested tuples/lists/dicts/slices ``a``, keeping their structure."""
    t = type(a)
    if isinstance(a, tuple):
        items = tuple(map_aggregate(x, fn) for x in a)
        return items if t is tuple or not hasattr(a, "_fields") else t(*items)
    if isinstance(a, list):
        return [map_aggregate(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every Node in the nested structure ``a`` (torch.fx.map_arg).

    >>> import torchlike
    >>> torchlike.fx.map_arg((1, [2]), lambda n: n)
    (1, [2])
    """
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


# modules whose functions torch re-exports but names at home (F.boolean_dispatch is torch._jit_internal's)
_NAMED_BY_HOME = frozenset({"torchlike._jit_internal"})


def _public_functions():
    """torch's dotted name of each public torchlike function (``torchlike.relu`` -> ``torch.relu``)."""
    if not _QUALNAMES:
        import_root = sys.modules["torchlike"]
        for ns in _TORCH_NAMESPACES:
            mod = import_root
            for part in filter(None, ns.split(".")):
                mod = getattr(mod, part)
            prefix = "torch." + (ns + "." if ns else "")
            for name, obj in list(vars(mod).items()):
                if callable(obj) and not name.startswith("__") and not isinstance(obj, type) and \
                        getattr(obj, "__module__", None) not in _NAMED_BY_HOME:
                    _QUALNAMES.setdefault(id(obj), prefix + name)
        functional = import_root.nn.functional
        for name in _FUNCTIONAL_NAMED:
            if hasattr(functional, name):
                _QUALNAMES[id(getattr(functional, name))] = "torch.nn.functional." + name
        for name, f_name in NN_BUILTINS.items():  # torch._C._nn builtins in torch (F.gelu, F.linear, ...)
            if hasattr(functional, f_name):
                _QUALNAMES[id(getattr(functional, f_name))] = "torch._C._nn." + name
                setattr(import_root._C._nn, name, getattr(functional, f_name))  # (generated code calls it there)
    return _QUALNAMES


def qualified_name(func):
    """torch.fx's name of a call_function target: ``torch.relu``, ``operator.add``, ``builtins.getattr``."""
    if getattr(builtins, getattr(func, "__name__", ""), None) is func:
        return "builtins." + func.__name__
    if getattr(operator, getattr(func, "__name__", ""), None) is func:
        return "operator." + func.__name__
    known = _public_functions().get(id(func))
    if known is not None:
        return known
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
    module = (getattr(func, "__module__", None) or "").replace("torchlike", "torch", 1)
    return f"{module}.{name}" if module else name


def _format_arg(arg, max_list_len=float("inf")):
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return "(" + items + ("," if len(arg) == 1 else "") + ")"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + arg.name
    return str(arg)


class Node:
    """One operation of an FX graph (torch.fx.Node): ``op``, ``target``, ``args``/``kwargs`` (which may hold
    other Nodes), its unique ``name``, ``users`` and a free-form ``meta`` dict.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> x = g.placeholder("x")
    >>> n = g.call_method("view", (x, -1))
    >>> n.format_node()
    '%view : [num_users=0] = call_method[target=view](args = (%x, -1), kwargs = {})'
    """

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise AssertionError(f"invalid op {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr", "placeholder") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self._next = self
        self._erased = False
        self.meta = {}
        self._args, self._kwargs = (), {}
        self._update_args_kwargs(args, kwargs)

    # ---- the linked list ---------------------------------------------------------------------------
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x):
        """Insert node ``x`` before this one (moving it there if it is already in the graph)."""
        if self is x:  # (torch only warns: nothing to move)
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x):
        """Insert node ``x`` after this one."""
        self._next.prepend(x)

    def __lt__(self, other):  # for sorting nodes by graph position (callers rarely need it)
        return self.graph._position(self) < self.graph._position(other)

    # ---- arguments and uses ------------------------------------------------------------------------
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        """The nodes this one reads, in first-use order."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_arg(tuple(new_args), self._add_input)
        self._kwargs = map_arg(dict(new_kwargs), self._add_input)

    def _add_input(self, n):
        self._input_nodes.setdefault(n)
        n.users.setdefault(self)
        return n

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def insert_arg(self, idx, arg):
        args = list(self._args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def replace_input_with(self, old_input, new_input):
        """Replace every use of ``old_input`` among this node's arguments with ``new_input``."""
        swap = lambda n: new_input if n is old_input else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Make every user of this node read ``replace_with`` instead; returns the users changed."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        changed = [u for u in list(self.users) if delete_user_cb(u)]
        for u in changed:
            u.replace_input_with(self, replace_with)
        return changed

    # ---- properties and printing -------------------------------------------------------------------
    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random=True):
        """placeholder and output nodes, and in-place module calls, must not be removed as dead code."""
        return self.op in ("placeholder", "output")

    def _pretty_target(self):
        if self.op == "call_function":
            return qualified_name(self.target)
        return str(self.target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The node as one line of ``str(graph)`` (torch's format)."""
        typed = f"{type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : {typed}[num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "output":
            if maybe_return_typename is not None and self.type is not None:
                maybe_return_typename[0] = f" -> {type_repr(self.type)}"
            return f"return {self.args[0]}"
        if self.op == "get_attr":
            return f"%{self.name} : {typed}[num_users={len(self.users)}] = get_attr[target={self.target}]"
        return (f"%{self.name} : {typed}[num_users={len(self.users)}] = {self.op}[target={self._pretty_target()}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name


def type_repr(t):
    """How torch.fx prints an annotation: ``float``, ``torch.Tensor``, ``typing.List[int]``."""
    if isinstance(t, type) and not isinstance(t, types.GenericAlias):
        if t.__module__ == "builtins":
            return t.__qualname__
        if t.__module__.startswith("torch") and getattr(sys.modules["torchlike"], t.__name__, None) is t:
            return f"torch.{t.__name__}"
        return f"{t.__module__.replace('torchlike', 'torch', 1)}.{t.__qualname__}"
    return repr(t).replace("torchlike", "torch")
