"""Eager autograd through torch.func.vjp and linearize, against torch: the output reaches the primals and the
parameters the function closes over; vjp_fn's cotangents are differentiable (an outer loss over them, as in
MAML); with nothing requiring grad the results stay plain."""
import numpy as np

import torchlike
from conftest import torch

W = np.array([1.0, 2.0, -0.5], np.float32)
X = np.array([3.0, 4.0, 0.25], np.float32)


def _grads(lib, x_grad, aux=False):
    w = lib.tensor(W, requires_grad=True)
    x = lib.tensor(X, requires_grad=x_grad)

    def f(x):
        y = (w * x).sin().sum() + (x ** 2).mean()
        return (y, (w * 2).detach()) if aux else y
    res = lib.func.vjp(f, x, has_aux=aux)
    out, fn = res[0], res[1]
    (g,) = fn(lib.tensor(1.5))
    loss = out * 2 + (g ** 2).sum()
    inputs = (w, x) if x_grad else (w,)
    got = lib.autograd.grad(loss, inputs)
    return [out.detach().numpy(), g.detach().numpy()] + [t.detach().numpy() for t in got] + (
        [res[2].detach().numpy()] if aux else [])


def test_vjp_output_and_cotangents_join_eager_autograd_like_torch():
    for x_grad in (False, True):
        for aux in (False, True):
            want = _grads(torch, x_grad, aux)
            got = _grads(torchlike, x_grad, aux)
            assert len(got) == len(want)
            for a, b in zip(got, want):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_vjp_grad_fn_and_plain_results_match_torch():
    for lib in (torch, torchlike):
        out, fn = lib.func.vjp(lambda x: x.sin(), lib.tensor(X))
        assert out.grad_fn is None and not fn(lib.ones(3))[0].requires_grad
        with lib.no_grad():
            w = lib.tensor(W, requires_grad=True)
            out, fn = lib.func.vjp(lambda x: w * x, lib.tensor(X))
        assert not out.requires_grad


def test_vjp_cotangent_checks_still_raise_like_torch():
    errs = []
    for lib in (torch, torchlike):
        w = lib.tensor(W, requires_grad=True)
        _, fn = lib.func.vjp(lambda x: w * x, lib.tensor(X))
        try:
            fn(lib.ones(2))
        except RuntimeError as e:
            errs.append(str(e))
    assert len(errs) == 2 and errs[1] == errs[0]


def test_linearize_output_reaches_closed_over_parameters_like_torch():
    got = []
    for lib in (torch, torchlike):
        w = lib.tensor(W, requires_grad=True)
        out, jvp_fn = lib.func.linearize(lambda x: (w * x).sin().sum(), lib.tensor(X))
        j = jvp_fn(lib.tensor([1.0, 0.0, 0.0]))
        (gw,) = lib.autograd.grad(out * 3, (w,))
        got.append((out.detach().numpy(), j.detach().numpy(), gw.detach().numpy(), out.requires_grad))
    for a, b in zip(got[1], got[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
