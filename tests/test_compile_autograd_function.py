"""A user's ``autograd.Function`` inside ``torchlike.compile``: one ``jax.custom_vjp`` call in the program, so a
compiled module (``model = torch.compile(model)``) that applies one keeps one graph and its gradients are the
Function's ``backward``'s, as under torch.compile.  Expected values and gradients come from real torch (eager)."""
import warnings

import numpy as np
import pytest
import torch as real

import torchlike


def _ste(t):
    class STE(t.autograd.Function):  # ctx-taking forward, a non-tensor argument, tensors saved and set on ctx
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            ctx.mask = x.abs() < 1
            return t.round(x * scale) / scale

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.mask * 3.0 + x * 0.01 * ctx.scale, None
    return lambda x: STE.apply(x, 2.0)


def _exp_saved_output(t):
    class Exp(t.autograd.Function):  # setup_context style, saves its output
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y * 0.5
    return lambda x: Exp.apply(x)


def _two_outputs_nondiff(t):
    class SortLike(t.autograd.Function):  # two outputs, one marked non-differentiable, an integer output
        @staticmethod
        def forward(ctx, x):
            y, idx = x.sort(dim=-1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            ctx.shape = x.shape
            return y, idx

        @staticmethod
        def backward(ctx, gy, gidx):
            (idx,) = ctx.saved_tensors
            return t.zeros(ctx.shape).scatter(-1, idx, gy * 2)
    return lambda x: SortLike.apply(x)[0] + SortLike.apply(x * 2)[1].float()


def _once_differentiable_broadcast(t):
    class Scale(t.autograd.Function):  # a gradient of a broadcast shape (summed to the input's, as torch does)
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        @t.autograd.function.once_differentiable
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, (g * x).sum(0, keepdim=True) + 1.0
    return lambda x, w: Scale.apply(x, w)


CASES = {"ste": (_ste, 1), "saved_output": (_exp_saved_output, 1), "nondiff_output": (_two_outputs_nondiff, 1),
         "broadcast_grad": (_once_differentiable_broadcast, 2)}


def _module(t, make, n_in):
    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = t.nn.Linear(4, 4)
            self.fn = make(t)
            self.w = t.nn.Parameter(t.linspace(0.5, 1.5, 4).reshape(1, 4))

        def forward(self, x):
            h = self.lin(x)
            y = self.fn(h) if n_in == 1 else self.fn(h, self.w)
            return (y * y).sum() + y.mean()
    return Net()


def _run(t, name, compiled, steps=2):
    make, n_in = CASES[name]
    t.manual_seed(0)
    net = _module(t, make, n_in)
    x = t.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    call = t.compile(net) if compiled else net
    out = []
    for _ in range(steps):
        loss = call(x)
        net.zero_grad()
        loss.backward()
        out.append((loss.item(), {k: p.grad.numpy().copy() for k, p in net.named_parameters() if p.grad is not None}))
        with t.no_grad():
            for p in net.parameters():
                if p.grad is not None:
                    p -= 0.1 * p.grad
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_module_with_a_custom_function_matches_torch_in_one_graph(name):
    ref = _run(real, name, compiled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break would warn that the call runs eagerly
        got = _run(torchlike, name, compiled=True)
    for (l0, g0), (l1, g1) in zip(ref, got):
        np.testing.assert_allclose(l1, l0, rtol=1e-5)
        assert sorted(g1) == sorted(g0)
        for k in g0:
            np.testing.assert_allclose(g1[k], g0[k], rtol=1e-4, atol=1e-6, err_msg=k)
    make, n_in = CASES[name]
    net = _module(torchlike, make, n_in)
    report = torchlike.compile.explain(net, torchlike.ones(3, 4))
    assert report.graph_break_count == 0, report


@pytest.mark.parametrize("name", sorted(CASES))
def test_custom_function_in_a_compiled_step_with_backward_inside_matches_torch(name):
    # the step runs backward itself: the trace's tape calls the Function's backward with the program's residuals
    ref = _run(real, name, compiled=False, steps=1)[0][1]
    make, n_in = CASES[name]
    torchlike.manual_seed(0)
    net = _module(torchlike, make, n_in)
    x = torchlike.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))

    def step(inp):
        net.zero_grad()
        net(inp).backward()
        return [p.grad * 1 for p in net.parameters() if p.grad is not None]
    got = torchlike.compile(step, fullgraph=True)(x)
    assert len(got) == len(ref)
    for (k, g0), g1 in zip(ref.items(), got):
        np.testing.assert_allclose(g1.numpy(), g0, rtol=1e-4, atol=1e-6, err_msg=k)


def test_function_returning_its_input_or_writing_it_is_still_exact():
    # outputs that are inputs (torch's view_as(self)) and mark_dirty take the eager path: same gradients
    def make(t):
        class Ident(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 4

        class AddOne(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 5
        return lambda x: (Ident.apply(x * 1) * 2).sum() + AddOne.apply(x * 1).sum()
    x0 = np.array([0.5, -1.0, 2.0], np.float32)
    ref = real.tensor(x0, requires_grad=True)
    make(real)(ref).backward()
    m = torchlike.tensor(x0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torchlike.compile(make(torchlike))(m).backward()
    np.testing.assert_allclose(m.grad.numpy(), ref.grad.numpy())
