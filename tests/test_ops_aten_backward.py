"""Backward kernels reached through ``torch.ops.aten`` compared with torch: ``_softmax_backward_data``
and ``max_pool2d_with_indices_backward`` (values, and that each is differentiable itself)."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, tensor_pair

RNG = np.random.default_rng(0)


# --- _softmax_backward_data -----------------------------------------------------------------------
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((4, 5), 0), ((3, 4, 5), -1), ((3, 4, 5), 1)])
def test_softmax_backward_data_matches_torch(shape, dim):
    g = RNG.standard_normal(shape).astype(np.float32)
    out = torch.softmax(torch.tensor(RNG.standard_normal(shape).astype(np.float32)), dim)
    got = torchlike.ops.aten._softmax_backward_data(torchlike.tensor(g), torchlike.tensor(out.numpy()), dim, torchlike.float32)
    want = torch.ops.aten._softmax_backward_data(torch.tensor(g), out, dim, torch.float32)
    assert_same(got, want, rtol=1e-5, atol=1e-5)


def test_softmax_backward_data_is_differentiable_like_torch():
    g, out = RNG.standard_normal((3, 4)), torch.softmax(torch.randn(3, 4, dtype=torch.float64), 1).numpy()
    (ga, gb), (oa, ob) = tensor_pair(g, True), tensor_pair(out, True)
    torchlike.ops.aten._softmax_backward_data(ga, oa, 1, torchlike.float64).pow(2).sum().backward()
    torch.ops.aten._softmax_backward_data(gb, ob, 1, torch.float64).pow(2).sum().backward()
    assert_same(ga.grad, gb.grad, rtol=1e-10, atol=1e-10)
    assert_same(oa.grad, ob.grad, rtol=1e-10, atol=1e-10)


# --- max_pool2d_with_indices_backward ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 6, 6), (3, 6, 6)])
def test_max_pool2d_with_indices_backward_matches_torch_and_differentiates(shape):
    x = RNG.standard_normal(shape)
    g = RNG.standard_normal(shape[:-2] + (3, 3))

    def run(lib):
        xi = lib.tensor(x, requires_grad=True)
        gi = lib.tensor(g, requires_grad=True)
        _, idx = lib.nn.functional.max_pool2d(xi.detach(), 2, return_indices=True)
        r = lib.ops.aten.max_pool2d_with_indices_backward(gi, xi, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
        r.pow(2).sum().backward()
        return r, gi.grad, xi.grad, r.grad_fn.name()
    got, want = run(torchlike), run(torch)
    for a, b in zip(got[:3], want[:3]):
        assert_same(a, b, rtol=1e-10, atol=1e-10)
    assert got[3] == want[3]
