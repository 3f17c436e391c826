"""Resampling compared with torch: ``grid_sample`` (4-D and 5-D), torch's integer-coded
``grid_sampler_2d`` / ``grid_sampler_3d``, and the anti-aliased bilinear upsampling reached through
``torch.ops.aten``: values, gradients, errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, raises_like_torch, tensor_pair, to_tl, torch_or_tl  # noqa: E402

RNG = np.random.default_rng(0)


# --- grid_sampler_2d: torch's integer-coded grid_sample ----------------------------------------------
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sampler_2d_matches_torch(mode, padding, align):
    g = torch.Generator().manual_seed(mode * 6 + padding * 2 + align)
    x = torch.randn(2, 3, 5, 6, generator=g, dtype=torch.float64)
    grid = torch.rand(2, 4, 4, 2, generator=g, dtype=torch.float64) * 2.4 - 1.2
    assert_same(torchlike.grid_sampler_2d(to_tl(x), to_tl(grid), mode, padding, align),
                torch.grid_sampler_2d(x, grid, mode, padding, align), rtol=None, atol=None)
    assert_same(torchlike.grid_sampler(to_tl(x), to_tl(grid), mode, padding, align),
                torch.grid_sampler(x, grid, mode, padding, align), rtol=None, atol=None)


# --- 5-D grid_sample, grid_sampler_3d, anti-aliased bilinear upsampling ---------------------------
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
    a, b = tensor_pair(RNG.standard_normal((2, 3, 10, 20)).astype(np.float32), True)
    got = torchlike.ops.aten._upsample_bilinear2d_aa(a, **kwargs)
    want = torch.ops.aten._upsample_bilinear2d_aa(b, **kwargs)
    assert_same(got, want, rtol=1e-5, atol=1e-5)
    got.sum().backward()
    want.sum().backward()
    assert_same(a.grad, b.grad, rtol=1e-5, atol=1e-5)


# --- 5-D grid_sample / grid_sampler_3d -----------------------------------------------------------------
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_5d_matches_torch(mode, padding, align):
    (xa, xb) = tensor_pair(RNG.standard_normal((2, 3, 4, 5, 6)).astype(np.float32), True)
    (ga, gb) = tensor_pair(RNG.uniform(-1.5, 1.5, (2, 3, 2, 4, 3)).astype(np.float32), True)
    got = torchlike.nn.functional.grid_sample(xa, ga, mode=mode, padding_mode=padding, align_corners=align)
    want = torch.nn.functional.grid_sample(xb, gb, mode=mode, padding_mode=padding, align_corners=align)
    assert_same(got, want, rtol=1e-5, atol=1e-5)
    assert got.grad_fn.name() == want.grad_fn.name()
    got.pow(2).sum().backward()
    want.pow(2).sum().backward()
    assert_same(xa.grad, xb.grad, rtol=1e-4, atol=1e-4)
    assert_same(ga.grad, gb.grad, rtol=1e-4, atol=1e-4)


def test_grid_sampler_3d_integer_codes():
    x = RNG.standard_normal((1, 2, 3, 3, 3)).astype(np.float32)
    g = RNG.uniform(-1, 1, (1, 2, 2, 2, 3)).astype(np.float32)
    for mode, pad in [(0, 0), (1, 1), (0, 2)]:
        assert_same(torchlike.grid_sampler_3d(torchlike.tensor(x), torchlike.tensor(g), mode, pad, True), torch.grid_sampler_3d(torch.tensor(x), torch.tensor(g), mode, pad, True), rtol=1e-5, atol=1e-5)


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
    raises_like_torch(torch_or_tl(call(torch), call(torchlike)))


# --- interpolate's source indices in float32: torch's x86 kernels fuse ``scale * (dst + 0.5) - 0.5`` -------------
@pytest.mark.parametrize("mode,antialias", [("linear", False), ("bilinear", False), ("bicubic", False),
                                            ("trilinear", False), ("bilinear", True), ("bicubic", True)])
def test_interpolate_float32_downscale_rounds_like_torch(mode, antialias):
    """A 345 -> 270 resize (OpInfo's reference input): row 200's source index is 255.694443 in torch (one
    rounding of a fused multiply-add), 255.694458 with float32's two roundings, which moved a whole output row
    by ~2.6e-4; the anti-aliased weights round their center, support and filter argument where torch's do."""
    spatial = {"linear": (345,), "bilinear": (345, 456), "bicubic": (345, 456), "trilinear": (9, 345, 12)}[mode]
    size = {"linear": (270,), "bilinear": (270, 270), "bicubic": (270, 270), "trilinear": (5, 270, 7)}[mode]
    x = RNG.uniform(-9, 9, (1, 2) + spatial).astype(np.float32)
    kw = {"size": size, "mode": mode, "align_corners": False}
    if antialias:
        kw["antialias"] = True
    ours = torchlike.nn.functional.interpolate(torchlike.tensor(x), **kw).numpy()
    theirs = torch.nn.functional.interpolate(torch.from_numpy(x), **kw).numpy()
    tol = 2e-5 if mode == "bicubic" else 4e-6  # (bicubic: last-bit sums of four taps, the filter's own roundings)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=tol)


# --- uint8 bilinear/bicubic: torch's integer kernel (int16 weights, width pass then height pass) ---------------
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("kw", [dict(size=(3, 4)), dict(size=(12, 17)), dict(size=(7, 5)), dict(size=(4, 9)),
                                dict(scale_factor=(1.7, 0.6)), dict(scale_factor=0.45)])
def test_interpolate_uint8_rounds_like_torchs_integer_kernel(mode, align, antialias, kw):
    """torch resizes uint8 images with fixed-point weights, rounding and clamping to uint8 after each
    separable pass (the path torchvision's ``resize`` of a uint8 image takes); computing in float and
    truncating once gave about half the pixels one off."""
    x = RNG.integers(0, 256, (2, 5, 7, 9)).astype(np.uint8)
    call = dict(kw, mode=mode, align_corners=align, antialias=antialias)
    assert_same(torchlike.nn.functional.interpolate(torchlike.tensor(x), **call),
                torch.nn.functional.interpolate(torch.from_numpy(x), **call), rtol=0, atol=0)


def test_upsample_bilinear_and_aa_op_of_uint8_match_torch():
    x = RNG.integers(0, 256, (2, 3, 4, 4)).astype(np.uint8)
    with pytest.warns(UserWarning):
        got = torchlike.nn.functional.upsample_bilinear(torchlike.tensor(x), size=(3, 3))
    with pytest.warns(UserWarning):
        want = torch.nn.functional.upsample_bilinear(torch.from_numpy(x), size=(3, 3))
    assert_same(got, want, rtol=0, atol=0)
    assert_same(torchlike.ops.aten._upsample_bilinear2d_aa(torchlike.tensor(x), [3, 7], False, None),
                torch.ops.aten._upsample_bilinear2d_aa(torch.from_numpy(x), [3, 7], False, None), rtol=0, atol=0)


@pytest.mark.parametrize("mode,shape,aa", [("linear", (1, 2, 5), False), ("trilinear", (1, 2, 3, 3, 3), False),
                                           ("nearest", (2, 3, 5), False), ("nearest-exact", (2, 3, 5, 5), False),
                                           ("nearest", (1, 2, 3, 3, 3), False), ("bilinear", (2, 3, 5, 5), False),
                                           ("bicubic", (2, 1, 5, 5), False), ("bilinear", (2, 3, 5, 5), True),
                                           ("bicubic", (2, 3, 5, 5), True)])
@pytest.mark.parametrize("dtype", ["uint8", "int64", "int8", "bool"])
def test_interpolate_of_integers_raises_like_torch(mode, shape, aa, dtype):
    """torch computes uint8 nearest, bilinear and bicubic; every other integer case raises its kernel's
    NotImplementedError (torchlike computed them in float and cast back)."""
    def call(lib):
        return lambda: lib.nn.functional.interpolate(lib.zeros(*shape, dtype=getattr(lib, dtype)), scale_factor=2,
                                                     mode=mode, antialias=aa)
    if dtype == "uint8" and mode not in ("linear", "trilinear"):
        assert_same(call(torchlike)(), call(torch)(), rtol=0, atol=0)
    else:
        raises_like_torch(torch_or_tl(call(torch), call(torchlike)))


@pytest.mark.parametrize("name,shape", [("adaptive_avg_pool1d", (2, 3, 4)), ("adaptive_avg_pool2d", (2, 3, 4, 4)),
                                        ("adaptive_avg_pool2d", (3, 4, 4)), ("adaptive_avg_pool3d", (2, 3, 4, 4, 4))])
@pytest.mark.parametrize("dtype", ["uint8", "int64", "int32", "bool"])
def test_adaptive_avg_pool_and_area_interpolate_of_integers_raise_like_torch(name, shape, dtype):
    def call(lib):
        return lambda: getattr(lib.nn.functional, name)(lib.zeros(*shape, dtype=getattr(lib, dtype)), 2)
    raises_like_torch(torch_or_tl(call(torch), call(torchlike)))
    if len(shape) > 3 or name.endswith("1d"):
        def area(lib):
            return lambda: lib.nn.functional.interpolate(lib.zeros(*shape, dtype=getattr(lib, dtype)),
                                                         scale_factor=0.5, mode="area")
        raises_like_torch(torch_or_tl(area(torch), area(torchlike)))


@pytest.mark.parametrize("call,warns", [
    (lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2)), True),
    (lambda L: L.nn.functional.affine_grid(L.eye(2, 3).unsqueeze(0), (1, 1, 2, 2)), True),
    (lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), align_corners=False), False),
    (lambda L: L.nn.functional.affine_grid(L.eye(2, 3).unsqueeze(0), (1, 1, 2, 2), align_corners=True), False),
    (lambda L: L.grid_sampler(L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), 0, 0, False), False),
], ids=["grid_sample", "affine_grid", "grid_sample_given", "affine_grid_given", "grid_sampler"])
def test_default_align_corners_warns_like_torch(call, warns):
    """F.grid_sample / F.affine_grid without align_corners: torch's UserWarning about the 1.3.0 default change,
    attributed to the caller's line (old STN / PyTorch-GAN code leaves it out); torchlike was silent."""
    import warnings
    seen = {}
    for L in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(L)
        seen[L.__name__] = [(x.category, str(x.message), x.filename) for x in w]
    assert seen["torch"] == seen["torchlike"]
    assert len(seen["torch"]) == warns and (not warns or seen["torch"][0][2] == __file__)
