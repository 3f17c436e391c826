"""Sorting and searching compared with torch: values, indices (stability, NaN order), dtypes, grads, errors."""
import numpy as np
import pytest
import torch

import torchlike
from _reduce_helpers import NAN, arr, both
from conftest import assert_close_values, raises_like_torch, to_tl, torch_or_tl


def _distinct(shape, seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    return (rng.permutation(int(np.prod(shape))).reshape(shape) - 4).astype(dtype)


@pytest.mark.parametrize("dt", ["float32", "int64", "uint8", "bool"])
def test_sort_ties_stable(dt):
    a = arr((3, 7), dt, ties=True, lo=0, hi=3)
    for dim in (0, -1):
        for desc in (False, True):
            both(lambda L, x: L.sort(x, dim, desc), a, grad=dim == 0 and desc)
            both(lambda L, x: x.sort(dim=dim, descending=desc, stable=True), a)
            both(lambda L, x: L.argsort(x, dim, desc), a)
            both(lambda L, x: x.argsort(stable=True, dim=dim, descending=desc), a)
    both(lambda L, x: L.msort(x), a, grad=True)


def test_sort_nan_and_signed_zero():
    a = np.array([[1., NAN, -0., 0., 3., NAN, -np.inf, np.inf, -0.]], np.float32)
    for desc in (False, True):
        both(lambda L, x: L.sort(x, descending=desc, stable=True), a, grad=True)
        both(lambda L, x: L.argsort(x, descending=desc, stable=True), a)
    raises_like_torch(lambda L, x: L.sort(x), np.array([1 + 1j], np.complex64))
    both(lambda L, x: L.sort(x), np.array(2.0, np.float32))
    both(lambda L, x: L.sort(x, 0), np.zeros((0, 2), np.float32))


def test_topk_kthvalue():
    a = _distinct((4, 6))
    for k in (1, 3, 6):
        both(lambda L, x: L.topk(x, k), a, grad=k == 3)
        both(lambda L, x: x.topk(k, 1, largest=False), a)
    both(lambda L, x: L.topk(x, 2, 0), a)
    raises_like_torch(lambda L, x: L.topk(x, 7), a)
    both(lambda L, x: L.topk(x, 0), a)
    n = np.array([1., NAN, 3., 2.], np.float32)
    both(lambda L, x: L.topk(x, 2), n)
    both(lambda L, x: L.topk(x, 2, largest=False), n)
    raises_like_torch(lambda L, x: L.topk(x, 1), np.array([True, False]))
    for k in (1, 4):
        both(lambda L, x: L.kthvalue(x, k, 0), a, grad=k == 1)
        both(lambda L, x: x.kthvalue(k, keepdim=True), a)
    both(lambda L, x: L.kthvalue(x, 4), n)
    raises_like_torch(lambda L, x: L.kthvalue(x, 5), n)
    raises_like_torch(lambda L, x: L.kthvalue(x, 1), np.zeros(0, np.float32))
    both(lambda L, x: L.kthvalue(x, 2, 1), _distinct((3, 4), dtype="int64"))


def test_unique():
    a = np.array([[3, 1, 2], [1, 3, 3], [3, 1, 2]], np.int64)
    for ri in (False, True):
        for rc in (False, True):
            both(lambda L, x: L.unique(x, return_inverse=ri, return_counts=rc), a)
            both(lambda L, x: x.unique(sorted=True, return_inverse=ri, return_counts=rc, dim=0), a)
            both(lambda L, x: L.unique(x, return_inverse=ri, return_counts=rc, dim=1), a)
            both(lambda L, x: L.unique_consecutive(x, return_inverse=ri, return_counts=rc), a)
            both(lambda L, x: L.unique_consecutive(x, return_inverse=ri, return_counts=rc, dim=0), a)
    both(lambda L, x: L.unique(x), np.array([1., NAN, NAN, 1., -0., 0.], np.float32))
    both(lambda L, x: L.unique(x, return_counts=True), np.array([True, False, True]))
    both(lambda L, x: L.unique(x, return_inverse=True), np.zeros((0, 2), np.float32))
    both(lambda L, x: x.unique_consecutive(return_counts=True), np.array([1., 1., 2., 2., 1.]))
    for empty in (np.zeros(0, np.float32), np.zeros((0, 3), np.int64), np.zeros((2, 0), np.float32)):
        both(lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True), empty)
    both(lambda L, x: L.unique_consecutive(x, return_counts=True, dim=0), np.zeros((0, 3), np.int64))


def test_searchsorted_bucketize():
    seq = np.array([1, 3, 3, 5, 7], np.int64)
    v = np.array([[0, 3, 4], [7, 8, 5]], np.int64)
    for right in (False, True):
        both(lambda L, s, x: L.searchsorted(s, x, right=right), seq, v)
        both(lambda L, s, x: L.searchsorted(s, x, side="right" if right else "left", out_int32=True), seq, v)
        both(lambda L, s, x: L.bucketize(x, s, right=right), seq, v)
        both(lambda L, s, x: L.bucketize(x, s, right=right, out_int32=True), seq, v)
    both(lambda L, s: L.searchsorted(s, 3), seq)
    both(lambda L, s: L.bucketize(4, s), seq)
    both(lambda L, s, x: L.searchsorted(s, x), seq, v.astype(np.float32) + 0.5)
    s2 = np.array([[1., 2., 3.], [2., 4., 6.]], np.float64)
    both(lambda L, s, x: L.searchsorted(s, x, right=True), s2, np.array([[2., 0.5], [5., 6.]]))
    srt = np.array([3, 1, 2, 0], np.int64)
    both(lambda L, s, o, x: L.searchsorted(s, x, sorter=o), np.array([7, 3, 5, 1], np.int64), srt, v)
    raises_like_torch(lambda L, s, x: L.searchsorted(s, x, side="left", right=True), seq, v)
    both(lambda L, s, x: L.searchsorted(s, x), s2, v)
    raises_like_torch(lambda L, s, x: L.bucketize(x, s), s2, v)



def test_convert_indices_between_coo_and_csr():
    # torch_geometric's index2ptr (HGTConv, CSR adjacency) calls torch._convert_indices_from_coo_to_csr
    rows = np.array([0, 0, 2, 2, 2, 4], np.int64)
    for size in (5, 6, 8):  # (indices >= size write out of bounds in torch's kernel)
        for out_int32 in (False, True):
            both(lambda L, r: L._convert_indices_from_coo_to_csr(r, size, out_int32=out_int32), rows)
    both(lambda L, r: L._convert_indices_from_coo_to_csr(r, 6), rows.astype(np.int32))  # (torch crashes on size 2)
    raises_like_torch(lambda L, r: L._convert_indices_from_coo_to_csr(r, 2), rows.astype(np.float32))
    crow, col = np.array([0, 2, 2, 5], np.int64), np.array([1, 0, 2, 1, 0], np.int64)
    for out_int32 in (False, True):
        for transpose in (False, True):
            both(lambda L, c, k: L._convert_indices_from_csr_to_coo(c, k, out_int32=out_int32, transpose=transpose),
                 crow, col)

def test_bincount():
    x = np.array([0, 2, 2, 5, 1], np.int64)
    both(lambda L, a: L.bincount(a), x)
    both(lambda L, a: a.bincount(minlength=9), x)
    for wdt in ("float32", "float64", "int64", "float16"):
        both(lambda L, a, w: L.bincount(a, w), x, arr((5,), wdt))
    both(lambda L, a: L.bincount(a), np.zeros(0, np.int64))
    both(lambda L, a: L.bincount(a, minlength=3), np.zeros(0, np.int64))
    raises_like_torch(lambda L, a: L.bincount(a), np.array([1, -1]))
    raises_like_torch(lambda L, a: L.bincount(a), np.array([1., 2.]))
    raises_like_torch(lambda L, a: L.bincount(a), np.array([[1, 2]]))


def test_histc_histogram():
    a = arr((50,), "float32", seed=3)
    for bins, lo, hi in ((10, 0, 0), (4, -1, 1), (7, -2.5, 3.0), (1, 0, 0)):
        both(lambda L, x: L.histc(x, bins, lo, hi), a)
    both(lambda L, x: x.histc(bins=4, min=0, max=3), np.array([1., 2., 1., 3., 0.], np.float64))
    both(lambda L, x: L.histc(x, 5), np.full(3, 2.0, np.float32))
    raises_like_torch(lambda L, x: L.histc(x, 5, 3, 1), a)
    raises_like_torch(lambda L, x: L.histc(x), np.array([1, 2]))
    for bins in (4, 9):
        both(lambda L, x: L.histogram(x, bins), a)
        both(lambda L, x: L.histogram(x, bins, range=(-1., 1.), density=True), a)
    both(lambda L, x, w: L.histogram(x, 5, weight=w), a, arr((50,), "float32", seed=4))
    both(lambda L, x: L.histogram(x, L.tensor([-1., 0., 0.5, 2.])), a)
    both(lambda L, x: L.histogram(x), a)  # bins=100 by default
    both(lambda L, x: x.histogram(density=True), a)


# (was test_core_fixes.py) --- histogram -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (5,), (5, 0, 5), (4, 4)])
@pytest.mark.parametrize("bins", [1, 3])
@pytest.mark.parametrize("weighted,density", [(False, False), (True, True), (True, False)])
def test_histogram_default_range(shape, bins, weighted, density):
    x = torch.randn(shape, dtype=torch.float64)
    w = torch.rand(shape, dtype=torch.float64) if weighted else None
    r = torch.histogram(x, bins, weight=w, density=density)
    q = torchlike.histogram(to_tl(x), bins, weight=None if w is None else to_tl(w), density=density)
    assert_close_values(q.hist, r.hist)
    assert_close_values(q.bin_edges, r.bin_edges)


@pytest.mark.parametrize("rng", [(1.0, 1.0), (0.0, 0.0), (-1.0, 2.0)])
def test_histogram_explicit_range(rng):
    for x in (torch.zeros(0), torch.ones(4), torch.randn(6)):
        r, q = torch.histogram(x, 2, range=rng), torchlike.histogram(to_tl(x), 2, range=rng)
        assert_close_values(q.hist, r.hist)
        assert_close_values(q.bin_edges, r.bin_edges)


def test_histogram_errors():
    x = torch.ones(3)
    for kw in (dict(range=(2.0, 1.0)), dict(range=(0.0, float("inf")))):
        raises_like_torch(torch_or_tl(lambda: torch.histogram(x, 2, **kw),
                                      lambda: torchlike.histogram(to_tl(x), 2, **kw)))


def test_histogram_under_compile():
    x = torch.randn(20)
    f = torchlike.compile(lambda t: torchlike.histogram(t, 4))
    q = f(to_tl(x))
    r = torch.histogram(x, 4)
    assert_close_values(q.hist, r.hist)
    assert_close_values(q.bin_edges, r.bin_edges, rtol=1e-6, atol=1e-6)


# --- multinomial without replacement: tied p / q values come out in torch's topk order ------------
def test_topk_order_is_torchs_for_ties_and_nans():
    from torchlike._stl_order import topk_order
    rs = np.random.RandomState(0)
    for t in range(150):
        n = int(rs.choice([5, 17, 50, 300, 2000]))
        k = int(rs.randint(1, n + 1)) if t % 2 else max(1, n // 70)
        v = rs.randint(0, int(rs.choice([3, 10, 1000])), n).astype(np.float32)
        if t % 7 == 0:
            v[rs.randint(0, n, 3)] = np.nan
        assert topk_order(v.tolist(), k) == torch.topk(torch.tensor(v), k).indices.tolist(), (n, k)


# --- stable=False: equal keys in torch's CPU order (libstdc++'s introsort, _stl_order) -------------------
@pytest.mark.parametrize("shape,dim", [((20,), 0), ((3, 40), -1), ((40, 3), 0), ((300,), 0), ((16384,), 0)])
@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "float64"])
def test_unstable_sort_ties_in_torchs_order(shape, dim, dt):
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(0, 3, shape).astype(dt)
    if dt == "float64":
        a.reshape(-1)[rng.integers(0, a.size, 4)] = np.nan
        a.reshape(-1)[rng.integers(0, a.size, 4)] = -0.0
    for desc in (False, True):
        both(lambda L, x: L.sort(x, dim, desc), a, grad=dt == "float32")
        both(lambda L, x: L.argsort(x, dim=dim, descending=desc), a)
        both(lambda L, x: x.sort(dim=dim, descending=desc, stable=True), a)
    both(lambda L, x: L.msort(x), a)


def test_stl_order_replays_libstdcxx_like_torch():
    """The algorithms behind sort / topk, over many tie patterns and sizes (heap fallback included)."""
    from torchlike._stl_order import sort_orders, topk_order
    rng = np.random.default_rng(0)
    for t in range(120):
        n = int(rng.choice([2, 5, 17, 50, 300, 2000]))
        v = rng.integers(0, int(rng.choice([2, 3, 10, 1000])), n).astype(np.float32)
        if t % 7 == 0:
            v[rng.integers(0, n, 3)] = np.nan
        k = int(rng.integers(1, n + 1)) if t % 2 else max(1, n // 70)
        for largest in (True, False):
            for srt in (True, False):
                assert topk_order(v.tolist(), k, largest, srt) == \
                    torch.topk(torch.tensor(v), k, largest=largest, sorted=srt).indices.tolist()
        for desc in (False, True):
            for stable in (False, True):
                expected = torch.sort(torch.tensor(v), descending=desc, stable=stable).indices.numpy()
                assert (sort_orders(v[None], desc, not stable)[0] == expected).all(), (n, desc, stable)


@pytest.mark.parametrize("shape,dim,k", [((50,), 0, 3), ((3, 40), -1, 5), ((40, 3), 0, 40), ((2000,), 0, 4),
                                         ((20,), 0, 19)])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("srt", [True, False])
def test_topk_ties_and_unsorted_in_torchs_order(shape, dim, k, largest, srt):
    rng = np.random.default_rng(k)
    a = rng.integers(0, 3, shape).astype(np.float32)
    a.reshape(-1)[rng.integers(0, a.size, 2)] = np.nan
    both(lambda L, x: L.topk(x, k, dim, largest, srt), a, grad=True)
    b = rng.permutation(a.size).reshape(shape).astype(np.float32)  # no ties: only sorted=False reorders
    both(lambda L, x: L.topk(x, k, dim, largest, srt), b)


@pytest.mark.parametrize("shape,dim", [((20,), 0), ((3, 40), -1), ((40, 3), 0), ((10,), 0)])
def test_mode_index_is_torchs(shape, dim):
    a = np.random.default_rng(1).integers(0, 4, shape).astype(np.float32)
    both(lambda L, x: L.mode(x, dim), a, grad=True)
    both(lambda L, x: L.mode(x, dim, keepdim=True), a.astype(np.int64))


@pytest.mark.parametrize("shape,dim,k", [((5,), 0, 2), ((20,), 0, 3), ((3, 60), -1, 30), ((60, 3), 0, 60),
                                         ((300,), 0, 150)])
def test_kthvalue_index_among_equal_values_is_torchs(shape, dim, k):
    rng = np.random.default_rng(k)
    a = rng.integers(0, 3, shape).astype(np.float32)
    a.reshape(-1)[rng.integers(0, a.size, 2)] = np.nan
    both(lambda L, x: L.kthvalue(x, k, dim), a, grad=True)
    both(lambda L, x: L.kthvalue(x, k, dim, keepdim=True), np.nan_to_num(a).astype(np.int64))
    from torchlike._stl_order import quick_select_index
    for t in range(100):
        v = rng.integers(0, int(rng.integers(1, 5)), int(rng.integers(1, 120))).astype(np.float32)
        j = int(rng.integers(1, v.size + 1))
        assert quick_select_index(v.tolist(), j - 1) == torch.kthvalue(torch.tensor(v), j).indices.item()


def test_large_ascending_integer_sort_is_torchs_stable_radix_sort():
    a = np.random.default_rng(0).integers(0, 3, 33000)
    both(lambda L, x: L.argsort(x), a)
    both(lambda L, x: L.sort(x.to(L.int32)), a)


@pytest.mark.parametrize("shape,dim", [((50257,), 0), ((3, 4000), 1), ((5000, 2), 0)])
def test_large_cpu_sorts_on_the_host_keep_torchs_tie_order(shape, dim):
    """From 2,048 elements CPU sorts run on the host; rows up to 65,536 elements replay torch's introsort for
    equal keys (a float32 row of 50,257 logits holds some), both directions, stable or not, with gradients."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape).astype(np.float32).round(3)
    a.reshape(-1)[rng.integers(0, a.size, 5)] = np.nan
    a.reshape(-1)[rng.integers(0, a.size, 5)] = -0.0
    for desc in (False, True):
        for stable in (False, True):
            both(lambda L, x: L.sort(x, dim=dim, descending=desc, stable=stable), a, grad=not stable)
            both(lambda L, x: L.argsort(x, dim=dim, descending=desc, stable=stable), a)
    both(lambda L, x: L.sort(x, dim), np.nan_to_num(a * 100).astype(np.int64))
