"""autograd.Function under the torch.func transforms, against torch ("Extending torch.func with
autograd.Function"): grad/vjp/jacrev run the class's ``backward``, jvp/jacfwd its ``jvp``, a ``forward`` that
leaves the tensor world (numpy) works under grad and vmap, and torch's errors for a Function without
``setup_context``, without vmap support or without ``jvp``."""
import numpy as np
import pytest

import torchlike
from conftest import torch


def _classes(lib):
    F = lib.autograd.Function

    class RoundSTE(F):  # straight-through: backward is not the derivative of forward
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.round()

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class NumpyExp(F):  # forward on the host; backward saves the output; a vmap staticmethod
        @staticmethod
        def forward(x, scale):
            return lib.tensor(np.exp(x.detach().cpu().numpy()) * scale)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, g):
            out, = ctx.saved_tensors
            return g * out, None

        @staticmethod
        def vmap(info, in_dims, x, scale):
            return NumpyExp.apply(x.movedim(in_dims[0], 0), scale), 0

    class TwiceJvp(F):  # jvp differs from autodiff of forward, so the transform must call it
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * 1.0

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    class OldStyle(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class NoVmap(F):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return RoundSTE, NumpyExp, TwiceJvp, OldStyle, NoVmap


def _results(lib):
    fn = lib.func
    RoundSTE, NumpyExp, TwiceJvp, _, _ = _classes(lib)
    x = lib.tensor([[0.2, -1.3, 0.7], [1.6, 0.1, -0.4]])
    out = {}
    out["ste grad"] = fn.grad(lambda t: RoundSTE.apply(t).sum())(x)
    out["ste vmap grad"] = fn.vmap(fn.grad(lambda t: RoundSTE.apply(t).sum()))(x)
    out["ste jacrev"] = fn.jacrev(RoundSTE.apply)(x[0])
    out["np forward"] = fn.vmap(lambda t: NumpyExp.apply(t, 2.0))(x)
    out["np grad"] = fn.grad(lambda t: NumpyExp.apply(t, 2.0).sum())(x)
    out["np vmap grad"] = fn.vmap(fn.grad(lambda t: NumpyExp.apply(t, 1.0).sum()))(x)
    out["np jacrev"] = fn.jacrev(lambda t: NumpyExp.apply(t, 1.0))(x[1])
    out["jvp"] = fn.jvp(TwiceJvp.apply, (x,), (lib.ones_like(x),))[1]
    out["jacfwd"] = fn.jacfwd(TwiceJvp.apply)(x[0])
    out["jacrev"] = fn.jacrev(TwiceJvp.apply)(x[0])
    return out


def test_transforms_use_the_functions_staticmethods_like_torch():
    ours, theirs = _results(torchlike), _results(torch)
    assert list(ours) == list(theirs)
    for k in theirs:
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-6, err_msg=k)
        assert ours[k].dtype.__repr__() == repr(theirs[k].dtype), k


@pytest.mark.parametrize("case", ["old grad", "old vmap", "novmap vmap", "jvp missing"])
def test_errors_like_torch(case):
    def run(lib):
        fn = lib.func
        _, _, _, OldStyle, NoVmap = _classes(lib)
        x = lib.ones(2, 3)
        if case == "old grad":
            return fn.grad(lambda t: OldStyle.apply(t).sum())(x)
        if case == "old vmap":
            return fn.vmap(OldStyle.apply)(x)
        if case == "novmap vmap":
            return fn.vmap(NoVmap.apply)(x)
        return fn.jvp(NoVmap.apply, (x,), (x,))

    with pytest.raises(Exception) as theirs:
        run(torch)
    with pytest.raises(Exception) as ours:
        run(torchlike)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_old_style_function_outside_transforms_still_records_a_node():
    _, _, _, OldStyle, _ = _classes(torchlike)
    x = torchlike.ones(3, requires_grad=True)
    OldStyle.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
