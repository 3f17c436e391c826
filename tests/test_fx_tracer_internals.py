"""torch.fx internals that libraries build on, compared with torch: a ``Tracer.trace`` written outside torch (as
torch_geometric's) from ``torch.fx._symbolic_trace``'s ``_Patcher``, ``_orig_module_call``/``_orig_module_getattr``,
``_autowrap_check``, ``_patch_wrapped_functions``, ``create_args_for_root`` and ``compatibility``; and
``Graph.inserting_after(node)`` moving the insertion point when called, without a ``with`` block."""
import math

import pytest
from conftest import torch

import torchlike


def _own_trace_graph(lib):
    st = lib.fx._symbolic_trace

    class Tracer(lib.fx.Tracer):
        @st.compatibility(is_backward_compatible=True)
        def trace(self, root, concrete_args=None):
            self.root = root
            self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            self.graph = lib.fx.Graph(tracer_cls=type(self))
            self.tensor_attrs = {}
            assert isinstance(type(root).forward, st.FunctionType)
            fn_globals = type(root).forward.__globals__
            fn, args = self.create_args_for_root(type(root).forward, True, concrete_args)
            cache = {}

            @st.functools.wraps(st._orig_module_getattr)
            def module_getattr_wrapper(mod, attr):
                return self.getattr(attr, st._orig_module_getattr(mod, attr), cache)

            @st.functools.wraps(st._orig_module_call)
            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return st._orig_module_call(mod, *args, **kwargs)
                return self.call_module(mod, forward, args, kwargs)

            with st._Patcher() as patcher:
                patcher.patch_method(lib.nn.Module, "__getattr__", module_getattr_wrapper, deduplicate=False)
                patcher.patch_method(lib.nn.Module, "__call__", module_call_wrapper, deduplicate=False)
                st._patch_wrapped_functions(patcher)
                st._autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                self.create_node("output", "output", (self.create_arg(fn(*args)),), {})
            self.submodule_paths = None
            return self.graph

    class Inner(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 2)

        def forward(self, x):
            return self.lin(x).relu() * math.sqrt(2.0)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.scale = lib.nn.Parameter(lib.ones(2))

        def forward(self, x, y):
            return lib.add(self.inner(x), y) * self.scale

    lib.manual_seed(0)
    net = Net()
    graph = Tracer().trace(net)
    gm = lib.fx.GraphModule(net, graph)
    patched_back = lib.nn.Module.__call__ is st._orig_module_call and "__call__" not in vars(Inner)
    x = lib.arange(6.0).reshape(2, 3)
    nodes = [(n.op, getattr(n.target, "__name__", n.target), n.name) for n in graph.nodes]
    return nodes, gm(x, lib.ones(2)).flatten().tolist(), patched_back


def test_a_trace_of_ones_own_from_torch_internals_matches_torch():
    pytest.importorskip("torch", reason="compared with torch")
    ours = _own_trace_graph(torchlike)
    theirs = _own_trace_graph(torch)
    assert ours[0] == theirs[0]
    assert ours[1] == pytest.approx(theirs[1], rel=1e-6)
    assert ours[2] is theirs[2] is True


def _insert_points(lib):
    g = lib.fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(lib.relu, (x,))
    g.output(a)
    g.inserting_after(x)  # no ``with``: the insertion point moves now, and stays
    b = g.call_function(lib.neg, (x,))
    c = g.call_function(lib.abs, (b,))
    with g.inserting_before(a):
        d = g.call_function(lib.exp, (c,))
    e = g.call_function(lib.sin, (x,))  # back to after x... then after b, c: torch's append keeps moving
    with g.inserting_after(None):
        f = g.call_function(lib.cos, (x,))
    with g.inserting_before(None):
        h = g.call_function(lib.tan, (x,))
    del d, e, f, h
    return [n.name for n in g.nodes]


def test_inserting_points_move_when_made_as_torch():
    pytest.importorskip("torch", reason="compared with torch")
    assert _insert_points(torchlike) == _insert_points(torch)
