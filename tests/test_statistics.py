"""Statistics compared with torch: ``histogram`` (with ``out=``), ``histogramdd``, ``cov`` and
``corrcoef`` (corrections, weights)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, to_tl  # noqa: E402

RNG = np.random.default_rng(0)
_R0 = np.random.default_rng(0)
A = _R0.standard_normal((3, 5)).astype(np.float32)
W = _R0.random(5).astype(np.float32)


# --- out= of histogram and of the list-returning copies ------------------------------------------------
def test_histogram_out():
    x = torch.tensor([0.5, 1.5, 1.7, 3.0, -1.0])
    t_out = (torch.empty(0), torch.empty(0))
    torch.histogram(x, 3, out=t_out)
    l_out = (torchlike.empty(0), torchlike.empty(0))
    got = torchlike.histogram(to_tl(x), 3, out=l_out)
    assert got[0] is l_out[0] and got[1] is l_out[1]
    assert_same(l_out[0], t_out[0], rtol=None, atol=None)
    assert_same(l_out[1], t_out[1], rtol=None, atol=None)


def test_histogramdd():
    x = RNG.standard_normal((20, 2)).astype(np.float32)
    w = RNG.random(20).astype(np.float32)
    for kw in ({"bins": [2, 3]}, {"bins": 4, "density": True}, {"bins": 2, "range": [-1., 1., -2., 2.]},
               {"bins": "edges", "weight": "w"}):
        kt, kl = dict(kw), dict(kw)
        if kw["bins"] == "edges":
            e0, e1 = np.array([-3., 0., 3.], np.float32), np.array([-1., 0., 0.5, 1.], np.float32)
            kt["bins"], kl["bins"] = [torch.tensor(e0), torch.tensor(e1)], [torchlike.tensor(e0), torchlike.tensor(e1)]
            kt["weight"], kl["weight"] = torch.tensor(w), torchlike.tensor(w)
        r, l = torch.histogramdd(torch.tensor(x), **kt), torchlike.histogramdd(torchlike.tensor(x), **kl)
        assert_same(l.hist, r.hist, 1e-5, 1e-6)
        assert_same(tuple(l.bin_edges), tuple(r.bin_edges), 1e-6, 1e-6)


@pytest.mark.parametrize("kw", [{"bins": 4}, {"bins": [3, 5]}, {"bins": 3, "density": True},
                                {"bins": 3, "range": [-1., 1., -2., 2.]}])
def test_histogramdd_compiles_into_one_graph(kw):
    # the data range (range=None) is computed inside the program: no host read, no graph break
    x = RNG.standard_normal((30, 2)).astype(np.float32)
    r = torch.histogramdd(torch.tensor(x), **kw)
    l = torchlike.compile(lambda t: torchlike.histogramdd(t, **kw), fullgraph=True)(torchlike.tensor(x))
    assert_same(l.hist, r.hist, 1e-5, 1e-6)
    assert_same(tuple(l.bin_edges), tuple(r.bin_edges), 1e-6, 1e-6)


@pytest.mark.parametrize("kw", [{}, {"correction": 0}, {"aweights": W}, {"fweights": np.array([1, 2, 1, 3, 1])}])
def test_cov_corrcoef(kw):
    tk = {k: torch.tensor(v) for k, v in kw.items() if k != "correction"}
    ok = {k: torchlike.tensor(v) for k, v in kw.items() if k != "correction"}
    if "correction" in kw:
        tk["correction"] = ok["correction"] = kw["correction"]
    assert_same(torchlike.cov(torchlike.tensor(A), **ok), torch.cov(torch.tensor(A), **tk), rtol=1e-5, atol=1e-6)
    assert_same(torchlike.corrcoef(torchlike.tensor(A)), torch.corrcoef(torch.tensor(A)), rtol=1e-5, atol=1e-6)
