"""Regression tests for special-function and linalg fixes, each compared with real torch."""
import numpy as np
import pytest
import torch

import torchlike


def _tl(t, requires_grad=False):
    return torchlike.tensor(t.detach().numpy(), requires_grad=requires_grad)


def _close(a, b, rtol, atol):
    np.testing.assert_allclose(np.asarray(a.detach().numpy(), dtype=np.float64),
                               np.asarray(b.detach().numpy(), dtype=np.float64), rtol=rtol, atol=atol)


# --- polygamma / digamma on the negative axis and at poles --------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_polygamma_negative_axis(n, dtype):
    g = torch.Generator().manual_seed(n)
    x = torch.empty(200, dtype=dtype).uniform_(-9, 9, generator=g)
    x = torch.cat([x, torch.tensor([0.0, 1.0, 2.0, -2.5, 0.5], dtype=dtype)])
    tol = dict(rtol=2e-5, atol=1e-4) if dtype == torch.float32 else dict(rtol=1e-9, atol=1e-9)
    _close(torchlike.polygamma(n, _tl(x)), torch.polygamma(n, x), **tol)


@pytest.mark.parametrize("n", [2, 3])
def test_polygamma_poles(n):
    x = torch.tensor([0.0, -1.0, -3.0], dtype=torch.float64)
    _close(torchlike.polygamma(n, _tl(x)), torch.polygamma(n, x), rtol=0, atol=0)


def test_polygamma_bool():
    x = torch.tensor([True, False])
    for n in range(5):
        _close(torchlike.polygamma(n, torchlike.tensor([True, False])), torch.polygamma(n, x), 1e-6, 1e-6)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_polygamma_digamma_grad(n):
    x = torch.tensor([-8.4, -3.3, -0.6, 0.3, 2.5, 7.1], dtype=torch.float64, requires_grad=True)
    f = (lambda t: t.digamma()) if n == 0 else (lambda t: t.polygamma(n))
    (gt,) = torch.autograd.grad(f(x).sum(), x)
    xt = _tl(x, True)
    (gm,) = torchlike.autograd.grad(f(xt).sum(), xt)
    _close(gm, gt, 1e-9, 1e-9)
