"""The backward pass under a ``TorchDispatchMode`` for the common modules and functional ops, compared with torch.

Each program runs forward and backward under a logging mode in torch and in torchlike: the sequences of aten calls
(``str(func)``) must be equal, and for the backward kernels (``native_batch_norm_backward``,
``max_pool2d_with_indices_backward``, ``index_put``, ...) also their arguments (tensors by shape and dtype).
torch's calls that torchlike shows to no mode (views written in user code, factories: docs/differences.md,
"Dispatch modes") are listed per program and left out of torch's sequence.  The gradients must equal torch's.
"""
import numpy as np
import pytest

import torchlike
from torchlike.utils import _python_dispatch as pd

torch = pytest.importorskip("torch")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402
from tests._dispatch_logging import log_mode as _log_mode  # noqa: E402


def _programs(tl):
    """name -> (run, leaves whose gradients are compared, torch calls torchlike does not show)."""
    nn, F = tl.nn, tl.nn.functional
    tl.manual_seed(0)
    x2 = tl.randn(5, 4, requires_grad=True)
    img = tl.randn(2, 3, 8, 8, requires_grad=True)
    t = tl.tensor([0, 1, 2, 1, 0])
    ids, idx = tl.tensor([[1, 2, 3], [4, 5, 1]]), tl.tensor([0, 2, 2])
    gi, gi2 = tl.tensor([[0, 1, 2, 3]] * 5), tl.tensor([[2, 0]] * 5)
    half = tl.full((5, 4), 0.5)
    target = tl.full((5, 4), 1.0)
    bn, bn1, gn, inorm = nn.BatchNorm2d(3), nn.BatchNorm1d(4), nn.GroupNorm(1, 3), nn.InstanceNorm2d(3)
    bn_eval = nn.BatchNorm2d(3).eval()
    emb = nn.Embedding(10, 4)
    P = {}

    def add(name, fn, leaves, hidden=()):
        P[name] = (lambda: fn().sum().backward(), leaves, list(hidden))
    add("batchnorm2d", lambda: bn(img), [img, bn.weight, bn.bias])
    add("batchnorm1d", lambda: bn1(x2), [x2, bn1.weight, bn1.bias])
    add("batchnorm2d_eval", lambda: bn_eval(img), [img, bn_eval.weight, bn_eval.bias])
    add("groupnorm", lambda: gn(img), [img, gn.weight, gn.bias])
    add("instancenorm", lambda: inorm(img), [img])
    add("maxpool2d", lambda: F.max_pool2d(img, 2, 2), [img])
    add("maxpool2d_module", lambda: nn.MaxPool2d(2)(img), [img])
    add("maxpool2d_ceil_pad", lambda: F.max_pool2d(img, 3, 2, 1, ceil_mode=True), [img])
    add("avgpool2d", lambda: F.avg_pool2d(img, 3, 2, 1), [img])
    add("adaptive_avg", lambda: F.adaptive_avg_pool2d(img, (3, 3)), [img])
    add("adaptive_avg_1x1", lambda: F.adaptive_avg_pool2d(img, 1), [img])
    add("adaptive_max", lambda: F.adaptive_max_pool2d(img, (3, 3)), [img])
    add("upsample_nearest", lambda: F.interpolate(img, scale_factor=2), [img])
    add("upsample_bilinear", lambda: F.interpolate(img, scale_factor=2, mode="bilinear"), [img])
    add("embedding", lambda: emb(ids), [emb.weight])
    target_g = tl.full((5, 4), 0.5, requires_grad=True)
    P["l1"] = (lambda: (F.l1_loss(x2, target_g) + F.l1_loss(x2, target_g, reduction="sum")
                        + F.l1_loss(x2, target, reduction="none").sum()).backward(), [x2, target_g], [])
    P["smooth_l1"] = (lambda: F.smooth_l1_loss(x2, target).backward(), [x2], [])
    P["huber"] = (lambda: F.huber_loss(x2, target, delta=0.5).backward(), [x2], [])
    P["bce"] = (lambda: F.binary_cross_entropy(tl.sigmoid(x2), half).backward(), [x2], [])
    P["cross_entropy"] = (lambda: F.cross_entropy(x2, t).backward(), [x2], [])
    add("leaky_relu_elu", lambda: F.elu(F.leaky_relu(x2, 0.2)), [x2])
    add("softplus_hardtanh", lambda: F.hardtanh(F.softplus(x2), -0.5, 0.5), [x2])
    add("hardswish_mish", lambda: F.mish(F.hardswish(x2)) + F.hardsigmoid(x2), [x2])
    add("sin_cos", lambda: x2.sin() * x2.cos(), [x2])
    add("index", lambda: x2[idx], [x2])
    add("index_select", lambda: x2.index_select(0, idx), [x2])
    add("gather", lambda: x2.gather(1, gi), [x2])
    add("scatter_value", lambda: x2.scatter(1, gi2, 1.0), [x2])
    add("scatter_add", lambda: (x2 * 2).scatter_add(1, gi, x2), [x2])
    add("select", lambda: x2[1], [x2], ["aten.select.int"])
    add("slice", lambda: x2[1:3, ::2], [x2], ["aten.slice.Tensor"] * 2)
    add("stack_cat", lambda: tl.cat([tl.stack([x2, x2 * 2], 0), x2[None]]), [x2],
        ["aten.unsqueeze.default", "aten.squeeze.dim"])
    add("pad", lambda: F.pad(x2, (1, 2)), [x2])
    add("masked_fill_where", lambda: tl.where(x2 > 0, x2.masked_fill(x2 < -1, 0.0), x2 * 2), [x2])
    add("max_dim", lambda: x2.max(1)[0] + x2.min(0, keepdim=True)[0].sum(), [x2])
    vals, cols = tl.randn(3, 4, requires_grad=True), tl.tensor([0, 3])

    def put():
        y = x2 * 1
        y[idx] = vals
        y[:, cols] = 0.5
        return y
    add("index_put", put, [x2, vals], ["aten.lift_fresh.default"])
    add("clamp", lambda: x2.clamp(-0.5, 0.5) + x2.clamp(min=0.1) + x2.clamp(max=0.2), [x2])
    add("rsqrt_var", lambda: (x2.abs() + 1).rsqrt() * x2.var(1, keepdim=True) + x2.var(0, correction=0), [x2])
    add("norm_max_min", lambda: x2.norm() * x2.max() + x2.min(), [x2])
    add("cnn", lambda: F.adaptive_avg_pool2d(F.max_pool2d(F.relu(bn(img)), 2, 2), 1).flatten(1), [img],
        ["aten.view.default"])
    return P


def _run(tl, base, with_args):
    out = {}
    for name, (run, leaves, hidden) in _programs(tl).items():
        with _log_mode(base, with_args)() as m:
            run()
        out[name] = (m.ops, [p.grad.numpy().copy() for p in leaves], hidden)
    return out


def test_backward_sequences_match_torch():
    ours, theirs = _run(torchlike, pd.TorchDispatchMode, False), _run(torch, torch_pd.TorchDispatchMode, False)
    for name, (ops, grads, hidden) in ours.items():
        expected = list(theirs[name][0])
        for h in hidden:
            expected.remove(h)
        assert ops == expected, (name, ops, theirs[name][0])
        for g, gt in zip(grads, theirs[name][1]):   # the mode's results are the gradients
            np.testing.assert_allclose(g, gt, rtol=1e-4, atol=1e-5, err_msg=name)


_BACKWARD_KERNELS = ("_backward", "aten.new_zeros", "aten.index_put", "aten.index_add", "aten.scatter_add",
                     "aten.scatter.", "aten.gather", "aten.select.int", "aten.constant_pad_nd", "aten.masked_fill",
                     "aten.where", "aten.scalar_tensor", "aten.empty", "aten.native_group_norm",
                     "aten.native_batch_norm", "aten._adaptive", "aten.max_pool", "aten.index.Tensor",
                     "aten.mean.dim", "aten.avg_pool", "aten.upsample", "aten.adaptive")


def test_backward_kernel_arguments_match_torch():
    """Each backward kernel's (and new forward name's) arguments: tensors' shapes and dtypes, Python values."""
    ours, theirs = _run(torchlike, pd.TorchDispatchMode, True), _run(torch, torch_pd.TorchDispatchMode, True)
    compared = 0
    for name, (ops, _, _) in ours.items():
        mine = [c for c in ops if c[0].startswith(_BACKWARD_KERNELS) or "_backward" in c[0]]
        want = list(theirs[name][0])
        for h in theirs[name][2]:   # torch's calls torchlike does not show
            want.remove(next(c for c in want if c[0] == h))
        want = [c for c in want if c[0].startswith(_BACKWARD_KERNELS) or "_backward" in c[0]]
        assert mine == want, (name, mine, want)
        compared += len(mine)
    assert compared > 40


def _create_graph_programs(tl):
    tl.manual_seed(0)
    nn = tl.nn
    lin, conv, bn = nn.Linear(4, 3), nn.Conv2d(2, 3, 3), nn.BatchNorm1d(3)
    x, img = tl.randn(5, 4, requires_grad=True), tl.randn(1, 2, 5, 5, requires_grad=True)
    params = list(lin.parameters())
    return {"tanh_linear": (lambda: tl.tanh(lin(x)).sum(), [x], params),
            "exp_mul": (lambda: (x.exp() * x).sum(), [x], []),
            "linear_batchnorm": (lambda: (bn(lin(x)).relu() ** 2).mean(), [x], params),
            "conv_sigmoid": (lambda: tl.sigmoid(conv(img)).sum(), [img], list(conv.parameters())),
            "attention_like": (lambda: (tl.softmax(x @ x.t(), -1) @ x).sum(), [x], [])}


def _create_graph_run(tl, base):
    out = {}
    for name, (f, inputs, params) in _create_graph_programs(tl).items():
        y = f()
        with _log_mode(base)() as m:
            grads = tl.autograd.grad(y, inputs, create_graph=True)
        second = tl.autograd.grad(sum((g ** 2).sum() for g in grads), inputs + params, allow_unused=True)
        out[name] = (m.ops, [None if g is None else g.detach().numpy() for g in grads + second])
    return out


def test_create_graph_backward_under_a_mode_matches_torch():
    """``autograd.grad(..., create_graph=True)`` under a mode: torch's calls (the formulas are recorded), and the
    second-order gradients through them equal torch's."""
    ours, theirs = _create_graph_run(torchlike, pd.TorchDispatchMode), _create_graph_run(torch, torch_pd.TorchDispatchMode)
    for name, (ops, grads) in ours.items():
        assert ops == theirs[name][0], (name, ops, theirs[name][0])
        for g, gt in zip(grads, theirs[name][1]):
            assert (g is None) == (gt is None), name
            if g is not None:
                np.testing.assert_allclose(g, gt, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")   # torch's reference-cycle warning
def test_backward_create_graph_under_a_mode_matches_torch():
    """``loss.backward(create_graph=True)`` under a mode: the same calls as torch's, ``.grad`` differentiable."""
    def run(tl, base):
        tl.manual_seed(0)
        lin = tl.nn.Linear(4, 3)
        x = tl.randn(5, 4, requires_grad=True)
        with _log_mode(base)() as m:
            tl.tanh(lin(x)).sum().backward(create_graph=True)
        lin.weight.grad.pow(2).sum().backward()
        return m.ops, x.grad.detach().numpy(), lin.weight.grad.detach().numpy()
    ours, theirs = run(torchlike, pd.TorchDispatchMode), run(torch, torch_pd.TorchDispatchMode)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
