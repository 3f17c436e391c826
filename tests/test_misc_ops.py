"""isclose/allclose/equal/isin, complex/polar, cov/corrcoef, trapezoid, windows, fill_diagonal_ vs torch."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, to_tl

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 5)).astype(np.float32)
W = rng.random(5).astype(np.float32)


def test_closeness_and_membership():
    a, b = torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1.0 + 1e-9, 2.1, float("nan")])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1}):
        assert_same(torchlike.isclose(to_tl(a), to_tl(b), **kw), torch.isclose(a, b, **kw))
        assert torchlike.allclose(to_tl(a), to_tl(b), **kw) == torch.allclose(a, b, **kw)
    assert torchlike.equal(to_tl(a[:2]), to_tl(a[:2])) == torch.equal(a[:2], a[:2])
    e, t = torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])
    assert_same(torchlike.isin(to_tl(e), to_tl(t)), torch.isin(e, t))
    assert_same(torchlike.isin(to_tl(e), to_tl(t), invert=True), torch.isin(e, t, invert=True))


def test_complex_and_polar():
    re, im = torch.tensor(A[0]), torch.tensor(A[1])
    assert_same(torchlike.complex(to_tl(re), to_tl(im)), torch.complex(re, im))
    assert_same(torchlike.polar(to_tl(re.abs()), to_tl(im)), torch.polar(re.abs(), im))


@pytest.mark.parametrize("kw", [{}, {"correction": 0}, {"aweights": W}, {"fweights": np.array([1, 2, 1, 3, 1])}])
def test_cov_corrcoef(kw):
    tk = {k: torch.tensor(v) for k, v in kw.items() if k != "correction"}
    ok = {k: torchlike.tensor(v) for k, v in kw.items() if k != "correction"}
    if "correction" in kw:
        tk["correction"] = ok["correction"] = kw["correction"]
    assert_same(torchlike.cov(torchlike.tensor(A), **ok), torch.cov(torch.tensor(A), **tk), rtol=1e-5, atol=1e-6)
    assert_same(torchlike.corrcoef(torchlike.tensor(A)), torch.corrcoef(torch.tensor(A)), rtol=1e-5, atol=1e-6)


def test_trapezoid_and_windows():
    assert_same(torchlike.trapezoid(torchlike.tensor(A)), torch.trapezoid(torch.tensor(A)))
    assert_same(torchlike.trapezoid(torchlike.tensor(A), torchlike.tensor(W)),
                torch.trapezoid(torch.tensor(A), torch.tensor(W)), atol=1e-6)
    assert_same(torchlike.trapezoid(torchlike.tensor(A), dx=0.5, dim=0), torch.trapezoid(torch.tensor(A), dx=0.5, dim=0))
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        for periodic in (True, False):
            assert_same(getattr(torchlike, name)(9, periodic), getattr(torch, name)(9, periodic), atol=1e-6)


def test_fill_diagonal_and_hermitian_views():
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((2, 2, 2), False)):
        t, o = torch.zeros(shape), torchlike.zeros(shape)
        t.fill_diagonal_(5, wrap=wrap)
        o.fill_diagonal_(5, wrap=wrap)
        assert_same(o, t)
    c = torch.tensor(A[:2, :3]) * (1 + 1j)
    assert_same(to_tl(c).H, c.H)
    assert_same(to_tl(c).mH, c.mH)
    assert_same(torchlike.ravel(torchlike.tensor(A).t()), torch.ravel(torch.tensor(A).t()))
