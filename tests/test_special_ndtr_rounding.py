"""special.ndtr against torch 2.13: its kernel's formula (1 + erf(x * sqrt(1/2))) * 0.5, rounded at each step
in float16/bfloat16 (bit-equal), and 0 in the far left tail in float32 as torch's."""
import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch")

X = np.linspace(-8, 8, 8001).astype("float32")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_ndtr_half_types_bitwise(dtype):
    want = torch.special.ndtr(torch.tensor(X).to(getattr(torch, dtype)))
    got = torchlike.special.ndtr(torchlike.tensor(X).to(getattr(torchlike, dtype)))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(np.asarray(got.float().tolist()), want.float().numpy())


def test_ndtr_float32_tail_and_gradient():
    x = np.array([-10.0, -6.0, -3.0, 0.0, 2.5, 9.0], np.float32)
    want = torch.tensor(x, requires_grad=True)
    got = torchlike.tensor(x, requires_grad=True)
    w, g = torch.special.ndtr(want), torchlike.special.ndtr(got)
    np.testing.assert_allclose(np.asarray(g.tolist()), w.detach().numpy(), rtol=1e-6, atol=0)
    assert g.tolist()[:2] == w.tolist()[:2] == [0.0, 0.0]
    w.sum().backward()
    g.sum().backward()
    np.testing.assert_allclose(np.asarray(got.grad.tolist()), want.grad.numpy(), rtol=1e-6)
