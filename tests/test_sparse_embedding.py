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


def test_sparse_adam_with_changing_nnz_is_torchs_and_compiles_per_size_class():
    """Each batch's embedding gradient has another nnz (5, 6, 7, 8, 3, 4 rows here; a hybrid COO gradient with
    3-wide values): SparseAdam pads the update to the next power of two with out-of-range rows that are dropped,
    so the values are those of the unpadded update (torch's within a float32 ulp: XLA's CPU division and fused
    multiply-adds round differently in a few elements) and its jitted update compiles once per size class, not
    once per nnz."""
    from torchlike.optim import sparse_adam
    batches = [[0, 1, 3, 3, 5, 9], [4, 4, 8, 1, 2, 0, 6], [0, 2, 3, 5, 6, 7, 9], [1, 2, 3, 4, 5, 6, 7, 8],
               [7, 0, 7, 2], [9, 8, 7, 7, 6]]
    w0 = np.random.default_rng(5).standard_normal((10, 3)).astype(np.float32)

    def run(L):
        e = L.nn.Embedding(10, 3, sparse=True)
        with L.no_grad():
            e.weight.copy_(L.from_numpy(w0.copy()))
        opt = L.optim.SparseAdam(e.parameters(), lr=0.1)
        for b in batches:
            opt.zero_grad()
            (e(L.tensor(b)) ** 3).sum().backward()
            opt.step()
        return e.weight.detach().numpy(), opt.state[e.weight]["exp_avg_sq"].numpy()
    sparse_adam._sparse_adam_group.clear_cache()
    ours, theirs = run(torchlike), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-7)
    assert sparse_adam._sparse_adam_group._cache_size() == 2  # nnz 3-4 and 5-8


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


@pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")
def test_sparse_data_shares_values_and_set_data_checks_the_layout():
    """``.data`` of a sparse tensor (what hand-written optimizers read from ``p.grad``) is a detached sparse tensor
    sharing the values, as torch's; assigning ``.data`` replaces indices, values and size, and a dense tensor is
    refused with torch's message."""
    def run(L):
        s = L.sparse_coo_tensor(L.tensor([[0, 2]]), L.tensor([1.0, 2.0]), (4,)).coalesce().requires_grad_()
        d = s.data
        d.values().mul_(2)
        facts = [d.is_sparse, d.requires_grad, d.is_leaf, s.detach().values().tolist()]
        s.data = L.sparse_coo_tensor(L.tensor([[1]]), L.tensor([7.0]), (5,))
        facts += [tuple(s.shape), s.requires_grad, s._nnz(), s.detach().to_dense().tolist()]
        with pytest.raises(RuntimeError) as err:
            s.data = L.zeros(4)
        facts.append(str(err.value))
        e = emb(L)
        e(L.from_numpy(X.copy())).sum().backward()
        g = -e.weight.grad.data  # cooper's ExtraSGD: d_p = p.grad.data; d_p = -d_p; p.data.add_(-lr * d_p)
        e.weight.data.add_(-0.1 * g)
        return facts, g.is_sparse, e.weight.detach().numpy()
    (f, sp, w), (ft, spt, wt) = run(torchlike), run(torch)
    assert f == ft and sp and spt
    np.testing.assert_allclose(w, wt, rtol=1e-6)


@pytest.mark.parametrize("mode,padding_idx,include_last", [
    ("sum", None, False), ("sum", 4, True), ("mean", None, False), ("mean", 4, False), ("mean", 4, True)])
def test_embedding_bag_sparse_gradient_is_torchs(mode, padding_idx, include_last):
    """EmbeddingBag(sparse=True): one COO entry per looked-up index in input order (padding dropped), its bag's
    gradient (times 1 / count for mean), uncoalesced; DLRM steps such tables with SparseAdam."""
    def run(L):
        e = L.nn.EmbeddingBag(6, 3, mode=mode, sparse=True, padding_idx=padding_idx,
                              include_last_offset=include_last)
        with L.no_grad():
            e.weight.copy_(L.from_numpy(W.copy()))
        offsets = L.tensor([0, 2, 2, 6] if include_last else [0, 2, 2, 5])
        out = e(L.tensor([0, 1, 1, 3, 4, 2]), offsets)
        (out * L.arange(float(out.numel())).view(out.shape)).sum().backward()
        g = e.weight.grad
        idx, vals = g._indices().tolist(), g._values().detach().numpy()
        L.optim.SparseAdam(e.parameters(), lr=0.1).step()
        return out.detach().numpy(), g, idx, vals, e.weight.detach().numpy()
    ours, theirs = run(torchlike), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    check_grad(ours[1], theirs[1])
    assert ours[2] == theirs[2]
    np.testing.assert_array_equal(ours[3], theirs[3])
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-6)


def test_embedding_bag_sparse_per_sample_weights_and_errors():
    def run(L):
        w = L.nn.Parameter(L.arange(10.).view(5, 2))
        psw = L.tensor([1., 2., 3., 4.], requires_grad=True)
        out = L.nn.functional.embedding_bag(L.tensor([0, 1, 1, 3]), w, L.tensor([0, 2]), mode="sum", sparse=True,
                                            per_sample_weights=psw)
        (out * L.arange(4.).view(2, 2)).sum().backward()
        errors = []
        for kw in (dict(mode="max", sparse=True), dict(mode="max", scale_grad_by_freq=True),
                   dict(mode="mean", per_sample_weights=L.ones(2))):
            with pytest.raises((ValueError, NotImplementedError)) as info:
                L.nn.functional.embedding_bag(L.tensor([0, 1]), w, L.tensor([0]), **kw)
            errors.append((info.type.__name__, str(info.value)))
        return out.tolist(), w.grad._indices().tolist(), w.grad._values().tolist(), psw.grad.tolist(), errors
    assert run(torchlike) == run(torch)


def test_embedding_bag_sparse_2d_input_padding_and_scale_grad_by_freq():
    """2-D bags with per-sample weights and a padding row (its entry dropped, its weight's gradient 0), and
    scale_grad_by_freq refused in backward with torch's RuntimeError."""
    def run(L):
        w = L.nn.Parameter(L.arange(10.).view(5, 2))
        psw = L.tensor([1., 2., 3., 4.], requires_grad=True)
        out = L.nn.functional.embedding_bag(L.tensor([[0, 4], [1, 3]]), w, mode="sum", sparse=True,
                                            per_sample_weights=psw.view(2, 2), padding_idx=4)
        (out * L.arange(4.).view(2, 2)).sum().backward()
        w3 = L.nn.Parameter(L.arange(10.).view(5, 2))
        out3 = L.nn.functional.embedding_bag(L.tensor([0, 1, 2]), w3, L.tensor([0, 1]), mode="sum", sparse=True,
                                             scale_grad_by_freq=True)
        with pytest.raises(RuntimeError) as info:
            out3.sum().backward()
        return out.tolist(), w.grad._indices().tolist(), w.grad._values().tolist(), psw.grad.tolist(), str(info.value)
    assert run(torchlike) == run(torch)
