"""torchlike.fx.graph: ``Graph``, the node list of an FX program, and the Python code generated from it.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> x = g.placeholder("x")
    >>> _ = g.output(g.call_function(torchlike.relu, (x,)))
    >>> print(g.python_code("self").src.strip())
    def forward(self, x):
        relu = torch.relu(x);  x = None
        return relu
"""
from __future__ import annotations

import builtins
import copy
import inspect
import keyword
import math
import operator
import re
import sys

from .node import WRAPPED, Node, map_arg, qualified_name, type_repr

__all__ = ["Graph", "PythonCode", "CodeGen", "base_globals"]

_ILLEGAL = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"torch", "inf", "nan", "NoneType", "device"}
_SUFFIX = re.compile(r"(.*)_(\d+)$")

# how the generated code writes a call of these operator functions (torch.fx's "magic methods")
_BINARY = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "truediv": "/", "mod": "%", "pow": "**",
           "lshift": "<<", "rshift": ">>", "and_": "&", "or_": "|", "xor": "^", "matmul": "@", "eq": "==",
           "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}


def _snake_case(s):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


class _Namespace:
    """Unique Python identifiers for nodes (``add``, ``add_1``, ...; never a keyword or builtin name)."""

    def __init__(self):
        self._used, self._base_count, self._obj_to_name = set(), {}, {}

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", _snake_case(candidate)) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        m = _SUFFIX.match(candidate)
        base, num = (m.group(1), int(m.group(2))) if m else (candidate, None)
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count.get(base, 0)
        while candidate in self._used or candidate in _ILLEGAL:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[obj] = name


class _NodeList:
    def __init__(self, graph, direction="_next"):
        self._graph, self._direction = graph, direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root, d = self._graph._root, self._direction
        cur = getattr(root, d)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, d)

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._direction == "_next" else "_next")


class PythonCode:
    """Generated source (``src``) and the globals (``globals``) it runs with.

    >>> import torchlike
    >>> code = torchlike.fx.symbolic_trace(lambda x: torchlike.exp(x)).graph.python_code("self")
    >>> code.globals["torch"] is torchlike
    True
    """

    def __init__(self, src, globals_):
        self.src, self.globals = src, globals_


def _format_target(base, target):
    out = base
    for part in target.split("."):
        out = f"{out}.{part}" if part.isidentifier() else f'getattr({out}, "{part}")'
    return out


class CodeGen:
    """Turns a Graph into the source of ``forward`` (torch.fx.CodeGen's default Python form).

    >>> import torchlike
    >>> g = torchlike.fx.symbolic_trace(lambda x: -x).graph
    >>> print(torchlike.fx.CodeGen()._gen_python_code(list(g.nodes), "self").src.strip())
    def forward(self, x):
        neg = -x;  x = None
        return neg
    """

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args):
        return f"return {output_args!r}"

    def _gen_python_code(self, nodes, root_module):
        namespace = _Namespace()
        for n in nodes:
            namespace._used.add(n.name)
        torchlike = sys.modules["torchlike"]
        globals_ = base_globals()

        wrapped = []

        def add_global(name_hint, obj):
            if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
                return obj.__name__
            for k, v in globals_.items():
                if v is obj:
                    return k
            name = namespace.create_name(name_hint, obj)
            globals_[name] = obj
            return name

        def fn_name(func):
            q = qualified_name(func)
            if q.startswith("torch.") and _resolve(torchlike, q[6:]) is func:
                return q
            if q.startswith("operator.") and getattr(operator, q[9:], None) is func:
                return q
            name = add_global(q.replace(".", "_"), func)
            if id(func) in WRAPPED and name not in wrapped:
                wrapped.append(name)
            return name

        def arg_repr(a):
            if isinstance(a, (list, tuple)) and not isinstance(a, Node):
                items = [arg_repr(x) for x in a]
                if isinstance(a, list):
                    return "[" + ", ".join(items) + "]"
                if hasattr(a, "_fields"):
                    return add_global(type(a).__name__, type(a)) + "(" + ", ".join(items) + ")"
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            if isinstance(a, dict):
                return "{" + ", ".join(f"{k!r}: {arg_repr(v)}" for k, v in a.items()) + "}"
            if isinstance(a, Node):
                return a.name
            if inspect.isfunction(a) or inspect.isbuiltin(a):
                return fn_name(a)
            if isinstance(a, type):
                return add_global(a.__name__, a)
            return repr(a)

        def annotation(t):
            r = type_repr(t)
            return r if r.startswith("torch.") or getattr(builtins, r, None) is t else add_global(r, t)

        def call_args(args, kwargs):
            parts = [arg_repr(a) for a in args] + [f"{k} = {arg_repr(v)}" for k, v in kwargs.items()]
            return ", ".join(parts)

        # each value is deleted (``name = None``) right after its last use, as torch's code does
        last_use, seen = {}, set()
        for n in reversed(list(nodes)):
            for inp in list(map_arg_nodes(n.args)) + list(map_arg_nodes(n.kwargs)):
                if inp not in seen:
                    seen.add(inp)
                    last_use.setdefault(n, []).append(inp)

        free_vars, body, ret_annotation = [f"{root_module}"], [], ""
        for n in nodes:
            if n.op == "output" and n.type is not None:
                ret_annotation = f" -> {annotation(n.type)}"
            if n.op == "placeholder":
                typed = f" : {annotation(n.type)}" if n.type is not None else ""
                free_vars.append(n.target + typed + (f" = {arg_repr(n.args[0])}" if n.args else ""))
                if n.target.lstrip("*") != n.name:
                    body.append(f"    {n.name} = {n.target.lstrip('*')}\n")
                continue
            line = self._node_line(n, root_module, arg_repr, call_args, fn_name)
            if n.op == "output":
                body.append(f"    {line}\n")
                continue
            dead = list(last_use.get(n, []))
            if not n.users:
                dead.append(n)
            suffix = f";  {' = '.join(d.name for d in dead)} = None" if dead else ""
            body.append(f"    {line}{suffix}\n")
        if not any(n.op == "output" for n in nodes):
            body.append("    pass\n")
        wraps = "\n".join(f'torch.fx._symbolic_trace.wrap("{name}")' for name in wrapped)
        src = f"\n{wraps}\n\n" + self.gen_fn_def(free_vars, ret_annotation) + "\n" + "".join(body) + "    "
        return PythonCode(src, globals_)

    def _node_line(self, n, root, arg_repr, call_args, fn_name):
        op, t = n.op, n.target
        if op == "get_attr":
            return f"{n.name} = {_format_target(root, t)}"
        if op == "call_module":
            return f"{n.name} = {_format_target(root, t)}({call_args(n.args, n.kwargs)})"
        if op == "call_method":
            return f"{n.name} = {arg_repr(n.args[0])}.{t}({call_args(n.args[1:], n.kwargs)})"
        if op == "output":
            return self.generate_output(_ReprAsCode(n.args[0], arg_repr))
        name = getattr(t, "__name__", None)
        if getattr(operator, name or "", None) is t and not n.kwargs:
            if name in _BINARY and len(n.args) == 2:
                return f"{n.name} = {arg_repr(n.args[0])} {_BINARY[name]} {arg_repr(n.args[1])}"
            if name in _UNARY and len(n.args) == 1:
                return f"{n.name} = {_UNARY[name]}{arg_repr(n.args[0])}"
            if name == "getitem" and len(n.args) == 2:
                return f"{n.name} = {arg_repr(n.args[0])}[{arg_repr(n.args[1])}]"
        if t is builtins.getattr and len(n.args) == 2 and isinstance(n.args[1], str) and n.args[1].isidentifier():
            return f"{n.name} = {arg_repr(n.args[0])}.{n.args[1]}"
        return f"{n.name} = {fn_name(t)}({call_args(n.args, n.kwargs)})"


def base_globals():
    """The names every generated ``forward`` may use (``torch`` is torchlike)."""
    torchlike = sys.modules["torchlike"]
    return {"torch": torchlike, "operator": operator, "builtins": builtins, "inf": math.inf, "nan": math.nan,
            "device": torchlike.device, "NoneType": type(None)}


class _ReprAsCode:
    def __init__(self, value, arg_repr):
        self.value, self.arg_repr = value, arg_repr

    def __repr__(self):
        return self.arg_repr(self.value)


def map_arg_nodes(a):
    found = []
    map_arg(a, found.append)
    return found


def _resolve(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj



class _InsertPoint:
    """torch's insert point: it moves the graph's insertion point when made, not when entered (torch_geometric calls
    ``graph.inserting_after(node)`` without ``with``), and ``__exit__`` moves it back."""

    def __init__(self, graph, insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class Graph:
    """The program of an FX ``GraphModule``: a list of ``Node`` (torch.fx.Graph).

    Nodes are added at the insertion point (the end, or where ``inserting_before``/``inserting_after`` put it)
    by ``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module`` and ``output``.

    >>> import torchlike
    >>> g = torchlike.fx.Graph()
    >>> x = g.placeholder("x")
    >>> y = g.call_function(torchlike.add, (x, 1))
    >>> _ = g.output(y)
    >>> print(g)
    graph():
        %x : [num_users=1] = placeholder[target=x]
        %add : [num_users=1] = call_function[target=torch.add](args = (%x, 1), kwargs = {})
        return add
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = _Namespace()
        self._insert = self._root.prepend
        self._owning_module = owning_module
        self._tracer_cls, self._tracer_extras = tracer_cls, tracer_extras
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        return _NodeList(self)

    def _position(self, node):
        for i, n in enumerate(self.nodes):
            if n is node:
                return i
        raise RuntimeError(f"node {node} is not in this graph")

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---- building ----------------------------------------------------------------------------------
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Add a node at the insertion point; its name is ``name`` or made from ``target``, unique."""
        candidate = name if name is not None else self._target_to_str(target)
        name = self._namespace.create_name(candidate, None)
        n = Node(self, name, op, target, tuple(args or ()), dict(kwargs or {}), type_expr)
        self._namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    @staticmethod
    def _target_to_str(target):
        name = getattr(target, "__name__", "fn") if callable(target) else str(target)
        if callable(target) and name == "logsigmoid" and qualified_name(target) == "torch._C._nn.log_sigmoid":
            name = "log_sigmoid"  # (torch's node is named by the C builtin F.logsigmoid is there)
        return name[2:-2] if name.startswith("__") and name.endswith("__") and len(name) > 4 else name

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n=None):
        """New nodes go before ``n`` (the start of the graph if None) from now on; as a context manager, until the
        block ends."""
        return _InsertPoint(self, n.prepend) if n is not None else self.inserting_after(self._root)

    def inserting_after(self, n=None):
        """New nodes go after ``n`` (the end of the graph if None, as torch's code does) from now on; as a context
        manager, until the block ends."""
        return _InsertPoint(self, n.append) if n is not None else self.inserting_before(self._root)

    def erase_node(self, to_erase):
        """Remove a node that has no users."""
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in "
                               f"the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes whose values nobody uses (placeholders and the output stay); True if any went."""
        changed = False
        for n in reversed(self.nodes):
            impure = is_impure_node(n) if is_impure_node is not None else n.is_impure()
            if not impure and not n.users:
                self.erase_node(n)
                changed = True
        return changed

    # ---- copying -----------------------------------------------------------------------------------
    def node_copy(self, node, arg_transform=lambda x: x):
        """Copy ``node`` (from any graph) into this one, mapping its input nodes with ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        out = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        out.meta = copy.copy(node.meta)
        return out

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy every node of ``g`` but its output into this graph (``val_map``: old node -> new node, filled
        in); returns the copied output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, {}, return_output_node=True)
        if out is not None:
            rv, old_out = out
            g.output(rv, type_expr=old_out.type)
        return g

    # ---- checking and printing ---------------------------------------------------------------------
    def lint(self):
        """Check that each node's inputs belong to this graph and come before it."""
        seen = set()
        for n in self.nodes:
            if n.graph is not self:
                raise RuntimeError(f"Node {n} does not belong to this Graph!")
            for inp in n.all_input_nodes:
                if inp.graph is not self:
                    raise RuntimeError(f"Argument '{inp}' of Node '{n}' does not belong to this Graph, but was "
                                       "used as an argument! If you are copying nodes from another graph, make "
                                       "sure to use ``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if inp not in seen:
                    raise RuntimeError(f"Argument '{inp}' of Node '{n}' was used before it has been defined! "
                                       "Please check that Nodes in the graph are topologically ordered\n"
                                       f"{self}")
            seen.add(n)

    def python_code(self, root_module, *, verbose=None, include_stride=None, include_device=None,
                    colored=None):
        return self._codegen._gen_python_code(list(self.nodes), root_module)

    def set_codegen(self, codegen):
        self._codegen = codegen

    def __str__(self):
        return "graph():" + "".join(f"\n    {n.format_node()}" for n in self.nodes)

    def print_tabular(self):
        """Print the nodes as a table (opcode, name, target, args, kwargs)."""
        rows = [["opcode", "name", "target", "args", "kwargs"]]
        rows += [[n.op, n.name, str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        rows.insert(1, ["-" * w for w in widths])
        print("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows))

