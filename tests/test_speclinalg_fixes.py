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


@pytest.mark.parametrize("driver", ["gelsy", "gelsd"])
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


# --- torch.lu, geqrf, ormqr --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 5, 3)])
def test_torch_lu(shape):
    a = torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    lt, pt = torch.lu(a)
    ll, pl = torchlike.lu(_tl(a))
    _close(ll, lt, 1e-10, 1e-10)
    assert pl.dtype == torchlike.int32 and pl.tolist() == pt.tolist()
    rt = torch.lu(a, get_infos=True)
    rl = torchlike.lu(_tl(a), get_infos=True)
    assert rl.info.tolist() == rt.info.tolist() and type(rl).__name__ == type(rt).__name__
    mt, ml = a.lu(get_infos=True), _tl(a).lu(get_infos=True)
    assert type(ml) is type(mt) is tuple and ml[1].tolist() == mt[1].tolist()
    yt, yl, gt, gl = _grad_pair(lambda t: torch.lu(t)[0], lambda t: torchlike.lu(t)[0], a)
    _close(gl, gt, 1e-8, 1e-8)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3)])
def test_geqrf(shape):
    a = torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    rt, rl = torch.geqrf(a), torchlike.geqrf(_tl(a))
    _close(rl.a, rt.a, 1e-10, 1e-10)
    _close(rl.tau, rt.tau, 1e-10, 1e-10)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("mn", [(5, 3), (3, 5)])
@pytest.mark.parametrize("dtype", [torch.complex128])
def test_ormqr(left, transpose, mn, dtype):
    g = torch.Generator().manual_seed(7)
    m, n = mn
    a, tau = torch.geqrf(torch.randn(2, m, n, dtype=dtype, generator=g))
    c = torch.randn(2, *((m, 2) if left else (2, m)), dtype=dtype, generator=g)
    tau = tau[..., :min(m, n)]
    if not left:
        c = torch.randn(2, 2, m, dtype=dtype, generator=g)
    yt = torch.ormqr(a, tau, c, left, transpose)
    yl = torchlike.ormqr(_tl(a), _tl(tau), _tl(c), left, transpose)
    np.testing.assert_allclose(yl.numpy(), yt.numpy(), rtol=1e-10, atol=1e-10)


def test_ormqr_grad_and_errors():
    g = torch.Generator().manual_seed(8)
    a, tau = torch.geqrf(torch.randn(5, 3, dtype=torch.float64, generator=g))
    c = torch.randn(5, 2, dtype=torch.float64, generator=g)
    ins_t = [x.clone().requires_grad_() for x in (a, tau, c)]
    ins_l = [_tl(x, True) for x in (a, tau, c)]
    gt = torch.autograd.grad(torch.ormqr(*ins_t, transpose=True).sum(), ins_t)
    gl = torchlike.autograd.grad(torchlike.ormqr(*ins_l, transpose=True).sum(), ins_l)
    for x, y in zip(gl, gt):
        _close(x, y, 1e-9, 1e-9)
    for args in [((5, 0), (5,), (5, 5)), ((5, 3), (3,), (4, 2)), ((2, 5, 3), (3,), (2, 5, 2))]:
        ta = [torch.ones(s) for s in args]
        with pytest.raises(RuntimeError) as et:
            torch.ormqr(*ta)
        with pytest.raises(RuntimeError) as el:
            torchlike.ormqr(*[torchlike.ones(s) for s in args])
        assert str(el.value) == str(et.value)


# --- LDL^T (Bunch-Kaufman) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["indefinite", "batched", "hermitian"])
def test_ldl_factor_and_solve(kind):
    g = torch.Generator().manual_seed(9)
    herm = kind == "hermitian"
    if herm:
        a = torch.randn(6, 6, dtype=torch.complex128, generator=g)
        a = a + a.mH
    else:
        a = torch.randn(*((3,) if kind == "batched" else ()), 6, 6, dtype=torch.float64, generator=g)
        a = a + a.mT
        if kind == "spd":
            a = a @ a.mT + torch.eye(6, dtype=torch.float64)
    b = torch.randn(*a.shape[:-1], 2, dtype=a.dtype, generator=g)
    rt = torch.linalg.ldl_factor_ex(a, hermitian=herm)
    rl = torchlike.linalg.ldl_factor_ex(_tl(a), hermitian=herm)
    np.testing.assert_allclose(rl.LD.numpy(), rt.LD.numpy(), rtol=1e-10, atol=1e-10)
    assert rl.pivots.tolist() == rt.pivots.tolist() and rl.info.tolist() == rt.info.tolist()
    xt = torch.linalg.ldl_solve(rt.LD, rt.pivots, b, hermitian=herm)
    xl = torchlike.linalg.ldl_solve(_tl(rt.LD), _tl(rt.pivots), _tl(b), hermitian=herm)
    np.testing.assert_allclose(xl.numpy(), xt.numpy(), rtol=1e-9, atol=1e-9)


def test_matrix_rank_hermitian_reads_the_lower_triangle():
    for a in ([[1.0, 0.0], [1.0, 1.0]], [[1.0, 5.0], [0.0, 1.0]], [[2.0, 7j], [1j, 2.0]], [[0.0, 3.0], [0.0, 0.0]]):
        expected = torch.linalg.matrix_rank(torch.tensor(a), hermitian=True)
        ours = torchlike.linalg.matrix_rank(torchlike.tensor(a), hermitian=True)
        assert ours.item() == expected.item(), a
