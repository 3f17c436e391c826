"""CSC, BSR and BSC tensors checked against torch: conversions, constructors, index accessors, reprs, to_dense,
products with dense matrices and their gradients, and torch's errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse .* support:UserWarning"),
              pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")]

A = np.array([[0., 1, 0, 0], [2, 0, 0, 3], [0, 0, 0, 0], [4, 5, 0, 6]], np.float32)
B = np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32)


def dense(L):
    return L.from_numpy(A.copy())


CONVERSIONS = {
    "to_sparse_csc": lambda L: dense(L).to_sparse_csc(),
    "to_sparse_bsr(2)": lambda L: dense(L).to_sparse_bsr(2),
    "to_sparse_bsr((2, 1))": lambda L: dense(L).to_sparse_bsr((2, 1)),
    "to_sparse_bsc((2, 2))": lambda L: dense(L).to_sparse_bsc((2, 2)),
    "to_sparse(layout=csc)": lambda L: dense(L).to_sparse(layout=L.sparse_csc),
    "to_sparse(layout=bsr, blocksize)": lambda L: dense(L).to_sparse(layout=L.sparse_bsr, blocksize=(1, 2)),
    "coo.to_sparse_csc": lambda L: dense(L).to_sparse().to_sparse_csc(),
    "csr.to_sparse_bsr": lambda L: dense(L).to_sparse_csr().to_sparse_bsr(2),
    "sparse_csc_tensor": lambda L: L.sparse_csc_tensor([0, 1, 3], [1, 0, 1], [1., 2., 3.], (2, 2)),
    "sparse_bsr_tensor": lambda L: L.sparse_bsr_tensor([0, 1, 1], [1], L.ones(1, 2, 2), (4, 4)),
    "sparse_bsc_tensor": lambda L: L.sparse_bsc_tensor([0, 0, 1], [0], L.arange(4.).view(1, 2, 2), (2, 4)),
    "sparse_compressed_tensor(csc)": lambda L: L.sparse_compressed_tensor([0, 1, 2], [1, 0], [5., 6.], (2, 2),
                                                                          layout=L.sparse_csc),
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
def test_conversions_and_constructors_match_torch(name):
    ours, theirs = CONVERSIONS[name](torchlike), CONVERSIONS[name](torch)
    assert repr(ours.layout) == repr(theirs.layout)
    assert repr(ours) == repr(theirs)
    assert ours._nnz() == theirs._nnz() and tuple(ours.shape) == tuple(theirs.shape)
    for acc in ("crow_indices", "col_indices", "ccol_indices", "row_indices", "values"):
        try:
            t = getattr(theirs, acc)()
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as ours_err:
                getattr(ours, acc)()
            assert str(ours_err.value) == str(e)
        else:
            np.testing.assert_array_equal(getattr(ours, acc)().numpy(), t.numpy())
    np.testing.assert_array_equal(ours.to_dense().numpy(), theirs.to_dense().numpy())
    back = ours.to_sparse()
    assert back.layout is torchlike.sparse_coo
    np.testing.assert_array_equal(back.to_dense().numpy(), theirs.to_dense().numpy())
    assert not ours.is_sparse and not ours.is_sparse_csr
    square = theirs.layout != torch.sparse_bsr or theirs.values().shape[1] == theirs.values().shape[2]
    if theirs.layout != torch.sparse_bsc and theirs.shape[1] == 4 and square:  # torch: no BSC or non-square BSR @
        np.testing.assert_allclose((ours @ torchlike.from_numpy(B.copy())).numpy(),
                                   (theirs @ torch.from_numpy(B.copy())).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("how", ["csc", "csr"])  # (torch cannot backpropagate through bsr @ dense)
def test_products_and_gradients_match_torch(how):
    def run(L):
        a = dense(L).requires_grad_()
        b = L.from_numpy(B.copy()).requires_grad_()
        s = {"csc": lambda: a.to_sparse_csc(), "bsr": lambda: a.to_sparse_bsr(2),
             "csr": lambda: a.to_sparse_csr()}[how]()
        y = L.mm(s, b) if how != "bsr" else s @ b
        (y * y).sum().backward()
        return y, a.grad, b.grad
    (y, ga, gb), (yt, gat, gbt) = run(torchlike), run(torch)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), gbt.numpy(), rtol=1e-5, atol=1e-5)
    # the dense source's gradient: torch passes the product's full dense gradient back through to_sparse_*;
    # torchlike's reaches the stored values only (docs/differences.md, "Sparse tensors"), equal there
    stored = A != 0 if how != "bsr" else np.kron(np.any(A.reshape(2, 2, 2, 2) != 0, axis=(1, 3)), np.ones((2, 2)))
    np.testing.assert_allclose(ga.numpy()[stored.astype(bool)], gat.numpy()[stored.astype(bool)], rtol=1e-5,
                               atol=1e-5)


ERRORS = {
    "bsc @ dense": lambda L: dense(L).to_sparse_bsc(2) @ L.ones(4, 2),
    "bad blocksize": lambda L: dense(L).to_sparse_bsr(3),
    "bad blocksize 2": lambda L: dense(L).to_sparse_bsc((2, 3)),
    "csc.indices()": lambda L: dense(L).to_sparse_csc().indices(),
    "bsr.is_coalesced()": lambda L: dense(L).to_sparse_bsr(2).is_coalesced(),
    "csc.crow_indices()": lambda L: dense(L).to_sparse_csc().crow_indices(),
    "bsr.row_indices()": lambda L: dense(L).to_sparse_bsr(2).row_indices(),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](torchlike)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_valuewise_ops_and_sum_keep_the_layout():
    for f in (lambda s: s * 2, lambda s: s.abs(), lambda s: torchlike.sum(s) if isinstance(s, torchlike.Tensor)
              else torch.sum(s)):
        ours, theirs = f(dense(torchlike).to_sparse_csc()), f(dense(torch).to_sparse_csc())
        assert repr(ours.layout) == repr(theirs.layout)
        np.testing.assert_allclose(ours.to_dense().numpy(), theirs.to_dense().numpy())
