"""Random ops and autograd, as torch 2.13 has it: a sample drawn from a tensor that requires grad
requires grad too, under torch's node name, and its gradient to the parameters is zero (torch does
not reparameterize ``normal``/``bernoulli``; the distributions' ``rsample`` does that).
"""
import numpy as np
import pytest

import torchlike as tl

torch = pytest.importorskip("torch", reason="torch is the oracle for autograd of random ops")

CASES = ["x.bernoulli_(0.5)", "x.bernoulli_(m.full((3,), 0.3))", "x.normal_()", "x.uniform_()", "x.exponential_()",
         "x.cauchy_()", "x.log_normal_()", "x.geometric_(0.5)", "x.random_(0, 5)", "m.poisson(x)", "m.normal(2.0, x)",
         "m.normal(x, 2.0)", "m.normal(x, x)", "m.bernoulli(x * 0.5)"]


@pytest.mark.parametrize("expr", CASES)
def test_random_op_grad_fn_and_zero_gradient_match_torch(expr):
    out = []
    for m in (torch, tl):
        m.manual_seed(0)
        x0 = m.ones(3, requires_grad=True)
        x = x0.clone()
        y = eval(expr, {"m": m, "x": x})
        (y * 3).sum().backward()
        out.append((type(y.grad_fn).__name__, y.requires_grad, x0.grad.numpy().tolist(), y.detach().numpy().tolist()))
    assert out[1] == out[0]


def test_random_fill_of_a_leaf_that_requires_grad_raises_like_torch():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        tl.ones(3, requires_grad=True).normal_()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        torch.ones(3, requires_grad=True).normal_()


def test_no_grad_fill_stays_untracked():
    x = tl.ones(3, requires_grad=True)
    with tl.no_grad():
        x.normal_()
    assert x.grad_fn is None and x.requires_grad
    np.testing.assert_array_equal(tl.normal(tl.zeros(2), 1.0).requires_grad, False)
