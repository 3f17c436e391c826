"""Ops of op_db[340:702] that ``python -m conformance --strict`` found apart from torch (the second strict
sweep): half-precision special functions, small-int reductions, non-finite edges.  Expected values come
from torch."""
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import to_tl as _tl, to_torch as _torch  # noqa: E402


def _close(actual, expected, **kw):
    a = _torch(actual)
    assert a.dtype == expected.dtype
    torch.testing.assert_close(a, expected, equal_nan=True, **kw)


HALF = [torch.float16, torch.bfloat16]


# --- polygamma ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_half_computed_in_float32(n, dtype):
    # negative non-integers near the poles: the reflection's sine in half precision is far off
    x = torch.tensor([-8.0, -3.7, -2.2, -0.3, 0.0, 0.7, 2.25, 6.0, 10.5]).to(dtype)
    _close(torchlike.polygamma(n, _tl(x)), torch.polygamma(n, x))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_nonfinite_values_and_grad(n):
    # -inf used to loop forever (an infinite recurrence bound); trigamma(+inf) is 0 in torch
    x = torch.tensor([float("inf"), -float("inf"), float("nan"), 3.0, -3.0, -2.5, -1e5], dtype=torch.float64)
    t = x.clone().requires_grad_()
    expected = torch.polygamma(n, t)
    expected.backward(torch.ones_like(t))
    lx = _tl(x).requires_grad_()
    got = torchlike.polygamma(n, lx)
    got.backward(torchlike.ones_like(lx))
    _close(got.detach(), expected.detach())
    _close(lx.grad, t.grad)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16])
def test_polygamma_small_int_input(dtype):
    x = torch.tensor([-8, 6, 0, -5, -1, 2, 9], dtype=dtype) if dtype is not torch.uint8 else \
        torch.tensor([0, 1, 2, 9, 200], dtype=dtype)
    for n in (0, 1, 2):
        _close(torchlike.polygamma(n, _tl(x)), torch.polygamma(n, x))


# --- einsum ---------------------------------------------------------------------------------------
EINSUM_INT_CASES = [("i->", "v"), ("ij->i", "a"), ("ii->i", "a"), ("ii->", "a"), ("ii", "a"), ("iji->j", "c"),
                    ("i...->...", "a"), ("...->", "v"), ("ij,j->i", "av"), ("i,i->", "vv"), ("i,j->", "vv"),
                    ("i,j->i", "vv"), ("j,i->i", "vv"), ("i,j->ij", "vv"), ("ij,jk,k->i", "aav"),
                    ("ij,kj->ik", "aa"), ("ijk,ik->j", "ca"), ("...ik,...j->ij", "cv"), ("ij,j", "av"),
                    ("ij,Ab->ijAb", "aa")]


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.int8, torch.uint8, torch.int64])
@pytest.mark.parametrize("eq,which", EINSUM_INT_CASES)
def test_einsum_integer_result_dtype(eq, which, dtype):
    # torch sums each operand's own labels first, promoting small ints to int64
    vals = {"v": torch.arange(3).to(dtype), "a": torch.arange(9).reshape(3, 3).to(dtype),
            "c": torch.arange(27).reshape(3, 3, 3).to(dtype)}
    ops = [vals[w] for w in which]
    _close(torchlike.einsum(eq, *[_tl(o) for o in ops]), torch.einsum(eq, *ops))


def test_einsum_mixed_pair_error_as_torch():
    a, v = torch.arange(9, dtype=torch.int16).reshape(3, 3), torch.arange(3, dtype=torch.int16)
    with pytest.raises(RuntimeError) as t_err:
        torch.einsum("ij,j->", a, v)
    with pytest.raises(RuntimeError) as l_err:
        torchlike.einsum("ij,j->", _tl(a), _tl(v))
    assert str(l_err.value) == str(t_err.value)


# --- kron of bools, zeta edges --------------------------------------------------------------------
def test_kron_bool_is_logical_and_of_blocks():
    a = torch.tensor([[True, False], [True, True]])
    b = torch.tensor([[False, True, True]])
    _close(torchlike.kron(_tl(a), _tl(b)), torch.kron(a, b))


def test_zeta_edges_as_torch():
    # x == 1 -> inf; x < 1 -> nan; q a non-positive integer -> inf (JAX's zeta gives other values there)
    xs = [0.0, 1.0, 2.0, -1.0, 0.5, 3.0, float("nan")]
    qs = [0.0, 1.0, -1.0, -2.5, 2.0, 0.5, -3.0]
    x = torch.tensor([a for a in xs for _ in qs], dtype=torch.float64)
    q = torch.tensor([b for _ in xs for b in qs], dtype=torch.float64)
    _close(torchlike.special.zeta(_tl(x), _tl(q)), torch.special.zeta(x, q))
    xb, qb = torch.tensor([True, False, True, False]), torch.tensor([True, True, False, False])
    _close(torchlike.special.zeta(_tl(xb), _tl(qb)), torch.special.zeta(xb, qb))


# --- grid_sampler_2d: torch's integer-coded grid_sample ----------------------------------------------
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sampler_2d_matches_torch(mode, padding, align):
    g = torch.Generator().manual_seed(mode * 6 + padding * 2 + align)
    x = torch.randn(2, 3, 5, 6, generator=g, dtype=torch.float64)
    grid = torch.rand(2, 4, 4, 2, generator=g, dtype=torch.float64) * 2.4 - 1.2
    _close(torchlike.grid_sampler_2d(_tl(x), _tl(grid), mode, padding, align),
           torch.grid_sampler_2d(x, grid, mode, padding, align))
    _close(torchlike.grid_sampler(_tl(x), _tl(grid), mode, padding, align),
           torch.grid_sampler(x, grid, mode, padding, align))


# --- put(accumulate=True) of bools ----------------------------------------------------------------
@pytest.mark.parametrize("accumulate", [False, True])
def test_put_bool_matches_torch(accumulate):
    x = torch.tensor([[True, False, False], [False, False, True]])
    idx = torch.tensor([1, 1, 2, -1, 4])
    src = torch.tensor([True, True, False, False, True])
    _close(torchlike.put(_tl(x), _tl(idx), _tl(src), accumulate=accumulate),
           torch.put(x, idx, src, accumulate=accumulate))


# --- hash_tensor ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int32, torch.int8, torch.uint8, torch.bool])
def test_hash_tensor_matches_torch(dtype):
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(3, 4, generator=g) * 50).to(dtype)
    for kw in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": 0, "keepdim": True}):
        e, a = torch.hash_tensor(x, **kw), torchlike.hash_tensor(_tl(x), **kw)
        assert str(a.dtype) == str(e.dtype) == "torch.uint64"
        assert a.tolist() == e.tolist()
    assert _tl(x).hash_tensor().item() == x.hash_tensor().item()


def test_hash_tensor_errors_as_torch():
    for x, tx in ((torch.empty(0), torchlike.empty(0)), (torch.ones(2, dtype=torch.complex64),
                                                           torchlike.ones(2, dtype=torchlike.complex64))):
        with pytest.raises(Exception) as t_err:
            torch.hash_tensor(x)
        with pytest.raises(Exception) as l_err:
            torchlike.hash_tensor(tx)
        assert type(l_err.value) is type(t_err.value) and str(l_err.value) == str(t_err.value)


# --- special.entr's gradient ----------------------------------------------------------------------
def test_entr_grad_matches_torch_at_edges():
    x = torch.tensor([0.0, -1.0, 2.0, float("inf"), float("nan"), -0.0, 0.25], dtype=torch.float64,
                     requires_grad=True)
    torch.special.entr(x).backward(torch.ones_like(x))
    lx = _tl(x.detach()).requires_grad_()
    got = torchlike.special.entr(lx)
    got.backward(torchlike.ones_like(lx))
    _close(got.detach(), torch.special.entr(x.detach()))
    _close(lx.grad, x.grad)


# --- torch.softmax / torch.log_softmax take out= ----------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_out_matches_torch(name):
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    out = torch.empty(3, 5, dtype=torch.float64)
    expected = getattr(torch, name)(x, 1, out=out)
    lout = torchlike.empty(3, 5, dtype=torchlike.float64)
    got = getattr(torchlike, name)(_tl(x), 1, out=lout)
    assert got is lout and expected is out
    _close(lout, out)
