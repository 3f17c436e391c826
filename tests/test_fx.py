"""torch.fx: each test runs the same code with torch and with torchlike and compares the traced graphs (their text,
node names, ops and targets), the generated code and the traced modules' outputs on the same inputs."""
import copy
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest
from conftest import assert_same, lib_program_vs_torch, raises_like_torch, torch

import torchlike


def helper_scale(x, k):  # made an FX leaf by wrap() below, in both libraries
    return x * k


torch.fx.wrap("helper_scale")
torchlike.fx.wrap("helper_scale")


def twins(build):
    """``build(mod)`` with torch and with torchlike; the torchlike module gets torch's parameter values."""
    torch.manual_seed(0)
    theirs = build(torch)
    ours = build(torchlike)
    if isinstance(theirs, torch.nn.Module):
        sd = {k: torchlike.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
        ours.load_state_dict(sd)
    return ours, theirs


def nodes_of(gm):
    return [(n.name, n.op, n.format_node()) for n in gm.graph.nodes]


def torch_text(s):
    """torch's text with the functions torch defines in ``torch.functional`` named as the API names them
    (torchlike's ``torch.einsum``, torch's ``torch.functional.einsum``; see docs/differences.md)."""
    return s.replace("torch.functional.", "torch.")


def same_trace(build, *inputs, concrete_args=None):
    """Trace ``build(mod)`` in both libraries; graph text, nodes, code and outputs must agree."""
    ours, theirs = twins(build)
    gm_t = torch.fx.symbolic_trace(theirs, concrete_args=concrete_args)
    gm_o = torchlike.fx.symbolic_trace(ours, concrete_args=concrete_args)
    assert str(gm_o.graph) == torch_text(str(gm_t.graph))
    assert nodes_of(gm_o) == [(a, b, torch_text(c)) for a, b, c in nodes_of(gm_t)]
    assert gm_o.code == torch_text(gm_t.code)
    compare_runs(gm_o, gm_t, *inputs)
    return gm_o, gm_t


def compare_runs(ours, theirs, *inputs):
    out_t = theirs(*(torch.tensor(a) if isinstance(a, np.ndarray) else a for a in inputs))
    out_o = ours(*(torchlike.tensor(a) if isinstance(a, np.ndarray) else a for a in inputs))
    flat_t, flat_o = _flat(out_t), _flat(out_o)
    assert len(flat_t) == len(flat_o) > 0
    for o, t in zip(flat_o, flat_t):
        if isinstance(t, torch.Tensor):
            assert_same(o, t)
        else:
            assert o == t


def _flat(x):
    if isinstance(x, dict):
        return [y for v in x.values() for y in _flat(v)]
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flat(v)]
    return [x]


X = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)


def mlp(mod):
    return mod.nn.Sequential(mod.nn.Linear(4, 8), mod.nn.ReLU(), mod.nn.Linear(8, 3))


def everything(mod):
    class M(mod.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = mod.nn.Linear(4, 3)
            self.seq = mod.nn.Sequential(mod.nn.Linear(3, 3), mod.nn.ReLU())
            self.w = mod.nn.Parameter(mod.ones(3))
            self.register_buffer("b", mod.zeros(3))

        def forward(self, x, y=None):
            a = self.lin(x)
            a = mod.relu(a) + 1
            a = self.seq(a) * self.w - self.b
            n = x.shape[0]
            a = a.view(-1)
            c = mod.cat([a, a], dim=0)
            d = mod.nn.functional.relu(c, inplace=False)
            e = d[1:3] + n
            f = -e
            g = e.sum(dim=0, keepdim=True)
            return {"f": f, "g": (g, a.size(0))}
    return M()


def functional(mod):
    class F(mod.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = mod.nn.Parameter(mod.randn(5, 4))

        def forward(self, x):
            h = mod.nn.functional.linear(x, self.weight)
            h = mod.flatten(mod.stack([h, 2 * h], 1), 1)
            h = mod.cat([h, h.exp()], -1)
            return mod.sigmoid(h) @ h.t() / 3, h.max(dim=1)[0], h.mean() > 0
    return F()


def test_mlp_sequential_graph_code_and_outputs_match_torch():
    gm, _ = same_trace(mlp, X)
    assert isinstance(gm, torchlike.nn.Module)
    assert type(gm).__name__ == "Sequential"


def test_operators_methods_attributes_parameters_match_torch():
    same_trace(everything, X)


def test_torch_functions_on_proxies_record_call_function_nodes():
    same_trace(functional, X)


def test_traced_function_and_wrapped_leaf_match_torch():
    def build(mod):
        def f(x, k: float = 2.0):
            a, b = x.split(2, dim=1)
            return helper_scale(a, 3) + b.abs().clamp(min=0.5) ** 2 - (1 - x[:, :2])
        return f
    same_trace(build, X)


def test_concrete_args_specialize_like_torch():
    def build(mod):
        class C(mod.nn.Module):
            def forward(self, x, flag):
                return x + 1 if flag else x - 1
        return C()
    ours, theirs = twins(build)
    gm_t = torch.fx.symbolic_trace(theirs, concrete_args={"flag": True})
    gm_o = torchlike.fx.symbolic_trace(ours, concrete_args={"flag": True})
    assert str(gm_o.graph) == str(gm_t.graph) and gm_o.code == gm_t.code
    compare_runs(gm_o, gm_t, X, True)


def test_concrete_none_and_number_and_print_readable_like_torch():
    def build(mod):
        class M(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.l = mod.nn.Sequential(mod.nn.Linear(4, 2))

            def forward(self, x, mask=None, scale=2):
                if mask is not None:
                    x = x * mask
                return self.l(x) * scale
        return M()
    for concrete in ({"mask": None}, {"mask": None, "scale": 3}):
        gm_o, gm_t = same_trace(build, X, None, concrete.get("scale", 2), concrete_args=concrete)
        assert gm_o.print_readable(print_output=False) == gm_t.print_readable(print_output=False)


def test_tensor_constants_become_tensor_constant_attributes():
    def build(mod):
        def f(x):
            return mod.ones(4) + x
        return f
    gm_o, gm_t = same_trace(build, X)
    assert list(dict(gm_o.named_buffers())) == list(dict(gm_t.named_buffers())) == ["_tensor_constant0"]


def test_node_api_edit_graph_and_recompile_like_torch():
    def edit(mod, gm):
        for n in list(gm.graph.nodes):
            if n.op == "call_module" and n.target == "1":  # the ReLU
                with gm.graph.inserting_after(n):
                    new = gm.graph.call_function(mod.sigmoid, (n.args[0],))
                n.replace_all_uses_with(new)
                gm.graph.erase_node(n)
            if n.op == "output":
                with gm.graph.inserting_before(n):
                    d = gm.graph.call_method("mul", (n.args[0], 2))
                n.args = (d,)
        gm.graph.lint()
        gm.recompile()
        return gm
    ours, theirs = twins(mlp)
    gm_o = edit(torchlike, torchlike.fx.symbolic_trace(ours))
    gm_t = edit(torch, torch.fx.symbolic_trace(theirs))
    assert gm_o.code == gm_t.code and str(gm_o.graph) == str(gm_t.graph)
    compare_runs(gm_o, gm_t, X)
    n_o = [n for n in gm_o.graph.nodes]
    n_t = [n for n in gm_t.graph.nodes]
    assert [[u.name for u in n.users] for n in n_o] == [[u.name for u in n.users] for n in n_t]
    assert [[a.name for a in n.all_input_nodes] for n in n_o] == [[a.name for a in n.all_input_nodes] for n in n_t]


def test_prepend_append_move_nodes_like_torch():
    def run(mod):
        g = mod.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(mod.relu, (x,))
        b = g.call_method("neg", (x,))
        g.output((a, b))
        a.prepend(b)
        b.append(a)  # (no change)
        x.append(b)
        return [n.name for n in g.nodes], str(g), g.python_code("self").src
    assert run(torchlike) == run(torch)


def test_erase_node_with_users_raises_like_torch():
    def fn(mod):
        g = mod.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(mod.relu, (x,)))
        g.erase_node(x)
    raises_like_torch(fn)


@pytest.mark.parametrize("body", ["iterate", "branch", "len"])
def test_proxy_control_flow_errors_like_torch(body):
    def fn(mod):
        def f(x):
            if body == "iterate":
                return [y for y in x]
            if body == "branch":
                return x if x.sum() > 0 else -x
            return len(x)
        mod.fx.symbolic_trace(f)
    e = raises_like_torch(fn)
    assert type(e).__name__ == {"iterate": "TraceError", "branch": "TraceError", "len": "RuntimeError"}[body]


def test_interpreter_and_transformer_match_torch():
    def passes(mod, gm, x):
        class Swap(mod.fx.Interpreter):
            def call_module(self, target, args, kwargs):
                out = super().call_module(target, args, kwargs)
                return out * 0.5 if target == "1" else out

        class ReluToGelu(mod.fx.Transformer):
            def call_module(self, target, args, kwargs):
                if target == "1":
                    return self.tracer.create_proxy("call_function", mod.nn.functional.gelu, args, kwargs)
                return super().call_module(target, args, kwargs)
        new = ReluToGelu(gm).transform()
        return mod.fx.Interpreter(gm).run(x), Swap(gm).run(x), new(x), new.code, str(new.graph)
    ours, theirs = twins(mlp)
    r_o = passes(torchlike, torchlike.fx.symbolic_trace(ours), torchlike.tensor(X))
    r_t = passes(torch, torch.fx.symbolic_trace(theirs), torch.tensor(X))
    for o, t in zip(r_o[:3], r_t[:3]):
        assert_same(o, t)
    assert r_o[3:] == tuple(torch_text(s) for s in r_t[3:])


def test_deepcopy_and_state_dict_like_torch():
    ours, theirs = twins(everything)
    gm_o = copy.deepcopy(torchlike.fx.symbolic_trace(ours))
    gm_t = copy.deepcopy(torch.fx.symbolic_trace(theirs))
    assert list(gm_o.state_dict()) == list(gm_t.state_dict())
    assert gm_o.code == gm_t.code and str(gm_o) == str(gm_t)
    compare_runs(gm_o, gm_t, X)
    assert gm_o.lin.weight is not ours.lin.weight


def test_feature_extractor_returns_an_intermediate_layer_like_torch():
    # torchvision's create_feature_extractor: trace, output the node of the requested layer, drop the rest
    def build(mod):
        class Net(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = mod.nn.Conv2d(1, 4, 3, padding=1)
                self.bn = mod.nn.BatchNorm2d(4)
                self.layer1 = mod.nn.Sequential(mod.nn.Conv2d(4, 4, 3, padding=1), mod.nn.ReLU())
                self.pool = mod.nn.AdaptiveAvgPool2d(1)
                self.fc = mod.nn.Linear(4, 2)

            def forward(self, x):
                x = mod.relu(self.bn(self.conv(x)))
                x = self.layer1(x) + x
                return self.fc(mod.flatten(self.pool(x), 1))
        return Net().eval()

    def extract(mod, model):
        gm = mod.fx.symbolic_trace(model)
        wanted = {"layer1.1": "feat", "fc": "logits"}
        outs = {wanted[n.target]: n for n in gm.graph.nodes if n.op == "call_module" and n.target in wanted}
        old = next(n for n in gm.graph.nodes if n.op == "output")
        with gm.graph.inserting_after(old):
            gm.graph.output(outs)
        gm.graph.erase_node(old)
        gm.graph.eliminate_dead_code()
        gm.recompile()
        gm.delete_all_unused_submodules()
        return gm
    ours, theirs = twins(build)
    gm_o, gm_t = extract(torchlike, ours), extract(torch, theirs)
    assert gm_o.code == gm_t.code
    assert list(gm_o.state_dict()) == list(gm_t.state_dict())
    img = np.random.default_rng(1).standard_normal((2, 1, 5, 5)).astype(np.float32)
    compare_runs(gm_o, gm_t, img)


def test_tracing_leaves_plain_tensor_ops_undispatched():
    # torchlike functions see Proxies through __torch_function__, switched on only for the trace: afterwards ops
    # on plain Tensors run their original bodies again (the per-op cost of the protocol is not kept)
    code = ("import torchlike, torchlike._torch_function as tf\n"
            "gm = torchlike.fx.symbolic_trace(lambda x: torchlike.relu(x) + torchlike.flatten(x, 1))\n"
            "key = next(k for k, f in tf._ORIGINALS.items() if f is torchlike.relu)\n"
            "print(tf.enabled(), torchlike.relu.__code__ is tf._IMPLS[key][0].__code__,\n"
            "      [n.target.__name__ for n in gm.graph.nodes if n.op == 'call_function'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split("\n")[0] == "False True ['relu', 'flatten', 'add']", out.stderr


def _rewrite(mod, build, pattern, replacement):
    gm = mod.fx.symbolic_trace(build(mod))
    matches = mod.fx.replace_pattern(gm, pattern(mod), replacement(mod))
    summary = [(type(m).__name__, m.anchor.name, sorted((k.name, v.name) for k, v in m.nodes_map.items()))
               for m in matches]
    return gm, summary


def test_replace_pattern_matches_torch():
    # the torch.fx docs' example: two occurrences of cat+sum, replaced by stack
    def build(mod):
        class M(mod.nn.Module):
            def forward(self, x, w1, w2):
                m1 = mod.cat([w1, w2]).sum()
                m2 = mod.cat([w1, w2]).sum()
                return x + mod.max(m1) + mod.max(m2)
        return M()

    def pattern(mod):
        return lambda w1, w2: mod.cat([w1, w2]).sum()

    def replacement(mod):
        return lambda w1, w2: mod.stack([w1, w2])
    gm_o, s_o = _rewrite(torchlike, build, pattern, replacement)
    gm_t, s_t = _rewrite(torch, build, pattern, replacement)
    assert s_o == s_t and len(s_o) == 2
    assert gm_o.code == gm_t.code and str(gm_o.graph) == str(gm_t.graph)
    compare_runs(gm_o, gm_t, X[:1], X[1:], X[:1] * 2)


def test_replace_pattern_skips_literal_mismatch_and_shared_intermediates_like_torch():
    def build(mod):
        def f(x):
            a = mod.relu(x) * 2
            b = mod.relu(x + 1) * 3
            c = mod.sigmoid(x)
            return a + b + (c * 2) + c
        return f

    def replacement(mod):
        return lambda y: mod.tanh(y)
    for pattern, found in ((lambda mod: lambda y: mod.relu(y) * 2, 1), (lambda mod: lambda y: mod.sigmoid(y) * 2, 0)):
        gm_o, s_o = _rewrite(torchlike, build, pattern, replacement)
        gm_t, s_t = _rewrite(torch, build, pattern, replacement)
        assert s_o == s_t and len(s_o) == found
        assert gm_o.code == gm_t.code
        compare_runs(gm_o, gm_t, X)


def test_shape_prop_records_tensor_metadata_like_torch():
    def run(mod, model, x):
        from_mod = __import__(f"{mod.__name__}.fx.passes.shape_prop", fromlist=["ShapeProp"])
        gm = mod.fx.symbolic_trace(model)
        from_mod.ShapeProp(gm).propagate(x)
        # (torch's node arguments are its immutable_list/immutable_dict; torchlike's plain lists/dicts)
        return [(n.name, repr(n.meta.get("tensor_meta")), n.meta["type"].__name__.replace("immutable_", ""))
                for n in gm.graph.nodes]
    ours, theirs = twins(everything)
    assert run(torchlike, ours, torchlike.tensor(X)) == run(torch, theirs, torch.tensor(X))


def test_proxies_on_a_bare_graph_record_torch_functions_like_torch():
    # e3nn's code generation: Proxies of a hand-built Graph, torch functions and arithmetic on them
    def build(mod):
        g = mod.fx.Graph()
        tracer = mod.fx.proxy.GraphAppendingTracer(g)
        x, w = mod.fx.Proxy(g.placeholder("x"), tracer), mod.fx.Proxy(g.placeholder("w"), tracer)
        y = mod.einsum("zi,ij->zj", x, w).reshape(-1) * 0.5
        z = mod.cat([y, mod.nn.functional.silu(y)], dim=0)
        g.output(z.node)
        return mod.fx.GraphModule(mod.nn.Module(), g, "Generated")
    gm_o, gm_t = build(torchlike), build(torch)
    assert gm_o.code == torch_text(gm_t.code) and str(gm_o.graph) == torch_text(str(gm_t.graph))
    compare_runs(gm_o, gm_t, X, X.T.copy())


def test_attention_block_with_dtypes_infinities_and_module_lists_matches_torch():
    def build(mod):
        class Attn(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = mod.nn.Linear(4, 12)
                self.blocks = mod.nn.ModuleList([mod.nn.LayerNorm(4), mod.nn.GELU()])

            def forward(self, x):
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
                s = s.masked_fill(mod.ones_like(s).tril() == 0, float("-inf")).softmax(dim=-1)
                h = (s @ v).to(mod.float64).to(dtype=mod.float32, device=x.device)
                for block in self.blocks:
                    h = block(h)
                return h + self.qkv.bias[:4], self.qkv.weight.T.shape
        return Attn()
    same_trace(build, X)


def test_torchvision_style_node_path_tracer_and_feature_extractor_like_torch():
    # torchvision.models.feature_extraction: a Tracer subclass that remembers which module each node came from
    # (overriding call_module and create_proxy), then a GraphModule returning the requested nodes
    def extractor(mod, model, return_nodes):
        class NodePathTracer(mod.fx.Tracer):
            def __init__(self):
                super().__init__()
                self.current = ""
                self.node_to_qualname = {}

            def call_module(self, m, forward, args, kwargs):
                old, self.current = self.current, self.path_of_module(m)
                try:
                    if not self.is_leaf_module(m, self.current):
                        return forward(*args, **kwargs)
                    return self.create_proxy("call_module", self.current, args, kwargs)
                finally:
                    self.current = old

            def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, *_):
                proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr,
                                             lambda node: mod.fx.Proxy(node, self))
                self.node_to_qualname[proxy.node] = self.current or kind
                return proxy
        tracer = NodePathTracer()
        graph = tracer.trace(model)
        names = [tracer.node_to_qualname.get(n, n.name) for n in graph.nodes]
        outputs = {}
        for n in graph.nodes:  # the last node of each requested module
            q = tracer.node_to_qualname.get(n)
            if q in return_nodes:
                outputs[return_nodes[q]] = n
        for n in reversed(graph.nodes):
            if n.op == "output":
                graph.erase_node(n)
        graph.output(outputs)
        gm = mod.fx.GraphModule(model, graph, "FeatureExtractor")
        gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
        return gm, names

    def build(mod):
        class Block(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = mod.nn.Conv2d(3, 3, 3, padding=1)

            def forward(self, x):
                return mod.relu(self.conv(x)) + x
        return mod.nn.Sequential(Block(), Block(), mod.nn.AdaptiveAvgPool2d(1), mod.nn.Flatten(),
                                 mod.nn.Linear(3, 2)).eval()
    ours, theirs = twins(build)
    wanted = {"0": "layer0", "1.conv": "conv1", "4": "head"}
    gm_o, names_o = extractor(torchlike, ours, wanted)
    gm_t, names_t = extractor(torch, theirs, wanted)
    assert names_o == names_t and gm_o.code == gm_t.code
    assert list(gm_o.state_dict()) == list(gm_t.state_dict())
    img = np.random.default_rng(2).standard_normal((2, 3, 4, 4)).astype(np.float32)
    compare_runs(gm_o, gm_t, img)


def test_symbolic_trace_under_the_runner_matches_torch():
    _, ours = lib_program_vs_torch("fx_trace_under_runner.py", "torch", timeout=300, rtol=1e-6)
    assert ours[-1] == "True True graph" and "fc = self.fc(x)" in " ".join(ours)


def test_graph_module_from_a_dict_root_and_node_editing_api_like_torch():
    def run(mod):
        g = mod.fx.Graph()
        x = g.placeholder("x", type_expr=mod.Tensor)
        w = g.get_attr("sub.w")
        lin = g.call_module("sub.lin", (x,))
        y = g.call_function(mod.add, (lin, w), {"alpha": 2})
        z = g.call_method("clamp", (y,), {"min": 0.0})
        g.output(z, type_expr=mod.Tensor)
        z.update_kwarg("min", -1.0)
        z.replace_input_with(y, lin)
        y.update_arg(1, x)
        lin_mod = mod.nn.Linear(3, 3)
        lin_mod.load_state_dict({"weight": mod.eye(3), "bias": mod.zeros(3)})
        gm = mod.fx.GraphModule({"sub.w": mod.ones(3), "sub.lin": lin_mod}, g, "Built")
        gm.graph.eliminate_dead_code()
        gm.recompile()
        found = [n.name for n in g.find_nodes(op="call_module")]
        out = gm(mod.tensor([[-2.0, 0.5, 3.0]]))
        return gm.code, str(g), found, list(gm.state_dict()), out.tolist(), repr(gm).split("\n")[0]
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize("build", [everything, functional, mlp])
def test_pickled_graph_module_reloads_like_torch(build):
    ours, theirs = twins(build)
    gm_o = pickle.loads(pickle.dumps(torchlike.fx.symbolic_trace(ours)))
    gm_t = pickle.loads(pickle.dumps(torch.fx.symbolic_trace(theirs)))
    assert gm_o.code == torch_text(gm_t.code) and str(gm_o) == torch_text(str(gm_t))
    assert list(gm_o.state_dict()) == list(gm_t.state_dict())
    compare_runs(gm_o, gm_t, X)


def test_resnet_style_block_with_loops_and_functionals_matches_torch():
    def build(mod):
        F = mod.nn.functional
        class Block(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = mod.nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
                self.bn1 = mod.nn.BatchNorm2d(4)
                self.down = mod.nn.Sequential(mod.nn.Conv2d(2, 4, 1, stride=2), mod.nn.BatchNorm2d(4))
                self.drop = mod.nn.Dropout(0.1)
            def forward(self, x):
                idt = self.down(x)
                out = F.relu(self.bn1(self.conv1(x)), inplace=False)
                out = self.drop(out) + idt
                up = F.interpolate(out, scale_factor=2.0, mode="nearest")
                parts = mod.chunk(up, 2, dim=1)
                cat = mod.cat((parts[0], parts[1]), dim=1).permute(0, 2, 3, 1).contiguous()
                flat = cat.view(cat.size(0), -1)
                for i in range(2):
                    flat = flat * (i + 1)
                z = flat.new_zeros(flat.shape)
                return F.dropout(flat, p=0.1, training=self.training) + z, getattr(self, "bn1").num_features
        return Block().eval()
    img = np.random.default_rng(3).standard_normal((2, 2, 6, 6)).astype(np.float32)
    same_trace(build, img)


def test_functionals_record_arguments_as_torch_does():
    # torch's Python functionals pass their leading arguments positionally and every other parameter (defaults
    # included) as a keyword; those torch implements in C record what they were given
    def build(mod):
        F = mod.nn.functional

        def f(x, t):
            a = F.softmax(x, 1) + F.layer_norm(x, (4,)) + F.normalize(x) + F.leaky_relu(x, 0.2)
            b = F.pad(x, (1, 1))[:, 1:-1] * F.gelu(x) + F.hardtanh(x, -0.5, max_val=0.5)
            return a + b, F.cross_entropy(x, t, reduction="sum"), F.mse_loss(x, x * 2)
        return f
    same_trace(build, X, np.array([1, 3]))


def test_star_args_and_kwargs_parameters_trace_like_torch():
    def build(mod):
        class M(mod.nn.Module):
            def forward(self, x, *args, **kw):
                return x + args[0] * args[1]
        return M()
    same_trace(build, X, X * 2, X * 3)

    def build_fn(mod):
        def g(*args):
            return args[0] + 1
        return g
    gm_o, gm_t = same_trace(build_fn, X, X)
    assert_same(torchlike.fx.Interpreter(gm_o).run(torchlike.tensor(X)), torch.fx.Interpreter(gm_t).run(torch.tensor(X)))


def test_functional_builtins_named_as_torch_names_them():
    """``F.gelu``, ``F.linear``, ``F.logsigmoid``... are torch._C._nn builtins in torch: fx names them, and its
    generated code calls them, as ``torch._C._nn.<name>`` (pytorch/examples' wrap_output_dynamically.py prints
    such code); every other functional keeps torch's name too (they read ``torch.nn.functional.gelu``)."""
    from torch.fx.node import _get_qualified_name

    from torchlike.fx.node import qualified_name
    skip = {"threshold"}  # torch's is ``_threshold`` (docs/differences.md)
    checked = 0
    for name in dir(torch.nn.functional):
        f = getattr(torch.nn.functional, name)
        if name.startswith("_") or name in skip or not callable(f) or isinstance(f, type) or \
                "torch_function" in name or not hasattr(torchlike.nn.functional, name):
            continue
        try:
            theirs = _get_qualified_name(f)
        except Exception:  # (typing helpers torch cannot name)
            continue
        assert qualified_name(getattr(torchlike.nn.functional, name)) == theirs, name
        checked += 1
    assert checked > 100
    assert torchlike._C._nn.gelu is torchlike.nn.functional.gelu
    assert torchlike._C._nn.log_sigmoid is torchlike.nn.functional.logsigmoid

    class M:
        def __init__(self, mod):
            self.mod = mod

        def build(self):
            mod = self.mod
            F = mod.nn.functional

            class Net(mod.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = mod.nn.Parameter(mod.randn(5, 4))

                def forward(self, x):
                    y = F.gelu(F.linear(x, self.w))
                    return F.softplus(F.logsigmoid(y)) + F.one_hot(y.argmax(-1), 5)
            return Net()

    same_trace(lambda mod: M(mod).build(), np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
