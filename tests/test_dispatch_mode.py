"""``torch.utils._python_dispatch.TorchDispatchMode``: the aten calls a mode sees, compared with torch's.

Each program runs under a logging mode in torch and in torchlike; the ``str(func)`` sequences must agree.  Where
torch shows calls torchlike's dispatcher never makes (views written in user code such as ``x.t()``, the
``aten.detach`` autograd makes of saved outputs) those are left out of torch's sequence before comparing
(docs/differences.md, "Dispatch modes").  Also: the mode stack (nesting, popping, ``_disable_current_modes``),
``func``'s attributes, results and gradients computed under a mode, and a mode that changes results.
"""
import copy

import numpy as np
import pytest

import torchlike
from torchlike import _profiler_state
from torchlike.utils import _python_dispatch as pd

torch = pytest.importorskip("torch")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402
from tests._dispatch_logging import log_mode as _log_mode  # noqa: E402


def _programs(tl):
    nn, F = tl.nn, tl.nn.functional
    tl.manual_seed(0)
    lin, lin_nb = nn.Linear(4, 3), nn.Linear(4, 3, bias=False)
    conv, convT = nn.Conv2d(2, 3, 3, padding=1), nn.ConvTranspose2d(2, 3, 3, stride=2)
    ln = nn.LayerNorm(4)
    mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x2, x3 = tl.randn(5, 4), tl.randn(2, 5, 4)
    img = tl.randn(1, 2, 6, 6)
    a, b = tl.randn(2, 3, 4), tl.randn(2, 4, 5)
    a4, b4 = tl.randn(2, 3, 4, 5), tl.randn(2, 3, 5, 6)
    y = tl.tensor([0, 1, 1, 0, 1])
    w42 = tl.ones(4, 2)
    return {
        "linear2d": lambda: lin(x2), "linear3d": lambda: lin(x3),
        "linear_nobias2d": lambda: lin_nb(x2), "linear_nobias3d": lambda: lin_nb(x3),
        "conv2d": lambda: conv(img), "conv_transpose2d": lambda: convT(img),
        "relu": lambda: F.relu(x2), "gelu": lambda: F.gelu(x2), "tanh_sigmoid": lambda: tl.sigmoid(x2.tanh()),
        "softmax": lambda: F.softmax(x2, dim=-1), "log_softmax": lambda: F.log_softmax(x2, dim=1),
        "layernorm": lambda: ln(x3),
        "mm": lambda: tl.mm(x2, x2.t()), "bmm": lambda: tl.bmm(a, b), "matmul4d": lambda: a4 @ b4,
        "matmul3d2d": lambda: x3 @ w42,
        "arith": lambda: (x2 * 2 + 1 - x2) / 3, "compare": lambda: (x2 > 0) & (x2 < x2.abs()),
        "pow": lambda: x2 ** 2, "where": lambda: tl.where(x2 > 0, x2, x2.exp()),
        "all_any": lambda: (x2.all(), (x2 > 0).any(1), x2.any((0, 1)))[1],
        "sum": lambda: x2.sum(), "sum_dim": lambda: x2.sum(1, keepdim=True), "mean_dim": lambda: x2.mean(dim=1),
        "mlp_cross_entropy": lambda: F.cross_entropy(mlp(x2), y),
    }


# ops torch's dispatcher runs that torchlike's does not reach it with (see the module docstring): none left
_NOT_DISPATCHED_HERE = set()
_USER_VIEWS = {"mm": ["aten.t.default"]}


def _sequences(tl, base):
    out = {}
    log = _log_mode(base)
    for name, run in _programs(tl).items():
        with log() as m:
            r = run()
        out[name] = (m.ops, r)
    return out


def test_op_sequences_match_torch():
    ours, theirs = _sequences(torchlike, pd.TorchDispatchMode), _sequences(torch, torch_pd.TorchDispatchMode)
    for name, (ops, r) in ours.items():
        expected = [op for op in theirs[name][0] if op not in _NOT_DISPATCHED_HERE]
        for view in _USER_VIEWS.get(name, []):
            expected.remove(view)
        assert ops == expected, (name, ops, theirs[name][0])
        np.testing.assert_allclose(np.asarray(r.tolist(), float), np.asarray(theirs[name][1].tolist(), float),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
    # the sequences the counting tools read, spelled out (from torch 2.13)
    assert ours["linear3d"][0] == ["aten.view.default", "aten.t.default", "aten.addmm.default", "aten.view.default"]
    assert ours["matmul4d"][0] == ["aten.expand.default", "aten.view.default", "aten.expand.default",
                                   "aten.view.default", "aten.bmm.default", "aten._unsafe_view.default"]
    assert ours["mlp_cross_entropy"][0][-3:] == ["aten._log_softmax.default", "aten.detach.default",
                                                 "aten.nll_loss_forward.default"]


def _arg_summary(args):
    return [tuple(a.shape) if hasattr(a, "shape") and not isinstance(a, (int, float)) else a for a in args]


def test_arguments_are_aten_schema_arguments():
    """Convolution's nine arguments, native_layer_norm's, _softmax's, sum.dim_IntList's: torch's values."""
    def seen(tl, base):
        calls = []

        class Args(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                calls.append((str(func), _arg_summary(args), dict(kwargs or {})))
                return func(*args, **(kwargs or {}))
        tl.manual_seed(0)
        conv, convT, ln = tl.nn.Conv2d(2, 3, 3, stride=2, padding=1), tl.nn.ConvTranspose2d(2, 4, 3, 2, 1, 1), \
            tl.nn.LayerNorm([4, 5])
        x = tl.randn(1, 2, 4, 5)
        with Args():
            conv(x), convT(x), ln(x), tl.softmax(x, 1), x.sum((1, 2), keepdim=True), tl.sub(x, x, alpha=2)
        return calls
    assert seen(torchlike, pd.TorchDispatchMode) == seen(torch, torch_pd.TorchDispatchMode)


def test_func_attributes_match_torch():
    def attrs(tl, base):
        got = []

        class Grab(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                got.append((str(func), repr(func), func.name(), func.__name__, str(func.overloadpacket),
                            func._overloadpacket is getattr(tl.ops.aten, func.__name__.split(".")[0]),
                            func is getattr(func.overloadpacket, func._overloadname),
                            copy.deepcopy({func: 1}) == {func: 1}, [t.__name__ for t in types]))
                return func(*args, **(kwargs or {}))
        b, x, w = tl.zeros(2), tl.ones(2, 3), tl.ones(3, 2)
        with Grab():
            tl.addmm(b, x, w) + 1
        return got
    assert attrs(torchlike, pd.TorchDispatchMode) == attrs(torch, torch_pd.TorchDispatchMode)


def test_mode_stack_nesting_and_popping():
    def trace(tl, m):
        log = []

        class Named(m.TorchDispatchMode):
            def __init__(self, tag):
                super().__init__()
                self.tag = tag

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                log.append((self.tag, str(func), [type(x).__name__ for x in m._get_current_dispatch_mode_stack()]))
                if self.tag == "inner" and func.__name__ == "relu.default":
                    tl.exp(args[0])   # runs under the outer mode only
                return func(*args, **(kwargs or {}))
        x = tl.ones(2)
        with Named("outer") as outer, Named("inner") as inner:
            log.append(("current", m._get_current_dispatch_mode() is inner, len(m._get_current_dispatch_mode_stack())))
            tl.relu(x)
            with m._pop_mode_temporarily() as popped:
                log.append(("popped", popped is inner, m._get_current_dispatch_mode() is outer))
                x.neg()
            with m._disable_current_modes() as old:
                log.append(("disabled", [o is inner or o is outer for o in old], m._get_current_dispatch_mode()))
                x.sin()
        log.append(("after", m._get_current_dispatch_mode(), outer is not inner))
        return log
    ours = trace(torchlike, pd)
    assert ours == trace(torch, torch_pd)
    assert not _profiler_state._COLLECTING   # no mode left: the dispatcher's fast path again


def test_results_and_gradients_under_a_mode():
    torchlike.manual_seed(0)
    model = torchlike.nn.Sequential(torchlike.nn.Linear(4, 6), torchlike.nn.GELU(), torchlike.nn.Linear(6, 2))
    x = torchlike.randn(3, 5, 4)
    plain = model(x).square().mean()
    plain.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with _log_mode(pd.TorchDispatchMode)() as m:
        loss = model(x).square().mean()
    loss.backward()
    assert loss.item() == pytest.approx(plain.item(), rel=1e-6)
    for p, g in zip(model.parameters(), grads):
        assert torchlike.allclose(p.grad, g, rtol=1e-5, atol=1e-7)
    assert m.ops.count("aten.addmm.default") == 2 and "aten.gelu.default" in m.ops


def test_a_mode_can_change_results():
    """What ``__torch_dispatch__`` returns is the op's result, as in torch."""
    def run(tl, base):
        class Negate(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                return -out if func.__name__ == "relu.default" else out
        lin = tl.nn.Linear(2, 2)
        with tl.no_grad():
            lin.weight.copy_(tl.tensor([[1.0, -2.0], [0.5, 0.25]]))
            lin.bias.fill_(0.5)
        with Negate():
            return tl.relu(lin(tl.tensor([[1.0, 2.0]]))).tolist()
    assert run(torchlike, pd.TorchDispatchMode) == run(torch, torch_pd.TorchDispatchMode)


def test_calling_an_overload_directly_runs_the_aten_op():
    assert torchlike.ops.aten.add.Tensor(torchlike.ones(2), torchlike.ones(2), alpha=3).tolist() == \
        torch.ops.aten.add.Tensor(torch.ones(2), torch.ones(2), alpha=3).tolist()
    assert str(torchlike.ops.aten._softmax.default) == "aten._softmax.default"
    assert torchlike.ops.aten.mm.default is torchlike.ops.aten.mm.default


def test_nested_modes_both_see_each_call():
    """The outer mode sees each call the inner one forwards with ``func(...)``, views of decompositions too."""
    def logs(tl, base):
        log = _log_mode(base)
        tl.manual_seed(0)
        lin, x = tl.nn.Linear(4, 3), tl.randn(2, 5, 4)
        with log() as outer, log() as inner:
            lin(x).softmax(-1)
        return outer.ops, inner.ops
    ours = logs(torchlike, pd.TorchDispatchMode)
    theirs = tuple([op for op in ops if op not in _NOT_DISPATCHED_HERE] for ops in logs(torch, torch_pd.TorchDispatchMode))
    assert ours == theirs
    assert ours[0] == ours[1] and len(ours[0]) == 6   # ..., _softmax, the detach of its saved result


def test_fused_fast_paths_are_one_call():
    """In eval mode without grad torch runs an encoder layer / self-attention as one fused aten op."""
    def calls(tl, base):
        got = []

        class Args(base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                got.append((str(func), _arg_summary(args)))
                return func(*args, **(kwargs or {}))
        tl.manual_seed(0)
        layer = tl.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True).eval()
        mha = tl.nn.MultiheadAttention(16, 2, batch_first=True).eval()
        x = tl.randn(1, 6, 16)
        with tl.no_grad(), Args():
            out = layer(x)
            mha(x, x, x), mha(x, x, x, need_weights=False)
        return got, out
    (ours, out), (theirs, ref) = calls(torchlike, pd.TorchDispatchMode), calls(torch, torch_pd.TorchDispatchMode)
    assert ours == theirs and len(ours) == 3
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


def test_ops_called_by_their_aten_name_run_under_a_mode():
    """torch.native_layer_norm (another torchlike kernel than nn.LayerNorm's) under a mode: torch's call, result."""
    def run(tl, base):
        log = _log_mode(base)
        x = tl.arange(12.0).reshape(3, 4)
        with log() as m:
            out = tl.native_layer_norm(x, [4], None, None, 1e-5)
        return m.ops, [t.tolist() for t in out]
    ours, theirs = run(torchlike, pd.TorchDispatchMode), run(torch, torch_pd.TorchDispatchMode)
    assert ours[0] == theirs[0] == ["aten.native_layer_norm.default"]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _backward_programs(tl):
    """Forward and backward under the mode: torch's engine shows the seed (ones_like), each node's formula at
    its granularity, the sums of gradients and AccumulateGrad's detach / new_empty_strided + copy_ / add_."""
    nn, F = tl.nn, tl.nn.functional
    tl.manual_seed(0)
    lin, mlp = nn.Linear(4, 3), nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    lin_nb, conv, ln = nn.Linear(4, 3, bias=False), nn.Conv2d(2, 3, 3, padding=1), nn.LayerNorm(4)
    emb = nn.Embedding(6, 4)
    x2, x3, t2 = tl.randn(5, 4), tl.randn(2, 5, 4), tl.randn(5, 3)
    img, y, ids = tl.randn(1, 2, 6, 6), tl.tensor([0, 1, 1, 0, 1]), tl.tensor([[0, 2, 5], [1, 2, 3]])
    a, w = tl.randn(3, 4, requires_grad=True), tl.randn(4, 5, requires_grad=True)
    a4, b4 = tl.randn(2, 3, 4, 5, requires_grad=True), tl.randn(2, 3, 5, 6, requires_grad=True)
    q, k, v = (tl.randn(1, 2, 3, 4, requires_grad=True) for _ in range(3))
    u, r = tl.randn(3, 4, requires_grad=True), tl.randn(4, requires_grad=True)

    def twice():
        lin(x2).sum().backward()
        lin(x2).sum().backward()
    return {
        "mm_sum": (lambda: (a @ w).sum().backward(), [a, w]),
        "linear_mse": (lambda: F.mse_loss(lin(x2), t2).backward(), list(lin.parameters())),
        "linear_twice": (twice, list(lin.parameters())),
        "mlp_cross_entropy": (lambda: F.cross_entropy(mlp(x2), y).backward(), list(mlp.parameters())),
        "linear3d_nobias": (lambda: lin_nb(x3).square().mean().backward(), [lin_nb.weight]),
        "conv_relu": (lambda: F.relu(conv(img)).mean().backward(), list(conv.parameters())),
        "layernorm_gelu": (lambda: F.gelu(ln(x3)).sum().backward(), list(ln.parameters())),
        "embedding_softmax": (lambda: F.log_softmax(emb(ids) @ w, -1).sum().backward(), [emb.weight, w]),
        "matmul4d": (lambda: (a4 @ b4).sum().backward(), [a4, b4]),
        "sdpa": (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward(), [q, k, v]),
        "arith_broadcast": (lambda: ((u * r + u / r).exp() - u.sqrt().abs() + r).mean(1).sum().backward(), [u, r]),
    }


def test_backward_op_sequences_match_torch():
    ours, theirs = _backward_programs(torchlike), _backward_programs(torch)
    log_ours, log_theirs = _log_mode(pd.TorchDispatchMode), _log_mode(torch_pd.TorchDispatchMode)
    for name, (run, leaves) in ours.items():
        with log_ours() as m:
            run()
        with log_theirs() as mt:
            theirs[name][0]()
        assert m.ops == mt.ops, (name, m.ops, mt.ops)
        for p, pt in zip(leaves, theirs[name][1]):   # the mode's results are the gradients
            np.testing.assert_allclose(p.grad.numpy(), pt.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    # spelled out (from torch 2.13): the weight's gradient of x @ w, then x's, then AccumulateGrad's detaches
    log = _log_mode(pd.TorchDispatchMode)
    x, w = torchlike.randn(3, 4, requires_grad=True), torchlike.randn(4, 5, requires_grad=True)
    with log() as m:
        (x @ w).sum().backward()
    assert m.ops == ["aten.mm.default", "aten.sum.default", "aten.ones_like.default", "aten.expand.default",
                     "aten.t.default", "aten.mm.default", "aten.t.default", "aten.mm.default",
                     "aten.detach.default", "aten.detach.default"]


def test_inplace_ops_are_their_inplace_overloads():
    def run(tl, base):
        log = _log_mode(base)
        x, y, m = tl.arange(6.0).reshape(2, 3), tl.ones(2, 3), tl.tensor([[True, False, True], [False, True, False]])
        with log() as mode:
            x.add_(y); x.mul_(2); x.add_(1); x.sub_(y, alpha=2); x.div_(2); x.div_(y, rounding_mode="floor")
            x.clamp_(0, 1); x.clamp_(min=y * 0); x.relu_(); x.exp_(); x.pow_(2); x.lerp_(y, 0.5)
            x.masked_fill_(m, 3.0); x.addcmul_(y, y, value=2); x.copy_(y); x.zero_(); x.fill_(3.0)
            tl.nn.functional.relu_(x)
        return mode.ops, x.tolist()
    ours, theirs = run(torchlike, pd.TorchDispatchMode), run(torch, torch_pd.TorchDispatchMode)
    assert ours == theirs
    assert ours[0][:3] == ["aten.add_.Tensor", "aten.mul_.Tensor", "aten.add_.Tensor"]


def test_flop_counter_counts_backward_like_torch():
    """FlopCounterMode's totals for forward + backward of Linear, Conv and attention models equal torch's."""
    def totals(tl):
        from importlib import import_module
        counter_cls = import_module(tl.__name__ + ".utils.flop_counter").FlopCounterMode
        tl.manual_seed(0)
        nn = tl.nn
        models = {
            "mlp": (nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)), tl.randn(8, 16)),
            "cnn": (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 4, 3)), tl.randn(2, 3, 8, 8)),
            "attention": (nn.TransformerEncoderLayer(16, 2, 32, batch_first=True, dropout=0.0), tl.randn(2, 5, 16)),
        }
        out = {}
        for name, (model, x) in models.items():
            with counter_cls(display=False) as c:
                model(x).sum().backward()
            out[name] = c.get_total_flops()
        return out
    assert totals(torchlike) == totals(torch)
