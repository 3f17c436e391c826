"""torch.autograd.forward_ad (dual tensors) against torch: tangents of ops, views, in-place writes, modules and
functional_call, the level's rules and messages, printing."""
import pytest
import torch
import torch.autograd.forward_ad as tfw

import torchlike
import torchlike.autograd.forward_ad as lfw
from conftest import assert_same, raises_like_torch

EXPRS = [
    "d ** 2 + y", "d * y - d / 3", "(-d).abs()", "d.exp().log1p()", "d.sin() * d.cos()", "d.sum(1)", "d.mean()",
    "d.max(1).values", "d.sort(1).values", "d.cumsum(0)", "d.norm()", "d[1:3, ::2]", "d[0]", "d.t()", "d.reshape(20)",
    "d[:, :1].expand(4, 3)", "d.unbind(0)[1]", "d.chunk(2, 1)[1]", "d[lib.tensor([0, 2])]", "d[d > 0]",
    "lib.cat([d, y], 0)", "lib.stack([d, y])", "d @ y.t()", "lib.where(y > 0, d, d * 2)", "d.clamp(-0.5, 0.5)",
    "lib.nn.functional.softmax(d, -1)", "lib.nn.functional.log_softmax(d, 1)", "lib.nn.functional.gelu(d)",
    "lib.nn.functional.layer_norm(d, (5,))", "lib.nn.functional.conv1d(d.unsqueeze(0), lib.ones(2, 4, 3))",
    "d.clone().mul_(2)", "d.double()", "lib.sigmoid(d) * lib.tanh(d)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_tangents_of_ops_match_torch(expr):
    def run(lib, fw):
        lib.manual_seed(0)
        x, t, y = lib.randn(4, 5), lib.randn(4, 5), lib.randn(4, 5)
        with fw.dual_level():
            d = fw.make_dual(x, t)
            out = eval(expr, {"lib": lib, "d": d, "y": y})
            p, tangent = fw.unpack_dual(out)
            return p, tangent
    (p_l, t_l), (p_t, t_t) = run(torchlike, lfw), run(torch, tfw)
    assert_same(p_l, p_t)
    assert t_t is not None and t_l is not None
    assert_same(t_l, t_t, rtol=1e-5, atol=1e-5)


def test_modules_functional_call_and_writes_match_torch():
    def run(lib, fw):
        lib.manual_seed(1)
        model = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.GELU(), lib.nn.LayerNorm(8), lib.nn.Linear(8, 3))
        x, tx = lib.randn(4, 5), lib.randn(4, 5)
        lin = lib.nn.Linear(3, 2)
        tangents = {n: lib.ones_like(p) * 0.5 for n, p in lin.named_parameters()}
        with fw.dual_level():
            out = model(fw.make_dual(x, tx))
            params = {n: fw.make_dual(p, tangents[n]) for n, p in lin.named_parameters()}
            out2 = lib.func.functional_call(lin, params, lib.ones(1, 3))
            d = fw.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 0.5, 0.25]))
            y = lib.zeros(3)
            y[1] = d[2]  # a write through a view gives the base the tangent
            z = lib.zeros(2, 3)
            z[0].copy_(d * 2)
            return [fw.unpack_dual(v).tangent.detach() for v in (out, out2, y, z)]
    for a, b in zip(run(torchlike, lfw), run(torch, tfw)):
        assert_same(a, b, rtol=1e-5, atol=1e-5)


def test_level_rules_identity_and_printing_like_torch():
    def run(lib, fw):
        x, t = lib.ones(2), lib.ones(2) * 3
        seen = []
        with fw.dual_level() as level:
            d = fw.make_dual(x, t)
            seen += [level, fw.unpack_dual(d).tangent is t, repr(d), d.requires_grad, fw.unpack_dual(x).tangent,
                     repr(fw.unpack_dual(d * 2)), type(fw.unpack_dual(d)).__name__]
        seen += [fw.unpack_dual(d).tangent, repr(d)]
        return seen
    ours, theirs = run(torchlike, lfw), run(torch, tfw)
    assert ours == [s.replace("torch.", "torchlike.") if isinstance(s, str) else s for s in theirs]


@pytest.mark.parametrize("case", ["no_level", "size", "int_primal", "nested"])
def test_errors_like_torch(case):
    def run(lib, fw):
        if case == "no_level":
            return fw.make_dual(lib.ones(2), lib.ones(2))
        with fw.dual_level():
            if case == "size":
                return fw.make_dual(lib.ones(2), lib.ones(3))
            if case == "int_primal":
                return fw.make_dual(lib.ones(2, dtype=lib.int64), lib.ones(2))
            with fw.dual_level():
                return None
    raises_like_torch(lambda lib: run(lib, lfw if lib is torchlike else tfw))
