"""The per-op fast paths for small host-resident tensors (not timed): ``i + n`` on host-readable int64
scalars taken before dispatch (``_dispatch.host_int_sum``) and the numpy host ops without ``np.errstate``
(``_host_ops``) -- values, dtypes, aliasing, in-place writes, autograd and errors compared with torch."""
import warnings

import numpy as np
import pytest

import torchlike
from torchlike import _host_ops
from tests.conftest import raises_like_torch, same_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")

IX = np.array([3, 0, 9, 2**62, -7], np.int64)
I64_MAX = 2**63 - 1


@pytest.mark.parametrize("expr", [
    lambda i: i + 8, lambda i: i - 3, lambda i: 8 + i, lambda i: i + 0, lambda i: i + 1 + 8,
    lambda i: i.add(5), lambda i: i.sub(2), lambda i: i + (-2**62), lambda i: i + I64_MAX,  # (wraps, as torch)
    lambda i: i - I64_MAX - 10,
], ids=["add", "sub", "radd", "zero", "chained", "method_add", "method_sub", "neg", "wrap_up", "wrap_down"])
def test_row_plus_int_matches_torch(expr):
    same_as_torch(lambda m, ix: [expr(i) for i in ix], IX)


@pytest.mark.parametrize("expr", [
    lambda m, i: m.add(i, 5, alpha=2), lambda m, i: i + True, lambda m, i: i + 2.5, lambda m, i: i * 3,
    lambda m, i: i + m.tensor(4), lambda m, i: m.add(i, 1), lambda m, i: m.sub(i, 4),
], ids=["alpha", "bool", "float", "mul", "tensor", "torch_add", "torch_sub"])
def test_other_operands_keep_torch_promotion(expr):
    same_as_torch(lambda m, ix: [expr(m, i) for i in ix], IX)


@pytest.mark.parametrize("dtype", ["int32", "int16", "uint8", "bool", "float32"])
def test_rows_of_other_dtypes(dtype):
    v = np.array([1, 0, 5], dtype=dtype)
    same_as_torch(lambda m, x: [(i + 3, 3 + i) for i in x], v, grad=False)


def test_host_tensor_scalar_and_slices_like_a_batch_loader():
    def fn(m, data):
        ix = m.tensor([4, 0, 11])
        r = [data[i:i + 8] for i in ix] + [data[i + 1:i + 8 + 1] for i in ix]
        z = m.tensor(5) + 3  # a fresh 0-d host tensor
        return m.stack(r), z, data[z:z + 2]
    same_as_torch(fn, np.arange(40, dtype=np.int64))


def test_in_place_add_on_rows_writes_the_tensor():
    def fn(m):
        ix = m.tensor([1, 2, 3])
        rows = list(ix)
        for i in rows:
            i += 10
        rows[0].add_(1)
        j = rows[1] + 1
        j.sub_(5)
        return ix, rows, j
    same_as_torch(fn)


def test_results_are_independent_of_later_writes():
    def fn(m):
        ix = m.tensor([1, 2, 3])
        i = next(iter(ix))
        s = i + 4
        ix[0] = 100
        return s, i + 4, ix
    same_as_torch(fn)


def test_out_and_autograd_metadata():
    def fn(m):
        ix = m.tensor([6, 7])
        i = next(iter(ix))
        o = m.empty((), dtype=m.int64)
        m.add(i, 2, out=o)
        r = i + 2
        return o, r, r.requires_grad, r.grad_fn is None, r.is_leaf
    same_as_torch(fn)


def test_errors_match_torch():
    raises_like_torch(lambda m: [i - True for i in m.tensor([True, False])])
    raises_like_torch(lambda m: [i.add(1, alpha=1.5) for i in m.tensor([1, 2])])
    raises_like_torch(lambda m: [i + 1 for i in m.tensor(3)])


def test_under_compile_matches_eager():
    def step(ix, data):
        return torchlike.stack([data[i:i + 2] for i in ix]).sum()
    data = torchlike.arange(20)
    ix = torchlike.tensor([1, 5, 9])
    t = torch.stack([torch.arange(20)[i:i + 2] for i in torch.tensor([1, 5, 9])]).sum()
    assert step(ix, data).item() == t.item()


# ---- host ops without np.errstate: no numpy warning reaches the user, values as torch's ---------------
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "lt", "eq"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_edge_values_give_no_warnings(op, dtype):
    import operator
    f = getattr(operator, op)
    a = np.array([3e38, -3e38, np.inf, -np.inf, 0.0, np.nan, 1.0], dtype=dtype)
    b = np.array([3e38, 3e38, np.inf, np.inf, 0.0, 1.0, -0.0], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same_as_torch(lambda m, x, y: f(x, y), a, b, grad=False)
        assert torchlike.tensor(a)._host_array() is not None


def test_numpy_error_state_is_left_as_the_user_set_it():
    old = np.seterr(over="raise")
    try:
        a = torchlike.tensor([3e38], dtype=torchlike.float32)
        r = a + a  # torch gives inf silently, whatever numpy's setting
        assert r._host_array() is not None and np.isinf(r.numpy()).all()
        assert torch.isinf(torch.tensor([3e38]) + torch.tensor([3e38])).all()
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            np.float32(3e38) * np.float32(10)
    finally:
        np.seterr(**old)


def test_host_ops_with_grad_go_through_autograd():
    same_as_torch(lambda m, x, y: (x + y) * y - x / y, np.ones((4, 4), np.float32), np.full((4, 4), 2.0, np.float32))
    assert _host_ops._QUIET is not None  # the fast error state exists in this numpy


def test_fast_path_is_taken_and_gives_host_scalars(monkeypatch):
    from torchlike._ops import pointwise
    calls = []
    monkeypatch.setattr(pointwise, "dispatch", lambda *a, **k: calls.append(a) or pytest.fail("dispatched"))
    rows = list(torchlike.tensor([4, 5]))
    r = [i + 8 for i in rows] + [8 + i for i in rows] + [i - 1 for i in rows]
    assert [t.item() for t in r] == [12, 13, 12, 13, 3, 4] and not calls
    assert all(t._host_array() is not None and t.dtype is torchlike.int64 and t.shape == () for t in r)


# ---- tensor(flat list of Python numbers): one numpy conversion, torch's inferred dtype ------------------
@pytest.mark.parametrize("data", [
    [1, 2, 3], [1, 2.5], [True, 2], [True, False], [0.1, 0.2], [1.0, True], [-2**63, 2**63 - 1],
    [3] * 1000, [1e300, -1e-300], [float("nan"), float("inf")],
], ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "bool"])
def test_tensor_of_flat_list_matches_torch(data, dtype):
    if dtype == "int32" and any(not isinstance(x, float) or not np.isfinite(x) or abs(x) >= 2**31 for x in data
                                if not isinstance(x, bool) and not -2**31 <= x < 2**31 or isinstance(x, float)
                                and not np.isfinite(x)):
        pytest.skip("out of int32's range: torch raises where torchlike (main too) wraps, see docs/differences.md")
    fn = lambda m: m.tensor(data, dtype=getattr(m, dtype) if dtype else None)  # noqa: E731
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("data", [[2**63], [-2**63 - 1], [1, "a"]], ids=repr)
def test_tensor_of_flat_list_errors_match_torch(data):
    raises_like_torch(lambda m: m.tensor(data))


def test_tensor_of_flat_list_with_other_number_types():
    import enum

    class E(enum.IntEnum):
        A = 3
    same_as_torch(lambda m: (m.tensor([E.A, 1]), m.tensor([np.int32(4), 5]), m.tensor([np.float32(0.5), 1]),
                             m.tensor([1, m.tensor(2.5)]), m.tensor([])), grad=False)


@pytest.mark.parametrize("v", [1e39, -1e39, 1e-50, float("inf"), 0.1, 2**53, -7, True], ids=repr)
@pytest.mark.parametrize("op", ["mul", "add", "gt", "sub"])
def test_python_scalar_operands_without_warnings(op, v):
    import operator
    f = getattr(operator, op)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's cast/overflow warnings must not reach the user
        if op == "sub" and v is True:
            raises_like_torch(lambda m, x: f(x, v), np.array([1.0, 2.0, -3.0], np.float32))
            return
        same_as_torch(lambda m, x: f(x, v), np.array([1.0, 2.0, -3.0], np.float32), grad=False)
        same_as_torch(lambda m, x: f(x, v), np.array([1, 2, -3], np.int64), grad=False)
