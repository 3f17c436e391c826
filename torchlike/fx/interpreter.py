"""torchlike.fx.interpreter: ``Interpreter`` (run a GraphModule node by node, each op kind a method to
override) and ``Transformer`` (the same walk, recording a new graph).

    >>> import torchlike
    >>> gm = torchlike.fx.symbolic_trace(lambda x: x * 2)
    >>> torchlike.fx.Interpreter(gm).run(torchlike.ones(1))
    tensor([2.])
"""
from __future__ import annotations

from .. import _torch_function
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy
from ._symbolic_trace import Tracer

__all__ = ["Interpreter", "Transformer"]


def _fetch_attr(mod, target):
    obj = mod
    for i, atom in enumerate(target.split(".")):
        if not hasattr(obj, atom):
            raise RuntimeError(f"Node referenced nonexistent target {'.'.join(target.split('.')[:i + 1])}")
        obj = getattr(obj, atom)
    return obj


class Interpreter:
    """Runs a GraphModule's graph node by node (torch.fx.Interpreter): ``run_node`` calls the method named after
    the node's op (``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module``,
    ``output``) with its arguments already evaluated; override those to change what the program does.

    >>> import torchlike
    >>> class NegRelu(torchlike.fx.Interpreter):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is torchlike.relu:
    ...             return torchlike.neg(*args)
    ...         return super().call_function(target, args, kwargs)
    >>> gm = torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x))
    >>> NegRelu(gm).run(torchlike.ones(2))
    tensor([-1., -1.])
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:  # each value is dropped after its last use
            self.user_to_last_uses, seen = {}, set()
            for node in reversed(list(self.graph.nodes)):
                for n in node.all_input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args``; returns what the output node returns."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        args_iter = list(args_list)
        args_list.clear()
        return self.run(*args_iter)

    def run_node(self, n):
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- one method per op kind --------------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        if target.startswith("**"):  # (keyword arguments do not reach a GraphModule's inputs one by one)
            return {}
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not "
                               "passed in!") from None

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ---- helpers -----------------------------------------------------------------------------------
    def fetch_attr(self, target):
        return _fetch_attr(self.module, target)

    def fetch_args_kwargs_from_env(self, n):
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n):
        def load(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose "
                                   "such issues")
            return self.env[n_arg]
        return map_arg(args, load)


class _TransformerTracer(Tracer):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, m, module_qualified_name):
        return True


class Transformer(Interpreter):
    """An Interpreter whose methods build a new graph (torch.fx.Transformer): ``transform()`` returns a
    GraphModule of what the overridden methods record.

    >>> import torchlike
    >>> class ReluToSigmoid(torchlike.fx.Transformer):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is torchlike.relu:
    ...             target = torchlike.sigmoid
    ...         return super().call_function(target, args, kwargs)
    >>> gm = ReluToSigmoid(torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x))).transform()
    >>> [n.target for n in gm.graph.nodes][1] is torchlike.sigmoid
    True
    """

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module
        self.tracer.submodule_paths = {m: n for n, m in module.named_modules()}

    def placeholder(self, target, args, kwargs):
        default = args[0] if args else Graph.placeholder.__defaults__[1]
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        """Run the walk and return the new GraphModule."""
        with _torch_function.enabled_while():
            result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)

