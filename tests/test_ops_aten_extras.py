"""Ops the last conformance report listed as missing, each compared with torch 2.13: the aten-only
``_softmax_backward_data``, ``_batch_norm_with_update`` and ``_upsample_bilinear2d_aa`` (reached through
``torch.ops.aten``), ``segment_reduce``, and 5-D ``grid_sample`` / ``grid_sampler_3d``."""
import numpy as np
import pytest
import torch

import torchlike as tl
from conftest import raises_like_torch, torch_or_tl

RNG = np.random.default_rng(0)


def _pair(a, requires_grad=False):
    return (tl.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _close(x, y, atol=1e-5, rtol=1e-5):
    assert str(x.dtype) == str(y.dtype), (x.dtype, y.dtype)
    assert tuple(x.shape) == tuple(y.shape)
    np.testing.assert_allclose(x.detach().float().numpy(), y.detach().float().numpy(), atol=atol, rtol=rtol,
                               equal_nan=True)


# --- _softmax_backward_data -----------------------------------------------------------------------
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((4, 5), 0), ((3, 4, 5), -1), ((3, 4, 5), 1)])
def test_softmax_backward_data_matches_torch(shape, dim):
    g = RNG.standard_normal(shape).astype(np.float32)
    out = torch.softmax(torch.tensor(RNG.standard_normal(shape).astype(np.float32)), dim)
    got = tl.ops.aten._softmax_backward_data(tl.tensor(g), tl.tensor(out.numpy()), dim, tl.float32)
    want = torch.ops.aten._softmax_backward_data(torch.tensor(g), out, dim, torch.float32)
    _close(got, want)


def test_softmax_backward_data_is_differentiable_like_torch():
    g, out = RNG.standard_normal((3, 4)), torch.softmax(torch.randn(3, 4, dtype=torch.float64), 1).numpy()
    (ga, gb), (oa, ob) = _pair(g, True), _pair(out, True)
    tl.ops.aten._softmax_backward_data(ga, oa, 1, tl.float64).pow(2).sum().backward()
    torch.ops.aten._softmax_backward_data(gb, ob, 1, torch.float64).pow(2).sum().backward()
    _close(ga.grad, gb.grad, 1e-10, 1e-10)
    _close(oa.grad, ob.grad, 1e-10, 1e-10)


# --- _batch_norm_with_update and the dtype of batch norm's statistics -----------------------------
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_with_update_matches_torch(affine):
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    w, b = (RNG.standard_normal(3).astype(np.float32) for _ in range(2))
    rm_a, rm_b = _pair(np.zeros(3, np.float32))
    rv_a, rv_b = _pair(np.ones(3, np.float32))
    wa, wb = _pair(w) if affine else (None, None)
    ba, bb = _pair(b) if affine else (None, None)
    got = tl.ops.aten._batch_norm_with_update(tl.tensor(x), wa, ba, rm_a, rv_a, 0.1, 1e-5)
    want = torch.ops.aten._batch_norm_with_update(torch.tensor(x), wb, bb, rm_b, rv_b, 0.1, 1e-5)
    assert len(got) == len(want) == 4
    for a, b in zip(got, want):
        _close(a, b)
    _close(rm_a, rm_b)
    _close(rv_a, rv_b)


@pytest.mark.parametrize("case", ["stats", "eval", "no_stats", "weight_only"])
def test_native_batch_norm_half_statistics_dtype(case):
    """torch keeps the statistics in float32 for a bfloat16 input with float32 parameters, else the input's."""
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)

    def run(lib):
        xi = lib.tensor(x).to(lib.bfloat16)
        stats = (lib.zeros(3), lib.ones(3)) if case in ("stats", "eval") else (None, None)
        w = lib.ones(3) if case == "weight_only" else None
        return lib.native_batch_norm(xi, w, None, *stats, case != "eval", 0.1, 1e-5)
    for a, b in zip(run(tl), run(torch)):
        _close(a, b, 1e-2, 1e-2)


# --- _upsample_bilinear2d_aa ------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [
    dict(output_size=[3, 3], align_corners=False, scale_factors=None),
    dict(output_size=None, align_corners=False, scale_factors=[1.7, 0.9]),
    dict(output_size=None, align_corners=True, scale_factors=[0.8, 1.0]),
    dict(output_size=[3, 3], align_corners=False, scales_h=None, scales_w=None),
    dict(output_size=[3, 3], align_corners=False, scales_h=1.7, scales_w=0.9),
    dict(output_size=[5, 5], align_corners=True, scales_h=1.7, scales_w=0.9),
])
def test_upsample_bilinear2d_aa_matches_torch(kwargs):
    a, b = _pair(RNG.standard_normal((2, 3, 10, 20)).astype(np.float32), True)
    got = tl.ops.aten._upsample_bilinear2d_aa(a, **kwargs)
    want = torch.ops.aten._upsample_bilinear2d_aa(b, **kwargs)
    _close(got, want)
    got.sum().backward()
    want.sum().backward()
    _close(a.grad, b.grad)


# --- segment_reduce ----------------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "max", "min", "amax", "amin"])
@pytest.mark.parametrize("initial", [None, 2])
def test_segment_reduce_values_and_grads(reduce, initial):
    x = np.array([1., 2., 2., 0., 3., 3., -1.], np.float32)  # ties, a zero, an empty segment
    lengths = [1, 0, 3, 2, 1]
    a, b = _pair(x, True)
    got = tl.segment_reduce(a, reduce, lengths=tl.tensor(lengths), initial=initial)
    want = torch.segment_reduce(b, reduce, lengths=torch.tensor(lengths), initial=initial)
    _close(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = np.array([1., 10., 100., 1000., 7.], np.float32)
    got.backward(tl.tensor(g))
    want.backward(torch.tensor(g))
    _close(a.grad, b.grad)


@pytest.mark.parametrize("mode", ["lengths", "offsets"])
@pytest.mark.parametrize("reduce", ["sum", "max", "mean", "prod"])
def test_segment_reduce_along_inner_axis(mode, reduce):
    x = RNG.standard_normal((5, 5, 3)).astype(np.float32)
    lengths = np.array([[2, 0, 3, 0], [0, 1, 2, 2], [3, 0, 2, 0], [1, 1, 1, 2], [0, 1, 2, 2]])

    def run(lib):
        ln = lib.tensor(lengths)
        kw = {"lengths": ln} if mode == "lengths" else {
            "offsets": lib.cat([lib.zeros(5, 1, dtype=lib.int64), ln], 1).cumsum(1)}
        return lib._segment_reduce(lib.tensor(x), reduce, axis=1, initial=1, **kw)
    _close(run(tl), run(torch))


def test_segment_reduce_unsafe_lengths_short_of_the_axis():
    x = np.arange(12.0, dtype=np.float32).reshape(6, 2)
    got = tl.segment_reduce(tl.tensor(x), "sum", lengths=tl.tensor([1, 2, 0]), unsafe=True)
    want = torch.segment_reduce(torch.tensor(x), "sum", lengths=torch.tensor([1, 2, 0]), unsafe=True)
    _close(got, want)


def test_segment_reduce_nan_propagates_through_max_and_min():
    x = np.array([1., np.nan, 2., 5.], np.float32)
    for reduce in ("max", "min"):
        _close(tl.segment_reduce(tl.tensor(x), reduce, lengths=tl.tensor([3, 1])),
               torch.segment_reduce(torch.tensor(x), reduce, lengths=torch.tensor([3, 1])))


@pytest.mark.parametrize("kwargs", [dict(), dict(lengths=[1, 2]), dict(lengths=[-1, 6]), dict(lengths=[5], bad=1)])
def test_segment_reduce_errors_match_torch(kwargs):
    reduce = "foo" if kwargs.pop("bad", None) else "sum"

    def call(lib):
        kw = {k: lib.tensor(v) for k, v in kwargs.items()}
        return lambda: lib.segment_reduce(lib.arange(5.0), reduce, **kw)
    raises_like_torch(torch_or_tl(call(torch), call(tl)))


def test_segment_reduce_under_compile_matches_eager():
    x, ln = tl.tensor([1., 2., 3., 4., 5.]), tl.tensor([2, 0, 3])
    f = tl.compile(lambda x, ln: tl.segment_reduce(x, "max", lengths=ln, initial=0.5))
    _close(f(x, ln), torch.segment_reduce(torch.tensor([1., 2., 3., 4., 5.]), "max",
                                          lengths=torch.tensor([2, 0, 3]), initial=0.5))


# --- 5-D grid_sample / grid_sampler_3d -----------------------------------------------------------------
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_5d_matches_torch(mode, padding, align):
    (xa, xb) = _pair(RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32), True)
    (ga, gb) = _pair(RNG.uniform(-1.5, 1.5, (2, 3, 2, 4, 3)).astype(np.float32), True)
    got = tl.nn.functional.grid_sample(xa, ga, mode=mode, padding_mode=padding, align_corners=align)
    want = torch.nn.functional.grid_sample(xb, gb, mode=mode, padding_mode=padding, align_corners=align)
    _close(got, want)
    assert got.grad_fn.name() == want.grad_fn.name()
    got.pow(2).sum().backward()
    want.pow(2).sum().backward()
    _close(xa.grad, xb.grad, 1e-4, 1e-4)
    _close(ga.grad, gb.grad, 1e-4, 1e-4)


def test_grid_sampler_3d_integer_codes():
    x = RNG.standard_normal((1, 2, 3, 3, 3)).astype(np.float32)
    g = RNG.uniform(-1, 1, (1, 2, 2, 2, 3)).astype(np.float32)
    for mode, pad in [(0, 0), (1, 1), (0, 2)]:
        _close(tl.grid_sampler_3d(tl.tensor(x), tl.tensor(g), mode, pad, True),
               torch.grid_sampler_3d(torch.tensor(x), torch.tensor(g), mode, pad, True))


@pytest.mark.parametrize("shapes,mode", [
    (((1, 1, 2, 2, 2), (1, 1, 1, 1, 2)), "bilinear"),
    (((1, 1, 2, 2, 2), (1, 1, 1, 3)), "bilinear"),
    (((1, 1, 2, 2, 2), (1, 1, 1, 1, 3)), "bicubic"),
    (((1, 1, 2, 2, 2), (2, 1, 1, 1, 3)), "bilinear"),
])
def test_grid_sample_5d_errors_match_torch(shapes, mode):
    (xs, gs) = shapes

    def call(lib):
        return lambda: lib.nn.functional.grid_sample(lib.zeros(*xs), lib.zeros(*gs), mode=mode, align_corners=False)
    raises_like_torch(torch_or_tl(call(torch), call(tl)))


# --- max_pool2d_with_indices_backward ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 6, 6), (3, 6, 6)])
def test_max_pool2d_with_indices_backward_matches_torch_and_differentiates(shape):
    x = RNG.standard_normal(shape)
    g = RNG.standard_normal(shape[:-2] + (3, 3))

    def run(lib):
        xi = lib.tensor(x, requires_grad=True)
        gi = lib.tensor(g, requires_grad=True)
        _, idx = lib.nn.functional.max_pool2d(xi.detach(), 2, return_indices=True)
        r = lib.ops.aten.max_pool2d_with_indices_backward(gi, xi, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
        r.pow(2).sum().backward()
        return r, gi.grad, xi.grad, r.grad_fn.name()
    got, want = run(tl), run(torch)
    for a, b in zip(got[:3], want[:3]):
        _close(a, b, 1e-10, 1e-10)
    assert got[3] == want[3]
