"""The eager fast paths for the common signatures (issue 10) against torch: ``x[ints, slices, None, ...]``,
``x.view(ints)``, ``arange(ints)``, matmul and sum of host-resident tensors (numpy), and the index range
checks remembered per index array (embedding, cross_entropy).  Each compares values, dtypes, shapes, views and
autograd node names with torch, and the failing calls' errors."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch

X3 = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)

TUPLES = [(slice(None), -1, slice(None)), (0, 1), (-1, slice(1, 4), 2), (Ellipsis, 0), (Ellipsis, None),
          (None, Ellipsis, slice(None, None, 2)), (slice(None), slice(None)), (Ellipsis,), (None,),
          (1, None, slice(3, 1)), (slice(-10, 10, 3), Ellipsis, -6), (slice(None), None, 2, None),
          (0, 0, 0), (slice(2, None), Ellipsis, slice(None, -1)), (slice(5, 2),), (), (Ellipsis, Ellipsis), (Ellipsis, 1, Ellipsis)]


@pytest.mark.parametrize("index", TUPLES, ids=repr)
def test_tuple_index_values_views_and_nodes_match_torch(index):
    same_as_torch(lambda m, x: x[index] * 1, X3)
    t, tl = torch.tensor(X3, requires_grad=True), torchlike.tensor(X3, requires_grad=True)
    rt, rl = t[index], tl[index]
    assert type(rl.grad_fn).__name__ == type(rt.grad_fn).__name__
    assert tuple(rl.shape) == tuple(rt.shape) and rl.stride() == rt.stride()
    p, q = torch.tensor(X3), torchlike.tensor(X3)
    vt, vl = p[index], q[index]  # a view: a write through it reaches the base
    assert (vl._base is q) == (vt._base is p)
    vt.add_(1000.0)
    vl.add_(1000.0)
    assert_same(q, p)


@pytest.mark.parametrize("index", [(0, 0, 0, 0), (4, 0), (slice(None), -6), (0, 1.5), (Ellipsis, 0, 0, 0, 0),
                                   (slice(None, None, -1),), (slice(None, None, 0),), (0, "a")], ids=repr)
def test_tuple_index_errors_match_torch(index):
    raises_like_torch(lambda m, x: x[index], X3)


@pytest.mark.parametrize("shape", [(-1,), (20, 6), (4, -1), (2, 2, 5, 6), (120,)], ids=str)
def test_view_of_ints_matches_torch(shape):
    same_as_torch(lambda m, x: x.view(*shape) * 1, X3)
    same_as_torch(lambda m, x: x[1:].view(15, 6)[2:].view(13, 1, 6) * 1, X3)


@pytest.mark.parametrize("shape", [(-1, -1), (7, -1), (121,), (-2, 60), (2, -5, 12), (-1, -2), (-2, -1, -1)], ids=str)
def test_view_errors_match_torch(shape):
    raises_like_torch(lambda m, x: x.view(*shape), X3)
    raises_like_torch(lambda m, x: x.transpose(0, 1).view(-1), X3)


@pytest.mark.parametrize("args", [(5,), (0,), (2, 9), (2, 9, 3), (9, 2, -3), (2, 2), (10, 0, -4), (-7, 7, 5),
                                  (70000,)], ids=str)
def test_arange_of_ints_matches_torch(args):
    same_as_torch(lambda m: m.arange(*args), grad=False)


@pytest.mark.parametrize("args", [(-3,), (9, 2), (2, 9, -1), (0, 5, 0)], ids=str)
def test_arange_errors_match_torch(args):
    raises_like_torch(lambda m: m.arange(*args))


MATMUL_SHAPES = [((4, 4), (4, 4)), ((3, 5), (5, 2)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((4,), (4, 3)),
                 ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_host_matmul_matches_torch(shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s) * 4 for s in shapes)
    a, b = a.astype(dtype), b.astype(dtype)
    r = same_as_torch(lambda m, x, y: x @ y, a, b, grad=False)
    exact = np.dtype(dtype).kind == "i"
    if exact:  # integers: the same values exactly, wrapping alike
        assert np.array_equal(r.numpy(), (torch.tensor(a) @ torch.tensor(b)).numpy())
    big = torchlike.tensor(np.full((2, 2), 3e38, np.float32))
    with np.errstate(all="raise"):  # no numpy overflow warning or error: torch gives inf quietly
        assert_same(big @ big, torch.full((2, 2), 3e38) @ torch.full((2, 2), 3e38))


def test_host_matmul_result_stays_on_the_host_and_errors_match_torch():
    a, b = torchlike.ones(3, 4), torchlike.ones(4, 2)
    assert (a @ b)._host_array() is not None
    raises_like_torch(lambda m, x, y: x @ y, np.ones((3, 4), np.float32), np.ones((3, 2), np.float32))
    raises_like_torch(lambda m, x, y: x @ y, np.ones((3, 4), np.float32), np.ones((4, 2), np.float64))
    raises_like_torch(lambda m, x, y: x @ y, np.ones((2, 3, 4), np.float32), np.ones((3, 4, 5), np.float32))
    raises_like_torch(lambda m, x, y: x @ y, np.ones((3, 4), bool), np.ones((4, 2), bool))


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                    ((2, 3, 4), (1, 4, 5))], ids=str)
def test_matmul_fast_path_records_torchs_node(shapes):
    a = torch.ones(shapes[0], requires_grad=True) @ torch.ones(shapes[1])
    b = torchlike.ones(shapes[0], requires_grad=True) @ torchlike.ones(shapes[1])
    assert type(b.grad_fn).__name__ == type(a.grad_fn).__name__
    same_as_torch(lambda m, x, y: x @ y, np.ones(shapes[0], np.float32), np.ones(shapes[1], np.float32))


SUM_CASES = [(np.float32, {}), (np.float32, {"dim": 0}), (np.float32, {"dim": (0, 2), "keepdim": True}),
             (np.float64, {"dim": -1}), (np.int64, {}), (np.int32, {"dim": 1}), (np.int8, {}), (np.uint8, {}),
             (np.bool_, {}), (np.bool_, {"dim": 0}), (np.float32, {"dtype": torch.float64}),
             (np.int64, {"dtype": torch.float32}), (np.float16, {}), (np.float32, {"dtype": torch.int64})]


@pytest.mark.parametrize("dtype,kw", SUM_CASES, ids=str)
def test_host_sum_matches_torch(dtype, kw):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 4, 5)) * 50).astype(dtype)

    def f(m, t):
        k = {**kw, "dtype": getattr(m, str(kw["dtype"]).split(".")[1])} if "dtype" in kw else kw
        return t.sum(**k)
    same_as_torch(f, x, grad=False)
    if np.dtype(dtype).kind in "biu":  # exact
        assert np.array_equal(f(torchlike, torchlike.tensor(x)).numpy(), f(torch, torch.tensor(x)).numpy())


def test_host_sum_is_quiet_and_stays_on_the_host():
    x = torchlike.tensor(np.array([3e38, 3e38, np.inf, -np.inf], np.float32))
    with np.errstate(all="raise"):
        assert_same(x.sum(), torch.tensor([3e38, 3e38, np.inf, -np.inf]).sum())
        assert_same(x[:2].sum(), torch.tensor([3e38, 3e38]).sum())
    assert torchlike.ones(3, 4).sum()._host_array() is not None
    same_as_torch(lambda m, x: x.sum(), np.ones((3, 4), np.float32))  # with grad: the device path records


def test_index_range_checks_are_remembered_per_array_and_still_fail():
    emb_w = np.arange(12, dtype=np.float32).reshape(6, 2)
    idx = torchlike.tensor([[0, 5], [3, 1]])
    w = torchlike.tensor(emb_w, requires_grad=True)
    for _ in range(2):  # (the second call finds the array checked)
        out = torchlike.nn.functional.embedding(idx, w)
    assert_same(out, torch.nn.functional.embedding(torch.tensor([[0, 5], [3, 1]]), torch.tensor(emb_w)))
    with pytest.raises(IndexError, match="index out of range in self"):  # a smaller table: checked again
        torchlike.nn.functional.embedding(idx, torchlike.tensor(emb_w[:5]))
    idx[0, 0] = 6  # a write makes a new array: checked again
    with pytest.raises(IndexError, match="index out of range in self"):
        torchlike.nn.functional.embedding(idx, w)
    raises_like_torch(lambda m, x, y: m.nn.functional.cross_entropy(x, y), np.ones((3, 4), np.float32),
                      np.array([0, 4, 1]))
    y = torchlike.tensor([0, 3, 1])
    lg = torchlike.ones(3, 4, requires_grad=True)
    torchlike.nn.functional.cross_entropy(lg, y)  # in range for 4 classes...
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):  # ...not for 3
        torchlike.nn.functional.cross_entropy(torchlike.ones(3, 3), y)
