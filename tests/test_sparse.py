"""Sparse COO/CSR tensors (torchlike.sparse) checked against torch: construction, coalesce, conversions,
products and their gradients, sparse.sum, sparse.softmax, repr, errors."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning"),
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning"),
              pytest.mark.filterwarnings("ignore:torch.sparse.SparseTensor.* is deprecated:UserWarning")]

RNG = np.random.default_rng(0)
IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])  # (0, 2) appears twice: uncoalesced
VAL = np.array([3., 4., 5., 1., -2.], np.float32)


def both(lib, idx=IDX, val=VAL, size=(3, 3), **kw):
    return lib.sparse_coo_tensor(lib.from_numpy(idx.copy()), lib.from_numpy(val.copy()), size, **kw)


def np_(t):
    return t.detach().numpy()


def same(ours, theirs, rtol=1e-5, atol=1e-6):
    assert type(ours.layout) is torchlike.layout and repr(ours.layout) == repr(theirs.layout)
    if theirs.layout != torch.strided:
        assert ours.is_sparse == theirs.is_sparse
        ours, theirs = ours.to_dense(), theirs.to_dense()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(np_(ours), np_(theirs), rtol=rtol, atol=atol)


def test_construction_metadata_and_repr_match_torch():
    s, t = both(torchlike), both(torch)
    assert s.is_sparse and s.layout is torchlike.sparse_coo and not s.is_sparse_csr
    for f in ("_nnz", "sparse_dim", "dense_dim", "is_coalesced", "dim", "numel"):
        assert getattr(s, f)() == getattr(t, f)(), f
    assert tuple(s.shape) == tuple(t.shape) and s.size(1) == t.size(1)
    assert repr(s) == repr(t)
    assert repr(s.coalesce()) == repr(t.coalesce())
    assert repr(s.double()) == repr(t.double())
    assert repr(both(torchlike, requires_grad=True)) == repr(both(torch, requires_grad=True))
    li = [[0, 1], [1, 0]]
    assert repr(torchlike.sparse_coo_tensor(li, [1, 2], [2, 2])) == repr(torch.sparse_coo_tensor(li, [1, 2], [2, 2]))
    assert repr(torchlike.sparse_coo_tensor(size=(2, 3))) == repr(torch.sparse_coo_tensor(size=(2, 3)))
    # the size is inferred from the indices when omitted; hybrid (dense trailing dims) values
    same(torchlike.sparse_coo_tensor(li, [1., 2.]), torch.sparse_coo_tensor(li, [1., 2.]))
    hv = [[1., 2.], [3., 4.]]
    h, ht = torchlike.sparse_coo_tensor([[0, 2]], hv, (3, 2)), torch.sparse_coo_tensor([[0, 2]], hv, (3, 2))
    assert (h.sparse_dim(), h.dense_dim()) == (ht.sparse_dim(), ht.dense_dim()) and repr(h) == repr(ht)
    same(h, ht)


def test_coalesce_sums_duplicates_in_sorted_order():
    s, t = both(torchlike).coalesce(), both(torch).coalesce()
    assert s.is_coalesced() and t.is_coalesced()
    np.testing.assert_array_equal(s.indices().numpy(), t.indices().numpy())
    np.testing.assert_array_equal(s.values().numpy(), t.values().numpy())
    assert s.coalesce() is s
    # values()/indices() of an uncoalesced tensor are errors in torch; _values()/_indices() are not
    for name in ("indices", "values"):
        with pytest.raises(RuntimeError) as ours:
            getattr(both(torchlike), name)()
        with pytest.raises(RuntimeError) as theirs:
            getattr(both(torch), name)()
        assert str(ours.value) == str(theirs.value)
    np.testing.assert_array_equal(both(torchlike)._values().numpy(), both(torch)._values().numpy())


@pytest.mark.parametrize("sparse_dim", [None, 1])
def test_dense_to_sparse_round_trip(sparse_dim):
    d = RNG.standard_normal((4, 3)).astype(np.float32) * (RNG.random((4, 3)) < 0.5)
    d[2] = 0
    args = () if sparse_dim is None else (sparse_dim,)
    s, t = torchlike.from_numpy(d).to_sparse(*args), torch.from_numpy(d).to_sparse(*args)
    assert repr(s) == repr(t)
    np.testing.assert_array_equal(s.to_dense().numpy(), d)
    same(s, t)
    assert torchlike.from_numpy(d).to_dense() is not None and torchlike.ones(2).to_dense().layout is torchlike.strided


def test_csr_construction_conversion_and_product():
    crow, col, val = [0, 2, 3], [0, 2, 1], [1., 2., 3.]
    c, ct = torchlike.sparse_csr_tensor(crow, col, val, (2, 3)), torch.sparse_csr_tensor(crow, col, val, (2, 3))
    assert repr(c) == repr(ct) and c.is_sparse_csr and not c.is_sparse and c.layout is torchlike.sparse_csr
    np.testing.assert_array_equal(c.crow_indices().numpy(), ct.crow_indices().numpy())
    np.testing.assert_array_equal(c.col_indices().numpy(), ct.col_indices().numpy())
    same(c, ct)
    assert repr(c.to_sparse_coo()) == repr(ct.to_sparse_coo())
    d = np.array([[0., 1.], [2., 0.]], np.float32)
    assert repr(torchlike.from_numpy(d).to_sparse_csr()) == repr(torch.from_numpy(d).to_sparse_csr())
    assert repr(both(torchlike).to_sparse_csr()) == repr(both(torch).to_sparse_csr())
    x = RNG.standard_normal((3, 2)).astype(np.float32)
    same(c @ torchlike.from_numpy(x), ct @ torch.from_numpy(x))
    with pytest.raises(RuntimeError) as ours:
        c.indices()
    with pytest.raises(RuntimeError) as theirs:
        ct.indices()
    assert str(ours.value) == str(theirs.value)


def _mm_grads(lib, how, leaf_sparse):
    x = lib.from_numpy(RNG_X.copy()).requires_grad_()
    vals = lib.from_numpy(VAL.copy()).requires_grad_()
    s = lib.sparse_coo_tensor(lib.from_numpy(IDX.copy()), vals if not leaf_sparse else vals.detach(), (3, 3),
                              requires_grad=leaf_sparse)
    y = {"sparse.mm": lambda: lib.sparse.mm(s, x), "spmm": lambda: lib.spmm(s, x), "@": lambda: s @ x,
         "mm": lambda: lib.mm(s, x), "dense@sparse": lambda: x.t() @ s,
         "t()": lambda: lib.sparse.mm(s.t(), x)}[how]()
    w = lib.from_numpy(RNG_W[: y.shape[0], : y.shape[1]].copy())
    (y * w).sum().backward()
    return y, x.grad, (s.grad if leaf_sparse else vals.grad)


RNG_X = RNG.standard_normal((3, 4)).astype(np.float32)
RNG_W = RNG.standard_normal((4, 4)).astype(np.float32)


@pytest.mark.parametrize("how", ["sparse.mm", "spmm", "@", "mm", "dense@sparse", "t()"])
def test_sparse_dense_products_and_gradients(how):
    # gradients reach the values (a dense tensor the sparse tensor was built from) and the dense operand
    yo, gxo, gvo = _mm_grads(torchlike, how, False)
    yt, gxt, gvt = _mm_grads(torch, how, False)
    same(yo, yt)
    same(gxo, gxt)
    same(gvo, gvt)


def test_sparse_leaf_gets_a_sparse_gradient_on_its_coalesced_pattern():
    _, gxo, go = _mm_grads(torchlike, "sparse.mm", True)
    _, gxt, gt = _mm_grads(torch, "sparse.mm", True)
    assert go.is_sparse and gt.is_sparse
    same(gxo, gxt)
    np.testing.assert_array_equal(go._indices().numpy(), gt._indices().numpy())
    np.testing.assert_allclose(go._values().numpy(), gt._values().numpy(), rtol=1e-5, atol=1e-6)
    s, t = both(torchlike, requires_grad=True), both(torch, requires_grad=True)
    s.to_dense().pow(2).sum().backward()
    t.to_dense().pow(2).sum().backward()
    assert repr(s.grad) == repr(t.grad)


def test_matrix_vector_and_shape_errors():
    s, t = both(torchlike), both(torch)
    v = np.array([1., 2., 3.], np.float32)
    same(s @ torchlike.from_numpy(v), t @ torch.from_numpy(v))
    with pytest.raises(RuntimeError) as ours:
        torchlike.sparse.mm(s, torchlike.ones(2, 2))
    with pytest.raises(RuntimeError) as theirs:
        torch.sparse.mm(t, torch.ones(2, 2))
    assert str(ours.value) == str(theirs.value)


def test_arithmetic_with_dense_and_scalars():
    s, t = both(torchlike), both(torch)
    d = RNG.standard_normal((3, 3)).astype(np.float32)
    same(torchlike.from_numpy(d) + s, torch.from_numpy(d) + t)
    same(torchlike.from_numpy(d) - s, torch.from_numpy(d) - t)
    same(s * 2, t * 2)
    same(2.5 * s, 2.5 * t)
    same(s / 4, t / 4)
    same(-s, -t)
    same(s * torchlike.from_numpy(d), t * torch.from_numpy(d))
    same(s + s, t + t)
    same(s.t(), t.t())
    same(s.transpose(0, 1), t.transpose(0, 1))
    with pytest.raises(RuntimeError) as ours:
        s + torchlike.from_numpy(d)
    with pytest.raises(RuntimeError) as theirs:
        t + torch.from_numpy(d)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1)])
def test_sparse_sum(dim):
    args = () if dim is None else (dim,)
    s, t = torchlike.sparse.sum(both(torchlike), *args), torch.sparse.sum(both(torch), *args)
    assert s.is_sparse == t.is_sparse
    if t.is_sparse:
        assert repr(s) == repr(t)
    same(s, t)
    same(both(torchlike).sum(*args), both(torch).sum(*args))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_sparse_softmax_values_and_gradient(fn, dim):
    def run(lib):
        vals = lib.from_numpy(VAL.copy()).requires_grad_()
        s = lib.sparse_coo_tensor(lib.from_numpy(IDX.copy()), vals * 1.5, (3, 3))
        y = getattr(lib.sparse, fn)(s, dim)
        (y.to_dense() * lib.from_numpy(RNG_W[:3, :3].copy())).sum().backward()
        return y, vals.grad
    (yo, go), (yt, gt) = run(torchlike), run(torch)
    assert yo.is_sparse and yo.is_coalesced()
    np.testing.assert_array_equal(yo.indices().numpy(), yt.indices().numpy())
    np.testing.assert_allclose(yo.values().detach().numpy(), yt.values().detach().numpy(), rtol=1e-5, atol=1e-6)
    same(go, gt)


def test_errors_match_torch():
    cases = [
        lambda L: L.sparse_coo_tensor(L.tensor([[0, 1]]), L.tensor([1., 2., 3.]), (3,)),
        lambda L: L.sparse_coo_tensor(L.tensor([[0, 1], [1, 0]]), L.tensor([1., 2.]), (2,)),
        lambda L: both(L).reshape(9),
        lambda L: both(L).numpy(),
        lambda L: L.ones(3, 3).to_sparse(3),
        lambda L: L.sparse_coo_tensor(L.tensor([0, 1, 2]), L.tensor([1., 2., 3.])),
        lambda L: L.sparse_coo_tensor([[0, 1]], [[1., 2.], [3., 4.]], (2, 3)),
        lambda L: L.sparse.mm(L.eye(2).to_sparse(), L.ones(2, 2, dtype=L.float64)),
        lambda L: L.sparse.mm(L.ones(2, 2, 2).to_sparse(), L.ones(2, 2)),
        # torch checks index bounds only under check_sparse_tensor_invariants; torchlike always does
        lambda L: L.sparse_coo_tensor(L.tensor([[0, 5]]), L.tensor([1., 2.]), (3,)),
        lambda L: L.sparse_coo_tensor(L.tensor([[-1, 1]]), L.tensor([1., 2.]), (3,)),
        lambda L: L.sparse_csr_tensor([0, 1, 2], [1, 5], [1., 2.], (2, 2)),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs, torch.sparse.check_sparse_tensor_invariants():
            case(torch)
        with pytest.raises(Exception) as ours:
            case(torchlike)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)
    # ops without a sparse kernel: torch's NotImplementedError text, naming the op
    for case, op in [(lambda L: both(L).view(9), "view"), (lambda L: both(L).mean(), "mean"),
                     (lambda L: both(L).exp(), "exp"), (lambda L: L.sparse.softmax(L.ones(2, 2), 1),
                                                         "_sparse_softmax")]:
        with pytest.raises(NotImplementedError) as theirs:
            case(torch)
        with pytest.raises(NotImplementedError) as ours:
            case(torchlike)
        assert str(ours.value).startswith(f"Could not run 'aten::{op}")
        assert str(theirs.value).split(".")[0] in str(ours.value)
        assert "docs/differences.md" in str(ours.value)


def test_pickle_clone_detach_to():
    s = both(torchlike, requires_grad=True)
    r = pickle.loads(pickle.dumps(s))
    assert repr(r) == repr(s) and r.requires_grad
    t = both(torch, requires_grad=True)
    assert repr(s.clone()) == repr(t.clone()) and repr(s.detach()) == repr(t.detach())
    assert s.to(torchlike.float64).dtype is torchlike.float64 and s.to(torchlike.float64).is_sparse
    import copy
    assert repr(copy.deepcopy(s)) == repr(s)


def test_gcn_program_trains_like_torch():
    """A two-layer GCN and a one-head GAT on a sparse adjacency, 20 Adam steps: loss curves equal torch's."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "programs", "sparse_gcn_gat.py")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(here))

    def run(runner):
        cmd = [sys.executable] + (["-m", "torchlike", "run"] if runner else []) + [script]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode == 0, out.stderr[-3000:]
        return [line.split() for line in out.stdout.splitlines() if line.strip()]
    expected, ours = run(False), run(True)
    assert len(ours) == len(expected) == 40
    for a, b in zip(ours, expected):
        assert a[:3] == b[:3]
        np.testing.assert_allclose(float(a[3]), float(b[3]), rtol=2e-4, atol=1e-6, err_msg=" ".join(a))
    gcn = [float(r[3]) for r in ours if r[0] == "gcn"]
    assert gcn[-1] < gcn[0]


@pytest.mark.parametrize("weights_only", [True, False])
def test_save_load_in_torch_format(tmp_path, weights_only):
    s, c = both(torch), torch.sparse_csr_tensor([0, 1, 2], [1, 0], [1., 2.], (2, 2))
    path = str(tmp_path / "sparse.pt")
    torch.save({"s": s, "c": c}, path)
    ours = torchlike.load(path, weights_only=weights_only)
    assert repr(ours["s"]) == repr(s) and repr(ours["c"]) == repr(c)
    torchlike.save(ours, path)
    back = torch.load(path, weights_only=weights_only)
    assert repr(back["s"]) == repr(s) and repr(back["c"]) == repr(c)


def test_sum_add_and_to_dense_gradients_reach_values_and_dense():
    def run(lib):
        vals = lib.from_numpy(VAL.copy()).requires_grad_()
        d = lib.from_numpy(RNG_W[:3, :3].copy()).requires_grad_()
        s = lib.sparse_coo_tensor(lib.from_numpy(IDX.copy()), vals * 2, (3, 3))
        w = lib.from_numpy(RNG_W[1:, 1:].copy())
        loss = ((d + s) * w).sum() + lib.sparse.sum(s, 1).to_dense().pow(2).sum() + (s * d).to_dense().sum()
        loss = loss + lib.sparse.sum(s.coalesce() * 0.5)
        loss.backward()
        return loss, vals.grad, d.grad
    for a, b in zip(run(torchlike), run(torch)):
        same(a, b, rtol=1e-5, atol=1e-5)


def test_pygcn_style_adjacency_from_scipy_like_coo_arrays():
    """pygcn builds its adjacency with the legacy torch.sparse.FloatTensor(indices, values, shape)."""
    rows, cols = np.array([0, 1, 2, 2]), np.array([1, 0, 0, 2])
    data = np.array([.5, .5, .25, .75], np.float32)

    def build(lib):
        idx = lib.from_numpy(np.vstack((rows, cols)).astype(np.int64))
        adj = lib.sparse.FloatTensor(idx, lib.from_numpy(data.copy()), lib.Size((3, 3)))
        x = lib.from_numpy(RNG_X.copy()).requires_grad_()
        out = lib.spmm(adj, x)
        out.sum().backward()
        return adj, out, x.grad
    (a, o, g), (at, ot, gt) = build(torchlike), build(torch)
    assert repr(a) == repr(at)
    same(o, ot)
    same(g, gt)


def test_sparse_buffer_in_a_module_moves_saves_and_loads():
    def run(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("adj", lib.from_numpy(np.eye(3, dtype=np.float32)).to_sparse())
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x):
                return lib.sparse.mm(self.adj, self.lin(x))
        lib.manual_seed(0)
        m = M().double()
        m2 = M().double()
        m2.load_state_dict(m.state_dict())
        x = lib.from_numpy(RNG_X[:, :2].astype(np.float64).copy())
        return m.adj, m2.adj, m2(x)
    ours, theirs = run(torchlike), run(torch)
    for a, b in zip(ours, theirs):
        assert repr(a.detach()) == repr(b.detach())


def test_to_sparse_gradient_reaches_the_dense_source():
    def run(lib):
        x = lib.from_numpy(np.array([[0., 2.], [3., 0.]], np.float32)).requires_grad_()
        lib.sparse.mm(x.to_sparse(), lib.from_numpy(RNG_X[:2].copy())).pow(2).sum().backward()
        return x.grad
    same(run(torchlike), run(torch))


@pytest.mark.parametrize("name,args", [("abs", ()), ("sqrt", ()), ("relu", ()), ("tanh", ()), ("pow", (2,)),
                                       ("sign", ()), ("isnan", ()), ("square", ())])
def test_valuewise_ops_coalesce_like_torch(name, args):
    def run(lib):
        vals = lib.from_numpy(np.abs(VAL) + 0.5).requires_grad_()
        s = lib.sparse_coo_tensor(lib.from_numpy(IDX.copy()), vals * 1.0, (3, 3))
        y = getattr(s, name)(*args)
        if y.dtype.is_floating_point and name not in ("sqrt", "tanh"):  # torch has no sparse backward for these
            (y.to_dense() * lib.from_numpy(RNG_W[:3, :3].copy())).sum().backward()
        return y, vals.grad
    (yo, go), (yt, gt) = run(torchlike), run(torch)
    assert yo.is_coalesced() == yt.is_coalesced()
    assert repr(yo.detach()) == repr(yt.detach())
    if gt is not None:
        same(go, gt)


def test_custom_function_saving_a_sparse_tensor_pygat_style():
    """pyGAT's sparse layer: an autograd.Function builds a sparse matrix, saves it, multiplies with
    torch.matmul, and in backward reads a._indices() and a.t().matmul(grad)."""
    def run(lib):
        class SpMM(lib.autograd.Function):
            @staticmethod
            def forward(ctx, indices, values, shape, b):
                a = lib.sparse_coo_tensor(indices, values, shape)
                ctx.save_for_backward(a, b)
                ctx.N = shape[0]
                return lib.matmul(a, b)

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                dense = g.matmul(b.t())
                edge = a._indices()[0, :] * ctx.N + a._indices()[1, :]
                return None, dense.view(-1)[edge], None, a.t().matmul(g)
        edge = lib.from_numpy(IDX[:, [0, 1, 2, 4]].copy())
        e = lib.from_numpy(VAL[[0, 1, 2, 4]].copy()).requires_grad_()
        h = lib.from_numpy(RNG_X[:3].copy()).requires_grad_()
        out = SpMM.apply(edge, e.exp(), lib.Size([3, 3]), h)
        (out * out).sum().backward()
        return out, e.grad, h.grad
    for a, b in zip(run(torchlike), run(torch)):
        same(a, b, rtol=1e-5, atol=1e-5)


def test_sparse_adam_takes_a_real_row_sparse_gradient():
    g = RNG.standard_normal((5, 3)).astype(np.float32)
    g[[1, 3]] = 0.0
    p0 = RNG.standard_normal((5, 3)).astype(np.float32)

    def run(lib):
        p = lib.from_numpy(p0.copy()).requires_grad_()
        opt = lib.optim.SparseAdam([p], lr=0.1)
        for _ in range(3):
            p.grad = lib.from_numpy(g.copy()).to_sparse(1).coalesce()
            opt.step()
        return p
    same(run(torchlike), run(torch))


def test_compile_captured_sparse_works_and_sparse_argument_raises():
    s = torchlike.from_numpy(np.eye(3, dtype=np.float32)).to_sparse()
    x = torchlike.from_numpy(RNG_X[:, :2].copy())
    f = torchlike.compile(lambda v: torchlike.sparse.mm(s, v) * 2)
    np.testing.assert_allclose(f(x).numpy(), 2 * RNG_X[:, :2], rtol=1e-6)
    g = torchlike.compile(lambda a, v: torchlike.sparse.mm(a, v))
    with pytest.raises(NotImplementedError, match="compiled"):
        g(s, x)


def test_sparse_accessors_of_a_strided_tensor_are_torchs():
    """A dense tensor's coalesce/indices/values/is_coalesced/crow_indices/... raise torch's layout RuntimeError
    (were NotImplementedError); sparse_dim is 0 and dense_dim its ndim; the sparse tensors keep theirs."""

    def run(L):
        t, out = L.ones(2, 3), []
        for name in ("coalesce", "indices", "values", "is_coalesced", "sparse_dim", "dense_dim", "crow_indices",
                     "col_indices", "ccol_indices", "row_indices"):
            try:
                out.append((name, getattr(t, name)()))
            except RuntimeError as e:
                out.append((name, str(e)))
        s = L.eye(3).to_sparse()
        c = L.eye(3).to_sparse_csr()
        out.append((s.sparse_dim(), s.dense_dim(), s.is_coalesced(), s.indices().tolist(), c.crow_indices().tolist()))
        return out
    assert run(torchlike) == run(torch)
