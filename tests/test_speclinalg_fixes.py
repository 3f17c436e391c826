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


# --- linalg: pinv(hermitian=True), lstsq differentiability, norm subgradients at zero ---------------------
def _grad_pair(f_t, f_l, x, cot_seed=0):
    xt = x.clone().requires_grad_(True)
    xl = _tl(x, True)
    yt, yl = f_t(xt), f_l(xl)
    c = torch.from_numpy(np.random.default_rng(cot_seed).standard_normal(tuple(yt.shape))).to(yt.dtype)
    (gt,) = torch.autograd.grad(yt, xt, c)
    (gl,) = torchlike.autograd.grad(yl, xl, _tl(c))
    return yt, yl, gt, gl


def test_pinv_hermitian_reads_lower_triangle():
    a = torch.randn(3, 4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    yt, yl, gt, gl = _grad_pair(lambda t: torch.linalg.pinv(t, hermitian=True),
                                lambda t: torchlike.linalg.pinv(t, hermitian=True), a)
    _close(yl, yt, 1e-9, 1e-9)
    _close(gl, gt, 1e-8, 1e-8)


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_outputs_differentiable(driver):
    a = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    b = torch.randn(5, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    rt = torch.linalg.lstsq(a.requires_grad_(), b, driver=driver)
    al = _tl(a, True)
    rl = torchlike.linalg.lstsq(al, _tl(b), driver=driver)
    for ft, fl in zip(rt, rl):
        assert tuple(ft.shape) == tuple(fl.shape)
        assert ft.requires_grad == fl.requires_grad
    (gt,) = torch.autograd.grad(rt.solution.sum() + rt.residuals.sum(), a)
    (gl,) = torchlike.autograd.grad(rl.solution.sum() + rl.residuals.sum(), al)
    _close(gl, gt, 1e-8, 1e-8)


@pytest.mark.parametrize("shape,ord", [((5,), 1), ((5,), float("inf")), ((5,), -float("inf")), ((5,), 2),
                                       ((5,), 3.5), ((2, 3), 1), ((2, 3), -1), ((2, 3), float("inf")),
                                       ((2, 3), "fro"), ((2, 3), 2)])
def test_norm_subgradient_at_zero(shape, ord):
    x = torch.zeros(shape, dtype=torch.float64)
    yt, yl, gt, gl = _grad_pair(lambda t: torch.linalg.norm(t, ord), lambda t: torchlike.linalg.norm(t, ord), x)
    _close(yl, yt, 0, 0)
    _close(gl, gt, 1e-12, 1e-12)


@pytest.mark.parametrize("shape,ord", [((3, 0), -1), ((0, 3), -float("inf")), ((0, 3), -2)])
def test_matrix_norm_empty_min_raises(shape, ord):
    with pytest.raises(IndexError) as et:
        torch.linalg.matrix_norm(torch.zeros(shape), ord)
    with pytest.raises(IndexError) as el:
        torchlike.linalg.matrix_norm(torchlike.zeros(shape), ord)
    assert str(el.value) == str(et.value)


def test_eig_grad_phase_invariant_loss():
    a = torch.randn(2, 4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    at = a.clone().requires_grad_(True)
    al = _tl(a, True)
    wt, vt = torch.linalg.eig(at)
    wl, vl = torchlike.linalg.eig(al)
    lt = wt.real.sum() + 2 * wt.imag.sum() + (vt.abs() * torch.arange(4.0)).sum()
    ll = wl.real.sum() + 2 * wl.imag.sum() + (vl.abs() * torchlike.arange(4.0)).sum()
    (gt,) = torch.autograd.grad(lt, at)
    (gl,) = torchlike.autograd.grad(ll, al)
    _close(gl, gt, 1e-8, 1e-8)
