"""A compiled call's backward (one ``jax.vjp`` of the traced program) stops where torch's autograd graph
stops: ``detach()``, ``.data``, ``detach_()``, ``no_grad`` blocks and the random ops whose gradient torch
defines as zero (``normal``, ``bernoulli``, ``poisson``).  Also: those random ops and ``multinomial`` trace
into one graph (they used to break with a TracerArrayConversionError on their argument checks).
Expected gradients come from real torch (eager; torch.compile gives the same)."""
import numpy as np
import pytest
import torch as real

import torchlike as torch


def _detach(t, m):
    return (m.detach().exp() * m).sum()


def _data(t, m):
    return (m.data * m).sum()


def _detach_inplace(t, m):
    return (m.clone().detach_() * m).sum()


def _no_grad(t, m):
    with t.no_grad():
        y = m * 2
    return (y * m).sum()


def _inference_mode(t, m):
    with t.inference_mode():
        y = m.sin()
    return (y.clone() * m).sum()


def _nondiff_op(t, m):
    return (m.argmax().to(m.dtype) * m).sum()


@pytest.mark.parametrize("fn", [_detach, _data, _detach_inplace, _no_grad, _inference_mode, _nondiff_op])
def test_compiled_backward_stops_where_torchs_graph_stops(fn):
    x = np.array([0.5, -1.0, 2.0], np.float32)
    ref = real.tensor(x, requires_grad=True)
    fn(real, ref).backward()
    m = torch.tensor(x, requires_grad=True)
    out = torch.compile(lambda v: fn(torch, v), fullgraph=True)(m)
    out.backward()
    np.testing.assert_allclose(m.grad.numpy(), ref.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out.item(), fn(real, ref).item(), rtol=1e-6)


@pytest.mark.parametrize("name", ["normal", "bernoulli", "poisson"])
def test_compiled_random_ops_have_torchs_zero_gradient(name):
    def f(t, m, s):
        if name == "normal":
            return t.normal(m, s)
        return t.bernoulli(m.sigmoid()) if name == "bernoulli" else t.poisson(m.exp())
    x = np.array([0.1, 0.2, 0.3], np.float32)
    ref_m, ref_s = real.tensor(x, requires_grad=True), real.ones(3, requires_grad=True)
    f(real, ref_m, ref_s).sum().backward()
    m, s = torch.tensor(x, requires_grad=True), torch.ones(3, requires_grad=True)
    r = torch.compile(lambda a, b: f(torch, a, b), fullgraph=True)(m, s)
    assert r.requires_grad
    r.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), ref_m.grad.numpy())  # zeros


def test_random_ops_with_tensor_arguments_trace_into_one_graph():
    torch.manual_seed(0)
    p = torch.tensor([[0.0, 0.2, 0.3, 0.5], [1.0, 1.0, 0.0, 1.0]])
    f = torch.compile(lambda q: torch.multinomial(q, 3), fullgraph=True)
    for _ in range(20):
        o = f(p)
        assert o.dtype == torch.int64 and tuple(o.shape) == (2, 3)
        assert 0 not in o[0].tolist() and 2 not in o[1].tolist()  # zero-probability categories never drawn
        assert all(len(set(r)) == 3 for r in o.tolist())  # without replacement
    g = torch.compile(lambda q: torch.multinomial(q, 4000, True), fullgraph=True)
    freq = torch.bincount(g(p[0]), minlength=4).float() / 4000
    np.testing.assert_allclose(freq.numpy(), [0, 0.2, 0.3, 0.5], atol=0.04)
    b = torch.compile(lambda q: torch.bernoulli(q), fullgraph=True)(torch.tensor([0.0, 1.0, 1.0]))
    assert b.tolist() == [0.0, 1.0, 1.0]
    n = torch.compile(lambda a, s: torch.normal(a, s), fullgraph=True)(torch.full((3,), 5.0), torch.zeros(3))
    assert n.tolist() == [5.0, 5.0, 5.0]
    z = torch.compile(lambda r: torch.poisson(r), fullgraph=True)(torch.zeros(4))
    assert z.tolist() == [0.0] * 4 and z.dtype == torch.float32


def test_eager_random_ops_keep_torchs_argument_checks():
    for fn, tfn in [(lambda t: t.normal(t.zeros(2), -t.ones(2)), "normal expects all elements of std >= 0.0"),
                    (lambda t: t.bernoulli(t.full((2,), 1.5)), "Expected p_in >= 0 && p_in <= 1"),
                    (lambda t: t.multinomial(t.tensor([-0.2, 0.3]), 1), "probability tensor contains"),
                    (lambda t: t.poisson(-t.ones(2)), "invalid Poisson rate")]:
        with pytest.raises(RuntimeError, match=tfn[:20]):
            fn(real)
        with pytest.raises(RuntimeError, match=tfn[:20]):
            fn(torch)


def _function(t):
    class STE(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class Clip(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g.clamp(-0.1, 0.1)

    return lambda x: (STE.apply(x) * 2).sum() + (Clip.apply(x) * x).sum()


def _hook(t):
    def f(x):
        y = x * 2
        y.register_hook(lambda g: g * 10)
        return y.sum()
    return f


@pytest.mark.parametrize("make", [_function, _hook])
def test_custom_backward_and_hooks_are_not_replaced_by_jax_gradients(make):
    # an autograd.Function's own backward (a custom_vjp in the program, tests/test_compile_autograd_function.py)
    # / a tensor hook (the compiled call runs eagerly when its output's gradient is taken later: a JAX gradient
    # of the traced program would skip it): torch's gradients
    x = np.array([0.4, 1.6, -2.2], np.float32)
    ref = real.tensor(x, requires_grad=True)
    make(real)(ref).backward()
    m = torch.tensor(x, requires_grad=True)
    if make is _hook:
        with pytest.warns(UserWarning, match="running .* eagerly"):
            out = torch.compile(make(torch))(m)
    else:
        out = torch.compile(make(torch), fullgraph=True)(m)
    out.backward()
    np.testing.assert_allclose(m.grad.numpy(), ref.grad.numpy(), rtol=1e-6)


def test_custom_function_in_a_compiled_training_step_stays_compiled():
    # the step runs backward itself: the trace's own tape runs the Function's backward (no break)
    f = _function(torch)
    m = torch.tensor([0.4, 1.6, -2.2], requires_grad=True)

    def step(p):
        p.grad = None
        f(p).backward()
        return p.grad * 1

    c = torch.compile(step, fullgraph=True)
    np.testing.assert_allclose(c(m).numpy(), [6.5, 7.7, 3.7], rtol=1e-6)


@pytest.mark.parametrize("transform", ["jvp", "grad"])
def test_func_transforms_under_an_outer_no_grad_still_differentiate(transform):
    # torch.func's jvp/grad ignore an enclosing no_grad (parameters that require grad included); only the
    # compiled program's own backward stops at no_grad blocks
    x0, v0, w0 = (np.array(a, np.float32) for a in ([0.1, 0.2, 0.3], [1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))

    def run(t):
        w = t.tensor(w0, requires_grad=True)
        f = lambda x: (x * w).sin()  # noqa: E731
        x, v = t.tensor(x0), t.tensor(v0)
        with t.no_grad():
            if transform == "jvp":
                return t.func.jvp(f, (x,), (v,))[1]
            return t.func.grad(lambda x: f(x).sum())(x)

    np.testing.assert_allclose(run(torch).detach().numpy(), run(real).detach().numpy(), rtol=1e-6)
