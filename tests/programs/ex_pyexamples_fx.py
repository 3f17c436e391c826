"""pytorch/examples fx/ scripts in one program, each with its structure and torch.fx calls:
replace_op.py (swap ``operator.add`` / ``torch.add`` for ``torch.mul`` by rewriting node targets and
``recompile``), subgraph_rewriter_basic_use.py (``torch.fx.subgraph_rewriter.replace_pattern``),
wrap_output_dynamically.py (insert a call after the output's producer with ``graph.inserting_after`` and
``replace_all_uses_with``), inline_function.py (inline a submodule's traced graph with ``graph_copy`` and a
value remap), invert.py (build the inverse graph of an elementwise chain in a new ``Graph``),
module_tracer.py (a ``Tracer`` subclass recording the module path of each call through ``call_module``),
primitive_library.py (``torch.fx.wrap`` keeps a function opaque), proxy_based_graph_creation.py (ops on
``torch.fx.Proxy`` build a graph), and the ``Interpreter`` / ``Transformer`` subclasses of the docs (fx/
native_interpreter's idea: run each node, count calls; negate sigmoid through a ``Transformer``). Prints the
generated code and rounded results one fact per line."""
import operator

import torch
import torch.fx
import torch.nn as nn
from torch.fx import GraphModule, Proxy, symbolic_trace, subgraph_rewriter

torch.manual_seed(0)
x = torch.randn(3, 4)

# ----------------------------------------------------------------------------- replace_op.py


class M(torch.nn.Module):
    def forward(self, x, y):
        return x + y, torch.add(x, y), x.add(y)


traced = symbolic_trace(M())
patterns = set([operator.add, torch.add, "add"])
for n in traced.graph.nodes:
    if any(n.target == pattern for pattern in patterns):
        with traced.graph.inserting_after(n):
            new_node = traced.graph.call_function(torch.mul, n.args, n.kwargs)
            n.replace_all_uses_with(new_node)
        traced.graph.erase_node(n)
traced.recompile()
print("replace_op code:", traced.code.strip().replace("\n", " | "))
print("replace_op result", [round(t.sum().item(), 5) for t in traced(x, x + 1)])

# ----------------------------------------------------------------------------- subgraph_rewriter_basic_use.py


class M2(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)


def pattern(w1, w2):
    return torch.cat([w1, w2]).sum()


def replacement(w1, w2):
    return torch.stack([w1, w2])


traced_module = symbolic_trace(M2())
matches = subgraph_rewriter.replace_pattern(traced_module, pattern, replacement)
print("rewriter matches", len(matches), "code:", traced_module.code.strip().replace("\n", " | "))
w1, w2 = torch.randn(2, 4), torch.randn(2, 4)
print("rewriter result", round(traced_module(x[:2], w1, w2).sum().item(), 5))

# ----------------------------------------------------------------------------- wrap_output_dynamically.py


class M3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 5)

    def forward(self, x):
        return torch.relu(self.linear(x))


def wrap_in_activation_function(m: GraphModule, fn) -> GraphModule:
    # Get output node
    output_node = None
    for n in reversed(m.graph.nodes):
        if n.op == "output":
            output_node = n
            break
    assert output_node

    # Get the actual output (the "input" of the output node). This is the Node we want to wrap in a
    # user-specified activation function
    assert len(output_node.all_input_nodes) == 1
    wrap_node = output_node.all_input_nodes[0]

    # Wrap the actual output in the activation function
    with m.graph.inserting_after(wrap_node):
        activation = m.graph.call_function(fn, args=(wrap_node,))
        wrap_node.replace_all_uses_with(activation)
        activation.args = (wrap_node,)  # (replace_all_uses_with also rewrote the new node's own argument)

    m.graph.lint()
    m.recompile()
    return m


m3 = M3()
traced3 = symbolic_trace(m3)
wrapped = wrap_in_activation_function(traced3, torch.nn.functional.gelu)
print("wrapped code:", wrapped.code.strip().replace("\n", " | "))
print("wrapped result", torch.allclose(wrapped(x), torch.nn.functional.gelu(m3(x))),
      round(wrapped(x).sum().item(), 5))

# ----------------------------------------------------------------------------- inline_function.py


class M4(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = symbolic_trace(M3())  # a GraphModule submodule

    def forward(self, x):
        return self.inner(x) * 2


outer = M4()


class InlineTracer(torch.fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return True  # keep self.inner a call_module node to inline by hand


graph = InlineTracer().trace(outer)
gm = GraphModule(outer, graph)
for node in list(gm.graph.nodes):
    if node.op == "call_module" and node.target == "inner":
        sub = getattr(gm, node.target)
        val_map = {}
        placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        for p, a in zip(placeholders, node.args):
            val_map[p] = a
        with gm.graph.inserting_before(node):
            # copy the submodule's parameters onto the outer module under prefixed names
            for name, mod in sub.named_children():
                gm.add_submodule(f"inner_{name}", mod)
            out = gm.graph.graph_copy(sub.graph, val_map)
        for n in gm.graph.nodes:
            if n.op == "call_module" and n.target in dict(sub.named_children()) and n is not node:
                n.target = f"inner_{n.target}"
        node.replace_all_uses_with(out)
        gm.graph.erase_node(node)
gm.delete_all_unused_submodules()
gm.recompile()
print("inlined code:", gm.code.strip().replace("\n", " | "))
print("inlined same", torch.allclose(gm(x), outer(x)), sorted(n for n, _ in gm.named_modules() if n))

# ----------------------------------------------------------------------------- invert.py

invert_mapping = {}


def add_inverse(a, b):
    invert_mapping[a] = b
    invert_mapping[b] = a


inverses = [(torch.sin, torch.arcsin), (torch.cos, torch.arccos), (torch.tan, torch.arctan),
            (torch.exp, torch.log)]
for a, b in inverses:
    add_inverse(a, b)


def invert(model: torch.nn.Module) -> torch.nn.Module:
    fx_model = symbolic_trace(model)
    new_graph = torch.fx.Graph()  # As we're building up a new graph
    env = {}
    for node in reversed(fx_model.graph.nodes):
        if node.op == 'call_function':
            # This creates a node in the new graph with the inverse function,
            # and passes `env[node.name]` (i.e. the previous output node) as
            # input.
            new_node = new_graph.call_function(invert_mapping[node.target], (env[node.name],))
            env[node.args[0].name] = new_node
        elif node.op == 'output':
            # We turn the output into an input placeholder
            new_node = new_graph.placeholder(node.name)
            env[node.args[0].name] = new_node
        elif node.op == 'placeholder':
            # We turn the input placeholder into an output
            new_graph.output(env[node.name])
        else:
            raise RuntimeError("Not implemented")

    new_graph.lint()
    return torch.fx.GraphModule(fx_model, new_graph)


def f(x):
    return torch.exp(torch.tan(x))


res = invert(f)
print("inverse code:", res.code.strip().replace("\n", " | "))
z = torch.rand(5) * 0.5
print("inverse roundtrip", [round(v, 5) for v in res(f(z)).tolist()], [round(v, 5) for v in z.tolist()])

# ----------------------------------------------------------------------------- module_tracer.py


class ModulePathTracer(torch.fx.Tracer):
    current_module_qualified_name: str = ''
    node_to_originating_module = {}

    def call_module(self, m, forward, args, kwargs):
        old_qualname = self.current_module_qualified_name
        try:
            self.current_module_qualified_name = self.path_of_module(m)
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current_module_qualified_name = old_qualname

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.node_to_originating_module[proxy.node] = self.current_module_qualified_name
        return proxy


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)) + x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = Block()
        self.layer2 = nn.Sequential(Block(), nn.Flatten())

    def forward(self, x):
        return self.layer2(self.layer1(x)).mean(-1)


tracer = ModulePathTracer()
traced_graph = tracer.trace(Net())
for node in traced_graph.nodes:
    module_qualname = tracer.node_to_originating_module.get(node)
    print('module tracer', node.op, node.target if isinstance(node.target, str) else node.target.__name__,
          module_qualname)

# ----------------------------------------------------------------------------- primitive_library.py


def sigmoid_lowp(x: torch.Tensor):
    x = x.float()
    x = x.sigmoid()
    return x.half()


torch.fx.wrap('sigmoid_lowp')


def add_lowp(a: torch.Tensor, b: torch.Tensor):
    a, b = a.float(), b.float()
    c = a + b
    return c.half()


torch.fx.wrap('add_lowp')


class Foo(torch.nn.Module):
    def forward(self, x, y):
        x = sigmoid_lowp(x)
        y = sigmoid_lowp(y)
        return add_lowp(x, y)


traced_foo = symbolic_trace(Foo())
print("primitive code:", traced_foo.code.strip().replace("\n", " | "))
out = traced_foo(x, x * 2)
print("primitive result", out.dtype, round(out.float().sum().item(), 3))

# ----------------------------------------------------------------------------- proxy_based_graph_creation.py

graph = torch.fx.Graph()
tracer = torch.fx.proxy.GraphAppendingTracer(graph)
raw1 = graph.placeholder('x')
raw2 = graph.placeholder('y')
y = Proxy(raw1, tracer)
z = Proxy(raw2, tracer)
a = torch.cat([y, z])
b = torch.tanh(a)
c = torch.neg(b)
graph.output(c.node)
mod = GraphModule(torch.nn.Module(), graph)
print("proxy code:", mod.code.strip().replace("\n", " | "))
print("proxy result", tuple(mod(x, x).shape), round(mod(x, x).sum().item(), 5))

# ----------------------------------------------------------------------------- Interpreter / Transformer


class CountingInterpreter(torch.fx.Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.counts = {}

    def run_node(self, n):
        self.counts[n.op] = self.counts.get(n.op, 0) + 1
        return super().run_node(n)


class NegSigmSwapXformer(torch.fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target == torch.sigmoid:
            return torch.neg(*args, **kwargs)
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if target == 'neg':
            call_self, *args_tail = args
            return call_self.sigmoid(*args_tail, **kwargs)
        return super().call_method(target, args, kwargs)


def fn(x):
    return torch.sigmoid(x).neg()


gm = symbolic_trace(fn)
interp = CountingInterpreter(symbolic_trace(Net()))
out = interp.run(torch.randn(2, 2, 3, 3))
print("interpreter", tuple(out.shape), sorted(interp.counts.items()))
transformed = NegSigmSwapXformer(gm).transform()
print("transformer code:", transformed.code.strip().replace("\n", " | "))
print("transformer result", torch.allclose(transformed(x), torch.neg(x).sigmoid()))
