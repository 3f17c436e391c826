"""nn.Embedding(sparse=True) / F.embedding(sparse=True): the weight's gradient is a sparse COO tensor like
torch's (indices, values, is_coalesced, accumulation, padding_idx), consumed by optim.SparseAdam; errors are
torch's."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

W = np.random.default_rng(3).standard_normal((6, 3)).astype(np.float32)
X = np.array([[0, 1, 3], [3, 5, 0]])
UP = np.arange(18, dtype=np.float32).reshape(2, 3, 3)


def emb(L, **kw):
    e = L.nn.Embedding(6, 3, sparse=True, **kw)
    with L.no_grad():
        e.weight.copy_(L.from_numpy(W.copy()))
    return e


def check_grad(ours, theirs):
    assert repr(ours.layout) == repr(theirs.layout) == "torch.sparse_coo"
    assert ours.is_coalesced() == theirs.is_coalesced()
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.to_dense().numpy(), theirs.to_dense().numpy(), rtol=1e-6)


@pytest.mark.parametrize("padding_idx", [None, 1, -1])
def test_module_gives_torchs_sparse_gradient(padding_idx):
    def run(L):
        e = emb(L, padding_idx=padding_idx)
        out = e(L.from_numpy(X.copy()))
        (out * L.from_numpy(UP.copy())).sum().backward()
        return out, e.weight.grad
    (o, g), (ot, gt) = run(torchlike), run(torch)
    np.testing.assert_allclose(o.detach().numpy(), ot.detach().numpy(), rtol=1e-6)
    assert o.requires_grad and ot.requires_grad
    check_grad(g, gt)
    np.testing.assert_array_equal(g._indices().numpy(), gt._indices().numpy())
    np.testing.assert_allclose(g._values().numpy(), gt._values().numpy())


def test_gradients_accumulate_over_backwards_and_functional_form():
    def run(L):
        e = emb(L)
        x = L.from_numpy(X.copy())
        e(x).sum().backward()
        (e(x[:, :1]) * 2).sum().backward()
        w = L.from_numpy(W.copy()).requires_grad_()
        L.nn.functional.embedding(x, w, sparse=True).pow(2).sum().backward()
        return e.weight.grad, w.grad
    for a, b in zip(run(torchlike), run(torch)):
        check_grad(a, b)


def test_sparse_adam_trains_a_sparse_embedding_like_torch():
    def run(L):
        e = emb(L)
        opt = L.optim.SparseAdam(e.parameters(), lr=0.05)
        x = L.from_numpy(X.copy())
        for _ in range(3):
            opt.zero_grad()
            (e(x) ** 2).sum().backward()
            opt.step()
        return e.weight.detach().numpy()
    np.testing.assert_allclose(run(torchlike), run(torch), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["adam", "scale_grad_by_freq"])
def test_errors_match_torch(case):
    def run(L):
        e = emb(L, scale_grad_by_freq=case == "scale_grad_by_freq")
        e(L.from_numpy(X.copy())).sum().backward()
        L.optim.Adam(e.parameters()).step()
    with pytest.raises(Exception) as theirs:
        run(torch)
    with pytest.raises(Exception) as ours:
        run(torchlike)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_no_graph_without_grad_and_repr():
    for L in (torchlike, torch):
        e = emb(L)
        with L.no_grad():
            assert not e(L.from_numpy(X.copy())).requires_grad
        assert not L.nn.functional.embedding(L.from_numpy(X.copy()), L.from_numpy(W.copy()), sparse=True).requires_grad
    assert repr(emb(torchlike)) == repr(emb(torch))
