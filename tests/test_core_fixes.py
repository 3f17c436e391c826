"""Regression tests for OpInfo fixes: to, gather, index_select, dtype methods, take_along_dim, zero_,
resize_as_, tensordot, histogram, linalg.vander, logcumsumexp, svd_lowrank / pca_lowrank."""
import numpy as np
import pytest
import torch

import torchlike as tl


def T(t):
    return tl.tensor(t.detach().numpy())


def close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(b.detach().numpy()), a.detach().numpy(), **kw)


def raises_like(ft, ftl):
    with pytest.raises(Exception) as e1:
        ft()
    with pytest.raises(Exception) as e2:
        ftl()
    assert type(e1.value) is type(e2.value), (e1.value, e2.value)
    return str(e1.value), str(e2.value)


# --- Tensor.to -------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kw", [
    ((torch.float64, True, True), {}), ((torch.float64, False, False), {}),
    (("cpu", torch.float64, True, False), {}), (("cpu", None, False, True), {}),
    ((), dict(dtype=torch.int64)), ((), dict(device="cpu", dtype=torch.int64)),
    ((None,), {}), ((torch.float32, False, True), {}), ((torch.float64,), dict(copy=True, non_blocking=True)),
])
def test_to_overloads(args, kw):
    x = torch.randn(2, 3)
    conv = lambda a: tl.float64 if a is torch.float64 else tl.float32 if a is torch.float32 else \
        tl.int64 if a is torch.int64 else a
    r = x.to(*args, **kw)
    q = T(x).to(*[conv(a) for a in args], **{k: conv(v) for k, v in kw.items()})
    assert str(q.dtype) == str(r.dtype)
    close(r, q)


def test_to_other_tensor_and_copy():
    x, o = torch.randn(3), torch.randn(2, dtype=torch.float64)
    xt = T(x)
    assert xt.to(T(o), True, False).dtype is tl.float64
    assert (x.to(torch.float32, False, True) is x) == (xt.to(tl.float32, False, True) is xt)
    assert (x.to(torch.float32) is x) == (xt.to(tl.float32) is xt)


@pytest.mark.parametrize("args", [(torch.float64, 1), (torch.float64, None), ("x",), ("cpu", torch.float64, 1)])
def test_to_bad_combinations(args):
    x = torch.randn(2)
    conv = lambda a: tl.float64 if a is torch.float64 else a
    if args == ("x",):
        pytest.raises(RuntimeError, x.to, *args)
        pytest.raises((RuntimeError, TypeError), T(x).to, *args)
        return
    m1, m2 = raises_like(lambda: x.to(*args), lambda: T(x).to(*[conv(a) for a in args]))
    assert m2.split(" but")[0] == m1.split(" but")[0]


def test_to_too_many_positional():
    x = torch.randn(2)
    raises_like(lambda: x.to("cpu", torch.float64, True, True, True),
                lambda: T(x).to("cpu", tl.float64, True, True, True))


@pytest.mark.parametrize("name", ["float", "double", "half", "bfloat16", "int", "long", "bool", "byte", "char",
                                  "short", "cfloat", "cdouble"])
def test_dtype_methods_memory_format(name):
    x = torch.randn(2, 3)
    r = getattr(x, name)(memory_format=torch.preserve_format)
    q = getattr(T(x), name)(memory_format=None)
    assert str(q.dtype) == str(r.dtype)


# --- gather / index_select / take_along_dim ---------------------------------------------------
@pytest.mark.parametrize("index", [torch.tensor([], dtype=torch.uint8), torch.tensor([[], []], dtype=torch.uint8),
                                   torch.zeros(0, 3, dtype=torch.float32)])
def test_gather_empty_index_any_dtype(index):
    x = torch.randn(5, requires_grad=True)
    xt = T(x).requires_grad_()
    r, q = torch.gather(x, 0, index), tl.gather(xt, 0, T(index))
    assert tuple(r.shape) == tuple(q.shape) and str(r.dtype) == str(q.dtype)


def test_gather_int32_index_and_grad():
    x = torch.randn(4, 3, requires_grad=True)
    i = torch.tensor([[0, 1, 2], [3, 0, 1]], dtype=torch.int32)
    xt = T(x).requires_grad_()
    r, q = torch.gather(x, 0, i), tl.gather(xt, 0, T(i))
    close(r, q)
    r.sum().backward()
    q.sum().backward()
    close(x.grad, xt.grad)


def test_gather_nonempty_bad_dtype_and_out_checks():
    x, i = torch.randn(5), torch.tensor([1], dtype=torch.uint8)
    raises_like(lambda: torch.gather(x, 0, i), lambda: tl.gather(T(x), 0, T(i)))
    src, idx = torch.tensor([[1., 2], [3, 4]]), torch.tensor([[0, 0], [1, 0]])
    m1, m2 = raises_like(lambda: torch.gather(src, 1, idx, out=torch.empty(2, 2, dtype=torch.float64)),
                         lambda: tl.gather(T(src), 1, T(idx), out=tl.empty(2, 2, dtype=tl.float64)))
    assert m1 == m2
    s = torch.rand(6)
    st = T(s)
    raises_like(lambda: torch.gather(s, 0, torch.tensor([2, 1, 0]), out=s),
                lambda: tl.gather(st, 0, tl.tensor([2, 1, 0]), out=st))
    out = tl.empty(2, 2)
    tl.gather(T(src), 1, T(idx), out=out)
    close(torch.gather(src, 1, idx), out)


@pytest.mark.parametrize("index", [torch.tensor([0]), torch.tensor(0)])
def test_index_select_scalar_input(index):
    x = torch.tensor(3.0, requires_grad=True)
    xt = T(x).requires_grad_()
    r, q = torch.index_select(x, 0, index), tl.index_select(xt, 0, T(index))
    assert tuple(r.shape) == tuple(q.shape)
    close(r, q)
    r.backward()
    q.backward()
    close(x.grad, xt.grad)


def test_index_select_scalar_input_errors():
    x = torch.tensor(3.0)
    for i in (torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), torch.tensor([1])):
        m1, m2 = raises_like(lambda: torch.index_select(x, 0, i), lambda: tl.index_select(T(x), 0, T(i)))
        assert m1 == m2


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_take_along_dim_wraps_indices(dim):
    x = torch.randn(3, 5, requires_grad=True)
    i = torch.randint(-12, 12, (3, 5) if dim else (4, 5))
    xt = T(x).requires_grad_()
    r, q = torch.take_along_dim(x, i, dim), tl.take_along_dim(xt, T(i), dim)
    close(r, q)
    g = torch.randn(r.shape)
    r.backward(g)
    q.backward(T(g))
    close(x.grad, xt.grad)


# --- zero_ / resize_as_ / tensordot -------------------------------------------------------
def test_zero_and_resize_as_functions():
    x = torch.randn(3)
    xt = T(x)
    assert tl.zero_(xt) is xt
    close(torch.zero_(x), xt)
    a, at = torch.ones(2), tl.ones(2)
    r, q = torch.resize_as_(a, torch.ones(2, 3)), tl.resize_as_(at, tl.ones(2, 3))
    assert q is at and tuple(q.shape) == tuple(r.shape)


def test_zero_function_grad():
    x = torch.randn(3, requires_grad=True)
    xt = T(x).requires_grad_()
    y, yt = x * 2, xt * 2
    torch.zero_(y).sum().backward()
    tl.zero_(yt).sum().backward()
    close(x.grad, xt.grad)


@pytest.mark.parametrize("sa,sb,dims", [((1, 1, 1), (2, 1, 2), ([0, 1], [2, 0])),
                                        ((2, 1, 3), (1, 4, 3), ([0, 1], [0, 1])),
                                        ((2, 2, 1), (2, 1, 2), ([0, 1], [2, 0])), ((2, 2, 2), (2, 2, 2), 2)])
def test_tensordot_broadcasts_size_one(sa, sb, dims):
    a, b = torch.randn(sa, requires_grad=True), torch.randn(sb, requires_grad=True)
    at, bt = T(a).requires_grad_(), T(b).requires_grad_()
    r, q = torch.tensordot(a, b, dims=dims), tl.tensordot(at, bt, dims=dims)
    close(r, q, rtol=1e-5, atol=1e-6)
    r.sum().backward()
    q.sum().backward()
    close(a.grad, at.grad, rtol=1e-5, atol=1e-6)
    close(b.grad, bt.grad, rtol=1e-5, atol=1e-6)


def test_tensordot_mismatch_error():
    m1, m2 = raises_like(lambda: torch.tensordot(torch.randn(2, 3), torch.randn(3, 3), dims=([0], [0])),
                         lambda: tl.tensordot(tl.randn(2, 3), tl.randn(3, 3), dims=([0], [0])))
    assert m1 == m2


# --- histogram -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (5,), (5, 0, 5), (4, 4)])
@pytest.mark.parametrize("bins", [1, 3])
@pytest.mark.parametrize("weighted,density", [(False, False), (True, True), (True, False)])
def test_histogram_default_range(shape, bins, weighted, density):
    x = torch.randn(shape, dtype=torch.float64)
    w = torch.rand(shape, dtype=torch.float64) if weighted else None
    r = torch.histogram(x, bins, weight=w, density=density)
    q = tl.histogram(T(x), bins, weight=None if w is None else T(w), density=density)
    close(r.hist, q.hist, equal_nan=True)
    close(r.bin_edges, q.bin_edges)


@pytest.mark.parametrize("rng", [(1.0, 1.0), (0.0, 0.0), (-1.0, 2.0)])
def test_histogram_explicit_range(rng):
    for x in (torch.zeros(0), torch.ones(4), torch.randn(6)):
        r, q = torch.histogram(x, 2, range=rng), tl.histogram(T(x), 2, range=rng)
        close(r.hist, q.hist)
        close(r.bin_edges, q.bin_edges)


def test_histogram_errors():
    x = torch.ones(3)
    for kw in (dict(range=(2.0, 1.0)), dict(range=(0.0, float("inf")))):
        m1, m2 = raises_like(lambda: torch.histogram(x, 2, **kw), lambda: tl.histogram(T(x), 2, **kw))
        assert m1 == m2


def test_histogram_under_compile():
    x = torch.randn(20)
    f = tl.compile(lambda t: tl.histogram(t, 4))
    q = f(T(x))
    r = torch.histogram(x, 4)
    close(r.hist, q.hist)
    close(r.bin_edges, q.bin_edges, rtol=1e-6, atol=1e-6)


# --- linalg.vander ---------------------------------------------------------------------------
@pytest.mark.parametrize("N", [2, 3])
def test_vander_scalar_input(N):
    x = torch.tensor(1.5, requires_grad=True)
    xt = T(x).requires_grad_()
    r, q = torch.linalg.vander(x, N=N), tl.linalg.vander(xt, N=N)
    assert tuple(r.shape) == tuple(q.shape)
    close(r, q)
    r.sum().backward()
    q.sum().backward()
    close(x.grad, xt.grad)


def test_vander_errors():
    for x, N in ((torch.tensor(2.0), None), (torch.tensor([1.0, 2.0]), 1), (torch.tensor([True, False]), None)):
        m1, m2 = raises_like(lambda: torch.linalg.vander(x, N=N), lambda: tl.linalg.vander(T(x), N=N))
        assert m1 == m2


# --- logcumsumexp ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp_large_values_grad(dtype, dim):
    torch.manual_seed(0)
    t = torch.randn(5, 5, 5, dtype=dtype) * 3
    t[0] = 10000
    g = torch.randn(5, 5, 5, dtype=dtype)
    x = t.clone().requires_grad_()
    y = torch.logcumsumexp(x, dim)
    y.backward(g)
    xt = T(t).requires_grad_()
    yt = tl.logcumsumexp(xt, dim)
    yt.backward(T(g))
    close(y, yt, rtol=1e-6, atol=1e-6)
    close(x.grad, xt.grad, rtol=1e-4, atol=1e-5)


def test_logcumsumexp_neg_inf_and_complex():
    x = torch.tensor([-float("inf"), -float("inf"), 1.0], requires_grad=True)
    xt = T(x).requires_grad_()
    torch.logcumsumexp(x, 0).sum().backward()
    tl.logcumsumexp(xt, 0).sum().backward()
    close(x.grad, xt.grad, equal_nan=True)
    c = torch.randn(4, dtype=torch.complex64)
    close(torch.logcumsumexp(c, 0), tl.logcumsumexp(T(c), 0), rtol=1e-5, atol=1e-6)


# --- svd_lowrank / pca_lowrank -----------------------------------------------------------------
@pytest.mark.parametrize("shape", [((6, 2), (5, 2)), ((3, 4, 2), (3, 7, 2))])
@pytest.mark.parametrize("with_M", [False, True])
def test_svd_lowrank_exact_rank(shape, with_M):
    torch.manual_seed(0)
    a = torch.randn(shape[0], dtype=torch.float64, requires_grad=True)
    b = torch.randn(shape[1], dtype=torch.float64, requires_grad=True)
    k = shape[0][-1]
    M = torch.randn(*shape[0][:-1], shape[1][-2], dtype=torch.float64) if with_M else None
    at, bt = T(a).requires_grad_(), T(b).requires_grad_()
    U, S, V = torch.svd_lowrank(a @ b.mT, q=k, M=M)
    Ut, St, Vt = tl.svd_lowrank(at @ bt.mT, q=k, M=None if M is None else T(M))
    assert [tuple(t.shape) for t in (U, S, V)] == [tuple(t.shape) for t in (Ut, St, Vt)]
    # without M, U @ V^H and S do not depend on the random basis (rank(A) == q)
    if not with_M:
        close(U @ V.mT, Ut @ Vt.mT, rtol=1e-8, atol=1e-8)
        close(S, St, rtol=1e-8, atol=1e-8)
        ((U @ V.mT).sum() + S.sum()).backward()
        ((Ut @ Vt.mT).sum() + St.sum()).backward()
        close(a.grad, at.grad, rtol=1e-6, atol=1e-6)
        close(b.grad, bt.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("center", [False, True])
def test_pca_lowrank(center):
    torch.manual_seed(1)
    A = torch.randn(8, 5, dtype=torch.float64)
    U, S, V = torch.pca_lowrank(A, q=5, center=center)
    Ut, St, Vt = tl.pca_lowrank(T(A), q=5, center=center)
    close(S, St, rtol=1e-8, atol=1e-8)
    close(U @ torch.diag(S) @ V.mT, Ut @ tl.diag(St) @ Vt.mT, rtol=1e-8, atol=1e-8)
    m1, m2 = raises_like(lambda: torch.pca_lowrank(A, q=9), lambda: tl.pca_lowrank(T(A), q=9))
    assert m1 == m2
