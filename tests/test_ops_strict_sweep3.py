"""Ops of op_db[375:470], [500:526], [667:702] and the second sweep's leftovers that
``python -m conformance --strict`` found apart from torch (the third strict sweep): the complex branch of
logcumsumexp, ``out=`` on nn.functional, integer/complex inputs to losses, integer trapezoid rules, missing
ops.  Expected values come from torch."""
import math

import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
import torchlike.nn.functional as LF  # noqa: E402
from conftest import raises_like_torch, to_tl as _tl, to_torch as _torch, torch_or_tl  # noqa: E402

F = torch.nn.functional


def _close(actual, expected, **kw):
    a = _torch(actual)
    assert a.dtype == expected.dtype, (a.dtype, expected.dtype)
    assert a.shape == expected.shape, (a.shape, expected.shape)
    torch.testing.assert_close(a, expected, equal_nan=True, **kw)


# --- logcumsumexp of complex inputs: torch's branch of the log --------------------------------------
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp_complex_branch(dtype, dim):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(5, 4, 6, generator=g, dtype=dtype) * 4)
    _close(torchlike.logcumsumexp(_tl(x), dim), torch.logcumsumexp(x, dim))


def test_logcumsumexp_complex_nonfinite():
    x = torch.tensor([1 + 1j, complex(float("nan"), 0), 2 - 1j, complex(-math.inf, 1), complex(math.inf, 2), 3j,
                      complex(-math.inf, 0), complex(-math.inf, 3)], dtype=torch.complex128)
    for xs in (x, x[3:], x[6:]):
        _close(torchlike.logcumsumexp(_tl(xs), 0), torch.logcumsumexp(xs, 0))


# --- nn.functional ``out=`` ---------------------------------------------------------------------------
OUT_CASES = [("softplus", lambda t: (t,), {}), ("logsigmoid", lambda t: (t,), {}), ("gelu", lambda t: (t,), {}),
             ("hardshrink", lambda t: (t,), {}), ("softshrink", lambda t: (t, 0.3), {}),
             ("linear", lambda t: (t, torch.arange(18.).reshape(3, 6) / 10, torch.ones(3)), {}),
             ("avg_pool2d", lambda t: (t, 2), {}), ("avg_pool3d", lambda t: (t.reshape(1, 2, 2, 3, 6), 2), {})]


@pytest.mark.parametrize("name,args,kw", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_nn_functional_out(name, args, kw):
    x = torch.linspace(-3, 3, 72).reshape(1, 2, 6, 6)
    targs = args(x)
    expected = getattr(F, name)(*targs, **kw)
    t_out = torch.empty(0)
    assert getattr(F, name)(*targs, out=t_out, **kw) is t_out
    l_out = torchlike.empty(0)
    got = getattr(LF, name)(*[_tl(a) if isinstance(a, torch.Tensor) else a for a in targs], out=l_out, **kw)
    assert got is l_out
    _close(l_out, expected, rtol=1e-5, atol=1e-6)


def test_nn_functional_out_rejects_grad_like_torch():
    x = torch.randn(4, requires_grad=True)
    lx = _tl(x, requires_grad=True)
    raises_like_torch(torch_or_tl(lambda: F.softplus(x, out=torch.empty(4)),
                                  lambda: LF.softplus(lx, out=torchlike.empty(4))))
    raises_like_torch(torch_or_tl(lambda: F.logsigmoid(x, out=torch.empty(4)),
                                  lambda: LF.logsigmoid(lx, out=torchlike.empty(4))))


# --- losses: complex inputs, integer inputs, NaN through clamp_min ------------------------------------
def test_l1_loss_complex_is_real():
    g = torch.Generator().manual_seed(0)
    for dt in (torch.complex64, torch.complex128):
        a, b = torch.randn(3, 4, generator=g, dtype=dt), torch.randn(3, 4, generator=g, dtype=dt)
        for red in ("mean", "sum", "none"):
            _close(LF.l1_loss(_tl(a), _tl(b), reduction=red), F.l1_loss(a, b, reduction=red))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.uint8, torch.int8, torch.int64, torch.float32])
def test_pairwise_and_triplet_distance_dtypes(dtype):
    g = torch.Generator().manual_seed(1)
    if dtype.is_complex:
        a, p, n = (torch.randn(4, 5, generator=g, dtype=dtype) for _ in range(3))
    else:  # uint8 differences wrap in torch (x1 - x2 is taken in the inputs' dtype)
        a, p, n = (torch.randint(0, 120, (4, 5), generator=g).to(dtype) for _ in range(3))
    _close(LF.pairwise_distance(_tl(a), _tl(p)), F.pairwise_distance(a, p), rtol=1e-5, atol=1e-5)
    _close(LF.pairwise_distance(_tl(a), _tl(p), p=1.0), F.pairwise_distance(a, p, p=1.0), rtol=1e-5, atol=1e-5)
    for swap in (False, True):
        _close(LF.triplet_margin_loss(_tl(a), _tl(p), _tl(n), swap=swap),
               F.triplet_margin_loss(a, p, n, swap=swap), rtol=1e-5, atol=1e-5)
    _close(LF.triplet_margin_with_distance_loss(_tl(a), _tl(p), _tl(n), reduction="none"),
           F.triplet_margin_with_distance_loss(a, p, n, reduction="none"), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int16, torch.uint8])
def test_margin_ranking_loss_integer_inputs(dtype):
    a = torch.tensor([1, 5, 3, 2, 9]).to(dtype)
    b = torch.tensor([2, 1, 0, 2, 4]).to(dtype)
    t = torch.tensor([1, 1, 1, 1, 1]).to(dtype) if dtype is torch.uint8 else torch.tensor([1, -1, 1, -1, 1]).to(dtype)
    for red in ("none", "mean", "sum"):
        for margin in (0.0, 0.5):
            _close(LF.margin_ranking_loss(_tl(a), _tl(b), _tl(t), margin=margin, reduction=red),
                   F.margin_ranking_loss(a, b, t, margin=margin, reduction=red))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8, torch.bool])
def test_cosine_embedding_loss_integer_inputs(dtype):
    g = torch.Generator().manual_seed(2)
    hi = 2 if dtype is torch.bool else 30
    a, b = (torch.randint(0, hi, (4, 6), generator=g).to(dtype) for _ in range(2))
    t = torch.tensor([1, -1, 1, -1])
    for red in ("none", "mean"):
        _close(LF.cosine_embedding_loss(_tl(a), _tl(b), _tl(t), reduction=red),
               F.cosine_embedding_loss(a, b, t, reduction=red))


def test_hinge_losses_keep_nan_like_clamp_min():
    x = torch.tensor([0.5, float("nan"), -2.0, 3.0], dtype=torch.float64)
    y = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    _close(LF.margin_ranking_loss(_tl(x), _tl(x.flip(0)), _tl(y), reduction="none"),
           F.margin_ranking_loss(x, x.flip(0), y, reduction="none"))
    _close(LF.hinge_embedding_loss(_tl(x), _tl(y), reduction="sum"), F.hinge_embedding_loss(x, y, reduction="sum"))
    # the NaN's gradient is 0 (clamp_min's mask is False for NaN)
    xt = x.clone().requires_grad_()
    F.margin_ranking_loss(xt, torch.zeros(4, dtype=torch.float64), y, reduction="sum").backward()
    lx = _tl(x, requires_grad=True)
    LF.margin_ranking_loss(lx, torchlike.zeros(4, dtype=torchlike.float64), _tl(y), reduction="sum").backward()
    _close(lx.grad, xt.grad)


# --- trapezoid rules on integer samples -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64])
def test_trapezoid_integer_samples(dtype):
    y = torch.tensor([[200, 10, 3, 90], [7, 250, 100, 255]]).to(dtype)
    xs = [torch.tensor([1, 3, 4, 9], dtype=torch.uint8), torch.tensor([1, 3, 4, 9]),
          torch.tensor([0.5, 1.0, 3.0, 3.5])]
    for fn in ("trapezoid", "trapz", "cumulative_trapezoid"):
        _close(getattr(torchlike, fn)(_tl(y)), getattr(torch, fn)(y))
        if fn != "trapz":
            _close(getattr(torchlike, fn)(_tl(y), dx=2.5), getattr(torch, fn)(y, dx=2.5))
        for x in xs:
            _close(getattr(torchlike, fn)(_tl(y), _tl(x)), getattr(torch, fn)(y, x))


def test_trapezoid_bool_rejected_like_torch():
    y = torch.tensor([True, False, True])
    for fn in ("trapezoid", "cumulative_trapezoid"):
        raises_like_torch(torch_or_tl(lambda: getattr(torch, fn)(y), lambda: getattr(torchlike, fn)(_tl(y))))
        raises_like_torch(torch_or_tl(lambda: getattr(torch, fn)(y, torch.tensor([1, 2, 3])),
                                      lambda: getattr(torchlike, fn)(_tl(y), torchlike.tensor([1, 2, 3]))))


# --- out= of histogram and of the list-returning copies ------------------------------------------------
def test_histogram_out():
    x = torch.tensor([0.5, 1.5, 1.7, 3.0, -1.0])
    t_out = (torch.empty(0), torch.empty(0))
    torch.histogram(x, 3, out=t_out)
    l_out = (torchlike.empty(0), torchlike.empty(0))
    got = torchlike.histogram(_tl(x), 3, out=l_out)
    assert got[0] is l_out[0] and got[1] is l_out[1]
    _close(l_out[0], t_out[0])
    _close(l_out[1], t_out[1])


@pytest.mark.parametrize("name,args", [("unbind_copy", ()), ("split_copy", (2,)),
                                       ("split_with_sizes_copy", ([1, 2],))])
def test_list_out_copies_return_none(name, args):
    x = torch.arange(6.).reshape(3, 2)
    pieces = getattr(torch, name)(x, *args)
    t_out = [torch.zeros_like(p) for p in pieces]
    assert getattr(torch, name)(x, *args, out=t_out) is None
    l_out = [torchlike.zeros(tuple(p.shape)) for p in pieces]
    assert getattr(torchlike, name)(_tl(x), *args, out=l_out) is None
    for a, b in zip(l_out, t_out):
        _close(a, b)
    raises_like_torch(torch_or_tl(lambda: getattr(torch, name)(x, *args, out=t_out[:1]),
                                  lambda: getattr(torchlike, name)(_tl(x), *args, out=l_out[:1])))


# --- ops that were missing ---------------------------------------------------------------------------
def test_chunk_cat():
    g = torch.Generator().manual_seed(4)
    cases = [([(1, 2, 3), (1, 2, 3)], -1, 5), ([(1, 2, 3), (1, 2, 3)], 1, 2), ([(2, 4), (1, 3)], 0, 2),
             ([(3, 5, 2), (3, 1), (3, 7, 4, 1)], 1, 3)]
    for shapes, dim, n in cases:
        ts = [torch.randn(s, generator=g) for s in shapes]
        _close(torchlike._chunk_cat([_tl(t) for t in ts], dim, n), torch._chunk_cat(ts, dim, n))
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    for bad in (([], 0, 2), ([a, b], 0, 0), ([a, b.double()], 0, 2), ([a, torch.randn(3, 3)], 1, 2),
                ([a, torch.zeros(0, 3).double()], 0, 2), ([a, torch.randn(2)], 1, 2), ([a], 2, 2)):
        raises_like_torch(torch_or_tl(lambda: torch._chunk_cat(*bad),
                                      lambda: torchlike._chunk_cat([_tl(t) for t in bad[0]], *bad[1:])))


def test_chunk_cat_has_no_derivative():
    # torch: "derivative for aten::_chunk_cat is not implemented" at backward; here the result takes no part
    # in autograd, so backward raises RuntimeError too
    a = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch._chunk_cat([a, a], 1, 3).sum().backward()
    la = _tl(a, requires_grad=True)
    with pytest.raises(RuntimeError):
        torchlike._chunk_cat([la, la], 1, 3).sum().backward()


def test_empty_permuted_shape_dtype_and_errors():
    r = torchlike.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torchlike.int8)
    e = torch.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torch.int8)
    assert tuple(r.shape) == tuple(e.shape) and str(r.dtype) == str(e.dtype)
    for size, perm in (((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (0, 2)), ((2, 3), (0, -1))):
        raises_like_torch(torch_or_tl(lambda: torch.empty_permuted(size, perm),
                                      lambda: torchlike.empty_permuted(size, perm)))


def test_unsafe_masked_index_and_put_accumulate():
    x = torch.arange(25.).reshape(5, 5)
    m = torch.tensor([[True, False], [True, True]])
    idx = [torch.tensor([[0], [9]]), torch.tensor([[1, -7]])]  # out of range only where clamped
    lidx = [_tl(i) for i in idx]
    _close(torchlike._unsafe_masked_index(_tl(x), _tl(m), lidx, -1.5), torch._unsafe_masked_index(x, m, idx, -1.5))
    xi = x.long()
    _close(torchlike._unsafe_masked_index(_tl(xi), _tl(m), lidx, 2), torch._unsafe_masked_index(xi, m, idx, 2))
    v = torch.arange(1., 5.).reshape(2, 2)
    _close(torchlike._unsafe_masked_index_put_accumulate(_tl(x), _tl(m), lidx, _tl(v)),
           torch._unsafe_masked_index_put_accumulate(x, m, idx, v))
    for bad in (torch.tensor([[0.]]), torch.tensor([[True]])):
        raises_like_torch(torch_or_tl(lambda: torch._unsafe_masked_index(x, m, [bad], 1.),
                                      lambda: torchlike._unsafe_masked_index(_tl(x), _tl(m), [_tl(bad)], 1.)))


# --- slicing a non-contiguous leaf view that requires grad -----------------------------------------------
def test_slice_of_leaf_view_requiring_grad_is_differentiable():
    base = torch.zeros(10, 5, dtype=torch.float64)
    x = base[::2].requires_grad_()
    y = x[0:3]
    (y * torch.arange(15.0, dtype=torch.float64).reshape(3, 5)).sum().backward()
    lx = torchlike.zeros(10, 5, dtype=torchlike.float64)[::2].requires_grad_()
    ly = lx[0:3]
    assert ly.requires_grad and type(ly.grad_fn).__name__ == type(y.grad_fn).__name__ == "SliceBackward0"
    (ly * torchlike.arange(15.0, dtype=torchlike.float64).reshape(3, 5)).sum().backward()
    assert lx.grad.tolist() == x.grad.tolist()


# --- torch.masked: cumulative ops keep the input dtype, complex logsumexp ----------------------------------
@pytest.mark.parametrize("dtype", [torch.int32, torch.int8, torch.uint8, torch.int64, torch.float32])
def test_masked_cumsum_cumprod_keep_dtype(dtype):
    x = torch.tensor([[1, 2, 3], [4, 5, 6]]).to(dtype)
    m = torch.tensor([[True, False, True], [False, True, True]])
    for op in ("cumsum", "cumprod"):
        _close(getattr(torchlike.masked, op)(_tl(x), 1, mask=_tl(m)), getattr(torch.masked, op)(x, 1, mask=m))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_masked_logsumexp_complex(dtype):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(3, 4, generator=g, dtype=dtype)
    m = torch.tensor([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
    _close(torchlike.masked.logsumexp(_tl(x), 1, mask=_tl(m)), torch.masked.logsumexp(x, 1, mask=m))


# --- embedding_bag of half weights: weighed and summed in float32, rounded once -----------------------------
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_half_accumulates_in_float32(dtype, mode):
    g = torch.Generator().manual_seed(6)
    w = (torch.randn(10, 5, generator=g) * 9).to(dtype)
    idx, off = torch.tensor([1, 5, 4, 5, 9, 2]), torch.tensor([0, 3])
    psw = (torch.randn(6, generator=g) * 5).to(dtype) if mode == "sum" else None
    _close(LF.embedding_bag(_tl(idx), _tl(w), _tl(off), mode=mode, per_sample_weights=None if psw is None else _tl(psw)),
           F.embedding_bag(idx, w, off, mode=mode, per_sample_weights=psw),
           **({} if mode == "mean" and dtype is torch.bfloat16 else {"rtol": 0, "atol": 0}))
