"""Correctness of the tiny training step's fast paths (issue 10; not timed): the reused array of ones an implicit
``backward()`` starts from, the optimizer's hyperparameters read once per step, a leaf's AccumulateGrad metadata
read when asked and the saved-version check inlined -- each compared with real torch."""
import numpy as np
import pytest
import torch

import torchlike

rng = np.random.default_rng(3)
W = rng.standard_normal((4, 3)).astype(np.float32)
X = rng.standard_normal((5, 3)).astype(np.float32)


def _grads_over_backwards(m, hook_kind):
    """Two backward() calls of scalar losses of one shape, the loss's gradient seen or changed in between."""
    w = m.tensor(W, requires_grad=True)
    x = m.tensor(X)
    seen = []
    for k in range(3):
        loss = (x @ w.t()).relu().sum() * (k + 1)
        if hook_kind == "inplace":  # a hook that writes the incoming gradient in place
            loss.register_hook(lambda g: g.mul_(3))
        elif hook_kind == "retain":  # the loss's own .grad, then written in place by the user
            loss.retain_grad()
        loss.backward()
        if hook_kind == "retain":
            seen.append(loss.grad.clone().numpy())
            loss.grad.add_(5)
        seen.append(w.grad.clone().numpy())
        w.grad = None
    return seen


@pytest.mark.parametrize("hook_kind", ["none", "inplace", "retain"])
def test_implicit_seed_is_ones_every_backward(hook_kind):
    ours = _grads_over_backwards(torchlike, hook_kind)
    theirs = _grads_over_backwards(torch, hook_kind)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_implicit_seed_dtypes_and_0d_leaf(dtype):
    for m in (torchlike, torch):
        a = m.tensor(2.0, dtype=getattr(m, dtype), requires_grad=True)
        a.backward()
        a.backward()  # a leaf's own .grad starts from the seed: accumulated, the seed itself untouched
        a.grad.mul_(10)
        b = m.tensor(1.0, dtype=getattr(m, dtype), requires_grad=True)
        b.backward()
        if m is torchlike:
            ours = (a.grad.item(), b.grad.item(), str(a.grad.dtype))
        else:
            assert ours == (a.grad.item(), b.grad.item(), str(a.grad.dtype))


def _train(m, opt_name):
    m.manual_seed(0)
    lin = m.nn.Linear(3, 4)
    with m.no_grad():
        lin.weight.copy_(m.tensor(W))
        lin.bias.zero_()
    opt = (m.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01) if opt_name == "sgd" else
           m.optim.Adam(lin.parameters(), lr=0.01, weight_decay=0.01))
    x = m.tensor(X)
    out = []
    for k, lr in enumerate((0.1, 0.05, 0.2)):
        opt.param_groups[0]["lr"] = lr  # a change between steps takes effect on the next step
        if k == 2:
            opt.param_groups[0]["weight_decay"] = 0.0
        opt.zero_grad()
        lin(x).square().mean().backward()
        opt.step()
        out.append(lin.weight.detach().clone().numpy())
    return out


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
def test_optimizer_hyperparameters_read_each_step(opt_name):
    for a, b in zip(_train(torchlike, opt_name), _train(torch, opt_name)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_leaf_accumulate_node_and_saved_version_check():
    for m in (torchlike, torch):
        w = m.tensor(W, requires_grad=True)
        y = w * w
        acc = y.grad_fn.next_functions[0][0]
        names = (type(y.grad_fn).__name__, acc.name(), acc.variable is w)
        z = w.exp()
        with m.no_grad():
            w.mul_(1)  # a leaf's in-place write under no_grad moves its version: exp's saved result is fine,
        y2 = (w * 2).exp()  # (a fresh graph)
        y2.sum().backward()
        z.sum().backward()
        v = m.tensor(W, requires_grad=True) * 1
        e = v.exp()
        v2 = v.sin()
        v.add_(1)  # sin saved v: its backward must raise torch's error
        try:
            v2.sum().backward()
            msg = None
        except RuntimeError as err:
            msg = str(err)
        e.sum().backward()  # exp saved its output, untouched
        if m is torchlike:
            ours = (names, msg, w.grad.numpy().copy())
        else:
            assert ours[0] == names
            assert ours[1] == msg and msg is not None
            np.testing.assert_allclose(ours[2], w.grad.numpy(), rtol=1e-6)


def test_node_metadata_dict_is_kept():
    out = []
    for m in (torchlike, torch):
        w = m.tensor(W, requires_grad=True)
        y = (w * 2).sum()
        md = y.grad_fn.metadata
        md["k"] = 1
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
        acc.metadata["a"] = 2
        out.append((type(md).__name__, y.grad_fn.metadata is md, dict(y.grad_fn.metadata), dict(acc.metadata),
                    type(acc).__name__))
    assert out[0] == out[1]
