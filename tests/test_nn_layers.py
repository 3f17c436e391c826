"""torchlike.nn.functional layers (conv, pooling, norms, vision, attention, embedding_bag) vs torch:
forward values, input and parameter gradients on the same inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import torchlike as tl
import torchlike.nn.functional as F
from conftest import raises_like_torch, torch_or_tl

rng = np.random.default_rng(0)


def f(*s):
    return rng.standard_normal(s).astype(np.float32)


def cmp(tf, lf, xs, nondiff=(), tol=1e-4, **kw):
    """Run torch fn ``tf`` and torchlike fn ``lf`` on the same arrays; compare outputs and grads."""
    tt = [torch.tensor(x, requires_grad=(i not in nondiff)) for i, x in enumerate(xs)]
    lt = [tl.tensor(x, requires_grad=(i not in nondiff)) for i, x in enumerate(xs)]
    a, b = tf(*tt, **kw), lf(*lt, **kw)
    if isinstance(a, tuple):
        for x, y in zip(a[1:], b[1:]):
            if x is None:
                assert y is None
                continue
            assert y.dtype.name == str(x.dtype).split(".")[1]
            np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=tol, atol=tol)
        a, b = a[0], b[0]
    assert tuple(a.shape) == tuple(b.shape)
    assert b.dtype.name == str(a.dtype).split(".")[1]
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(a.shape).astype(np.float32)
    a.backward(torch.tensor(g))
    b.backward(tl.tensor(g))
    for i, (x, y) in enumerate(zip(tt, lt)):
        if i in nondiff:
            continue
        if x.grad is None:
            assert y.grad is None or not np.any(y.grad.numpy())
            continue
        np.testing.assert_allclose(y.grad.numpy(), x.grad.numpy(), rtol=tol, atol=tol)


def raises_like(tf, lf):
    """``raises_like_torch`` for a torch callable and its torchlike twin: same exception type and message."""
    raises_like_torch(torch_or_tl(tf, lf))


# --- convolution --------------------------------------------------------------------------------
@pytest.mark.parametrize("name,shapes,kw", [
    ("conv2d", [(2, 4, 7, 6), (6, 2, 3, 2), (6,)], dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)),
    ("conv1d", [(2, 4, 7), (6, 4, 4)], dict(padding="same", dilation=2)),
    ("conv1d", [(4, 9), (6, 4, 3)], dict(padding="valid", stride=2)),
    ("conv3d", [(4, 5, 6, 7), (2, 4, 3, 2, 3)], dict(padding=(1, 0, 1))),
    ("conv_transpose2d", [(2, 4, 5, 6), (4, 3, 3, 2), (6,)],
     dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2)),
    ("conv_transpose1d", [(2, 4, 5), (4, 3, 3)], dict(stride=2, padding=1, dilation=2, output_padding=1)),
    ("conv_transpose3d", [(1, 2, 3, 4, 5), (2, 3, 2, 2, 2)], dict(stride=2)),
])
def test_conv(name, shapes, kw):
    cmp(getattr(TF, name), getattr(F, name), [f(*s) for s in shapes], **kw)


def test_conv_errors():
    raises_like(lambda: TF.conv2d(torch.zeros(1, 3, 5, 5), torch.zeros(3, 2, 3, 3)),
                lambda: F.conv2d(tl.zeros(1, 3, 5, 5), tl.zeros(3, 2, 3, 3)))
    raises_like(lambda: TF.conv2d(torch.zeros(1, 2, 5, 5), torch.zeros(3, 2, 3, 3), stride=2, padding="same"),
                lambda: F.conv2d(tl.zeros(1, 2, 5, 5), tl.zeros(3, 2, 3, 3), stride=2, padding="same"))
    raises_like(lambda: TF.conv2d(torch.zeros(1, 2, 2, 2), torch.zeros(3, 2, 3, 3)),
                lambda: F.conv2d(tl.zeros(1, 2, 2, 2), tl.zeros(3, 2, 3, 3)))
    raises_like(lambda: TF.conv2d(torch.zeros(1, 2, 5, 5).double(), torch.zeros(3, 2, 3, 3)),
                lambda: F.conv2d(tl.zeros(1, 2, 5, 5).double(), tl.zeros(3, 2, 3, 3)))


def test_conv_float64():
    cmp(TF.conv2d, F.conv2d, [f(1, 2, 5, 5).astype(np.float64), f(3, 2, 3, 3).astype(np.float64)], tol=1e-10)


# --- pooling ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ri", [False, True])
def test_max_pools(ri):
    cmp(TF.max_pool2d, F.max_pool2d, [f(2, 3, 7, 8)], kernel_size=3, stride=2, padding=1, ceil_mode=True,
        return_indices=ri)
    if ri:
        cmp(TF.max_pool1d, F.max_pool1d, [f(2, 3, 9)], kernel_size=2, stride=2, dilation=2, ceil_mode=True,
            return_indices=ri)
        return
    cmp(TF.max_pool3d, F.max_pool3d, [f(3, 5, 6, 7)], kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0),
        return_indices=ri)
    cmp(TF.adaptive_max_pool2d, F.adaptive_max_pool2d, [f(2, 3, 7, 9)], output_size=(3, 4), return_indices=ri)
    cmp(TF.adaptive_max_pool3d, F.adaptive_max_pool3d, [f(2, 5, 4, 6)], output_size=(3, None, 4),
        return_indices=ri)


def test_max_pool_ties_gradient_goes_to_first():
    x = np.maximum(f(2, 3, 8, 8), 0)  # many zeros: ties inside windows
    cmp(TF.max_pool2d, F.max_pool2d, [x], kernel_size=2)
    cmp(TF.max_pool2d, F.max_pool2d, [x], kernel_size=3, stride=2, return_indices=True)


@pytest.mark.parametrize("n,shape", [(1, (2, 3, 9)), (2, (2, 3, 9, 7)), (2, (3, 9, 7)), (3, (1, 2, 5, 6, 7))])
@pytest.mark.parametrize("k,p,ceil", [(2, 0, False), (2, 1, True), (3, 1, False), (3, 0, True)])
def test_tiled_max_pools_match_torch(n, shape, k, p, ceil):
    """Windows that tile the input (stride == kernel: the reshape path) with padding and ceil_mode: values and
    gradients bit-equal to torch's, ties to the first maximum, a window's last NaN kept as torch's loop keeps it."""
    ties = np.maximum(np.round(f(*shape)), 0)
    nans = f(*shape)
    nans[..., 0] = np.nan
    for x in (f(*shape), ties, nans):
        tx = torch.from_numpy(x.copy()).requires_grad_()
        lx = tl.tensor(x.copy(), requires_grad=True)
        ty = getattr(TF, f"max_pool{n}d")(tx, k, k, p, ceil_mode=ceil)
        tl_x = getattr(F, f"max_pool{n}d")(lx, k, k, p, ceil_mode=ceil)
        np.testing.assert_array_equal(tl_x.detach().numpy(), ty.detach().numpy())
        g = f(*ty.shape)
        ty.backward(torch.from_numpy(g))
        tl_x.backward(tl.tensor(g))
        np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["bool", "int64", "complex64"])
@pytest.mark.parametrize("ri", [False, True])
def test_max_pool_unsupported_dtypes_raise_like_torch(n, dtype, ri):
    shape = (1, 4) if n == 1 else (1, 1) + (4,) * n

    def call(m):
        return getattr(m.nn.functional, f"max_pool{n}d")(m.zeros(shape, dtype=getattr(m, dtype)), 2, return_indices=ri)
    if dtype == "int64" and (n > 1 or ri):  # torch pools integers except in max_pool1d's own kernel
        ours, theirs = call(tl), call(torch)
        ours, theirs = (ours[0], theirs[0]) if ri else (ours, theirs)
        assert ours.dtype == tl.int64 and theirs.dtype == torch.int64
    else:
        raises_like_torch(call)


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=(3, 2), stride=2, padding=1, divisor_override=5)])
def test_avg_pool2d(kw):
    cmp(TF.avg_pool2d, F.avg_pool2d, [f(2, 3, 7, 8)], **kw)


def test_avg_pool_1d_3d_adaptive_lp():
    cmp(TF.avg_pool1d, F.avg_pool1d, [f(2, 3, 10)], kernel_size=4, stride=3, padding=2, ceil_mode=True)
    cmp(TF.avg_pool3d, F.avg_pool3d, [f(1, 2, 5, 6, 7)], kernel_size=3, stride=2, padding=1, ceil_mode=True,
        count_include_pad=False)
    cmp(TF.adaptive_avg_pool2d, F.adaptive_avg_pool2d, [f(2, 3, 7, 9)], output_size=(3, None))
    cmp(TF.adaptive_avg_pool3d, F.adaptive_avg_pool3d, [f(2, 3, 7, 9, 5)], output_size=(3, 4, 2))
    cmp(TF.adaptive_avg_pool1d, F.adaptive_avg_pool1d, [f(2, 3, 7)], output_size=4)
    cmp(TF.lp_pool2d, F.lp_pool2d, [np.abs(f(2, 3, 7, 8)) + 0.1], norm_type=3, kernel_size=2, ceil_mode=True)
    cmp(TF.lp_pool1d, F.lp_pool1d, [np.abs(f(2, 3, 7)) + 0.1], norm_type=2, kernel_size=3, stride=2)


def test_fractional_max_pool():
    s = rng.random((2, 3, 2)).astype(np.float32)
    cmp(lambda x, **k: TF.fractional_max_pool2d(x, _random_samples=torch.tensor(s), **k),
        lambda x, **k: F.fractional_max_pool2d(x, _random_samples=tl.tensor(s), **k), [f(2, 3, 9, 11)],
        kernel_size=(2, 3), output_size=(5, 4), return_indices=True)
    s3 = rng.random((2, 3, 3)).astype(np.float32)
    cmp(lambda x, **k: TF.fractional_max_pool3d(x, _random_samples=torch.tensor(s3), **k),
        lambda x, **k: F.fractional_max_pool3d(x, _random_samples=tl.tensor(s3), **k), [f(2, 3, 9, 11, 7)],
        kernel_size=2, output_ratio=0.5, return_indices=True)
    assert F.fractional_max_pool2d(tl.randn(1, 2, 8, 8), 2, output_size=5).shape == (1, 2, 5, 5)


def test_max_unpool():
    v, i = TF.max_pool2d(torch.tensor(f(2, 3, 8, 8)), 2, return_indices=True)
    cmp(TF.max_unpool2d, F.max_unpool2d, [v.numpy(), i.numpy()], nondiff=(1,), kernel_size=2, output_size=(9, 9))
    v, i = TF.max_pool1d(torch.tensor(f(2, 3, 8)), 2, return_indices=True)
    cmp(TF.max_unpool1d, F.max_unpool1d, [v.numpy(), i.numpy()], nondiff=(1,), kernel_size=2)


def test_pool_errors():
    raises_like(lambda: TF.max_pool2d(torch.zeros(1, 2, 5, 5), 3, padding=2),
                lambda: F.max_pool2d(tl.zeros(1, 2, 5, 5), 3, padding=2))


# --- normalization ------------------------------------------------------------------------------
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("fn", ["batch_norm", "instance_norm"])
def test_batch_instance_norm_running_stats(training, fn):
    x = f(4, 3, 5, 2)
    rm0, rv0 = f(3), np.abs(f(3)) + 0.5
    trm, trv, lrm, lrv = torch.tensor(rm0), torch.tensor(rv0), tl.tensor(rm0), tl.tensor(rv0)
    cmp(lambda x, w, b: getattr(TF, fn)(x, trm, trv, w, b, training, 0.3),
        lambda x, w, b: getattr(F, fn)(x, lrm, lrv, w, b, training, 0.3), [x, f(3), f(3)])
    np.testing.assert_allclose(lrm.numpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lrv.numpy(), trv.numpy(), rtol=1e-5, atol=1e-6)


def test_norms():
    cmp(lambda x: TF.batch_norm(x, None, None, training=True), lambda x: F.batch_norm(x, None, None, training=True),
        [f(5, 3)])
    cmp(lambda x, w, b: TF.layer_norm(x, (3, 4), w, b), lambda x, w, b: F.layer_norm(x, (3, 4), w, b),
        [f(2, 5, 3, 4), f(3, 4), f(3, 4)])
    cmp(lambda x, w: TF.rms_norm(x, (4,), w), lambda x, w: F.rms_norm(x, (4,), w), [f(2, 5, 3, 4), f(4)])
    cmp(lambda x: TF.rms_norm(x, (3, 4), eps=1e-2), lambda x: F.rms_norm(x, (3, 4), eps=1e-2), [f(2, 3, 4)])
    cmp(lambda x, w, b: TF.group_norm(x, 3, w, b), lambda x, w, b: F.group_norm(x, 3, w, b),
        [f(2, 6, 3, 4), f(6), f(6)])
    cmp(lambda x: TF.local_response_norm(x, 3), lambda x: F.local_response_norm(x, 3), [f(2, 6, 3, 4)])
    cmp(lambda x: TF.local_response_norm(x, 4, 0.1, 0.6, 2.), lambda x: F.local_response_norm(x, 4, 0.1, 0.6, 2.),
        [f(2, 6, 3)])


def test_norm_errors():
    raises_like(lambda: TF.batch_norm(torch.randn(1, 3), torch.zeros(3), torch.ones(3), training=True),
                lambda: F.batch_norm(tl.randn(1, 3), tl.zeros(3), tl.ones(3), training=True))
    raises_like(lambda: TF.layer_norm(torch.randn(2, 3), (4,)), lambda: F.layer_norm(tl.randn(2, 3), (4,)))
    raises_like(lambda: TF.group_norm(torch.randn(2, 3, 4), 2), lambda: F.group_norm(tl.randn(2, 3, 4), 2))


# --- vision -------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(mode):
    cmp(lambda x: TF.pad(x, (1, 2, 2, 1), mode=mode), lambda x: F.pad(x, (1, 2, 2, 1), mode=mode), [f(2, 3, 5, 6)])
    cmp(lambda x: TF.pad(x, (1, 2), mode=mode), lambda x: F.pad(x, (1, 2), mode=mode), [f(3, 6)])


def test_pad_constant_negative_and_errors():
    cmp(lambda x: TF.pad(x, (1, -2, 0, 1, 1, 1), value=3.), lambda x: F.pad(x, (1, -2, 0, 1, 1, 1), value=3.),
        [f(2, 3, 5, 6)])
    raises_like(lambda: TF.pad(torch.randn(1, 2, 3), (3, 3), mode="reflect"),
                lambda: F.pad(tl.randn(1, 2, 3), (3, 3), mode="reflect"))


_INTERP = [("nearest", (2, 3, 5, 6)), ("nearest-exact", (2, 3, 5, 6)), ("linear", (2, 3, 7)),
           ("bilinear", (2, 3, 5, 6)), ("bicubic", (2, 3, 5, 6)), ("trilinear", (1, 2, 3, 4, 5)), ("area", (2, 3, 7, 6))]


@pytest.mark.parametrize("mode,shape", _INTERP)
def test_interpolate(mode, shape):
    x = f(*shape)
    n = len(shape) - 2
    lin = not (mode.startswith("nearest") or mode == "area")
    for kw, ac in (({"size": (9, 4, 7)[:n]}, True if lin else None),
                   ({"scale_factor": (1.7, 2.0, 0.6)[:n]}, False if lin else None),
                   ({"scale_factor": 1.5, "recompute_scale_factor": True}, False if lin else None)):
        if kw.get("recompute_scale_factor") and mode not in ("bilinear", "nearest"):
            continue
        if True:
            cmp(lambda x: TF.interpolate(x, mode=mode, align_corners=ac, **kw),
                lambda x: F.interpolate(x, mode=mode, align_corners=ac, **kw), [x])


def test_interpolate_errors():
    raises_like(lambda: TF.interpolate(torch.randn(1, 2, 3), size=5, mode="bilinear"),
                lambda: F.interpolate(tl.randn(1, 2, 3), size=5, mode="bilinear"))
    raises_like(lambda: TF.interpolate(torch.randn(1, 2, 3), size=5, scale_factor=2),
                lambda: F.interpolate(tl.randn(1, 2, 3), size=5, scale_factor=2))


@pytest.mark.parametrize("mode,pm,ac", [("bilinear", "zeros", False), ("bilinear", "border", True),
                                        ("bilinear", "reflection", False), ("bilinear", "reflection", True),
                                        ("nearest", "zeros", True), ("bicubic", "zeros", False),
                                        ("bicubic", "reflection", True), ("bicubic", "border", False)])
def test_grid_sample(mode, pm, ac):
    if True:
        g = rng.uniform(-1.3, 1.3, (2, 4, 5, 2)).astype(np.float32)
        cmp(lambda x, g: TF.grid_sample(x, g, mode=mode, padding_mode=pm, align_corners=ac),
            lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=pm, align_corners=ac), [f(2, 3, 5, 6), g],
            nondiff=(1,) if mode == "nearest" else (), tol=2e-4)


def test_affine_grid_shuffles_fold():
    for ac in (False, True):
        cmp(lambda t: TF.affine_grid(t, (2, 3, 4, 5), align_corners=ac),
            lambda t: F.affine_grid(t, (2, 3, 4, 5), align_corners=ac), [f(2, 2, 3)])
        cmp(lambda t: TF.affine_grid(t, (2, 3, 4, 5, 3), align_corners=ac),
            lambda t: F.affine_grid(t, (2, 3, 4, 5, 3), align_corners=ac), [f(2, 3, 4)])
    cmp(lambda x: TF.pixel_shuffle(x, 2), lambda x: F.pixel_shuffle(x, 2), [f(2, 8, 3, 4)])
    cmp(lambda x: TF.pixel_unshuffle(x, 2), lambda x: F.pixel_unshuffle(x, 2), [f(2, 3, 4, 6)])
    cmp(lambda x: TF.channel_shuffle(x, 3), lambda x: F.channel_shuffle(x, 3), [f(2, 6, 4, 3)])
    kw = dict(dilation=(1, 2), padding=1, stride=(2, 1))
    cmp(lambda x: TF.unfold(x, (2, 3), **kw), lambda x: F.unfold(x, (2, 3), **kw), [f(2, 3, 7, 8)])
    y = TF.unfold(torch.tensor(f(2, 3, 7, 8)), (2, 3), **kw)
    cmp(lambda x: TF.fold(x, (7, 8), (2, 3), **kw), lambda x: F.fold(x, (7, 8), (2, 3), **kw), [y.numpy()])


# --- attention ----------------------------------------------------------------------------------
def test_sdpa():
    q, k, v = f(2, 3, 5, 4), f(2, 3, 6, 4), f(2, 3, 6, 4)
    cmp(TF.scaled_dot_product_attention, F.scaled_dot_product_attention, [q, k, v])
    cmp(TF.scaled_dot_product_attention, F.scaled_dot_product_attention, [q, k, v], is_causal=True, scale=0.3)
    m = rng.random((5, 6)) > 0.3
    m[2] = False  # a fully masked row gives 0 like torch
    cmp(lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(m)),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=tl.tensor(m)), [q, k, v])
    cmp(lambda q, k, v, m: TF.scaled_dot_product_attention(q, k, v, attn_mask=m),
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), [q, k, v, f(5, 6)])
    cmp(lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
        [f(2, 4, 5, 4), f(2, 2, 6, 4), f(2, 2, 6, 4)])


def test_sdpa_dropout_statistics():
    q = tl.ones(1, 1, 200, 4)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    # each row averages the all-ones values with inverted dropout: mean ~1, some exact zeros
    assert abs(float(out.mean()) - 1.0) < 0.2


@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize("need_weights,bias_kv,zero", [(True, True, True), (False, False, False)])
def test_multi_head_attention_forward(need_weights, bias_kv, zero):
    E, H = 8, 2
    kpm = rng.random((3, 6)) > 0.7
    kpm[:, 0] = False
    am = f(5, 6)
    for avg in ((True,) if need_weights else (False,)):
        def mk(Fm, T):
            def fn(q, k, v, w, b, ow, ob, bk, bv):
                return Fm.multi_head_attention_forward(
                    q, k, v, E, H, w, b, bk if bias_kv else None, bv if bias_kv else None, zero, 0.0, ow, ob,
                    key_padding_mask=T(kpm), attn_mask=T(am), need_weights=need_weights, average_attn_weights=avg)
            return fn
        cmp(mk(TF, torch.tensor), mk(F, tl.tensor), [f(5, 3, E), f(6, 3, E), f(6, 3, E), f(3 * E, E), f(3 * E),
                                                       f(E, E), f(E), f(1, 1, E), f(1, 1, E)])


def test_mha_forward_separate_weights_unbatched():
    E, H = 8, 2

    def mk(Fm):
        def fn(q, k, v, qw, kw, vw, b, ow, ob):
            return Fm.multi_head_attention_forward(q, k, v, E, H, None, b, None, None, False, 0.0, ow, ob,
                                                   use_separate_proj_weight=True, q_proj_weight=qw,
                                                   k_proj_weight=kw, v_proj_weight=vw)
        return fn
    cmp(mk(TF), mk(F), [f(5, E), f(6, 6), f(6, 7), f(E, E), f(E, 6), f(E, 7), f(3 * E), f(E, E), f(E)])


# --- embedding_bag ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
    w = f(10, 3)
    # torch's max + padding_idx backward reads uninitialised memory, so max runs without padding_idx
    for pi, ilo, offs in ((None, False, [0, 2, 2, 5, 8]), (None if mode == "max" else 2, True, [0, 2, 2, 5, 10])):
        if True:
            cmp(lambda w: TF.embedding_bag(torch.tensor(idx), w, torch.tensor(offs), mode=mode, padding_idx=pi,
                                           include_last_offset=ilo),
                lambda w: F.embedding_bag(tl.tensor(idx), w, tl.tensor(offs), mode=mode, padding_idx=pi,
                                          include_last_offset=ilo), [w])
    cmp(lambda w: TF.embedding_bag(torch.tensor(idx.reshape(2, 5)), w, mode=mode),
        lambda w: F.embedding_bag(tl.tensor(idx.reshape(2, 5)), w, mode=mode), [w])


def test_embedding_bag_weights_and_max_norm():
    idx, offs = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 0]), np.array([0, 2, 2, 5, 8])
    cmp(lambda w, p: TF.embedding_bag(torch.tensor(idx), w, torch.tensor(offs), mode="sum", per_sample_weights=p),
        lambda w, p: F.embedding_bag(tl.tensor(idx), w, tl.tensor(offs), mode="sum", per_sample_weights=p),
        [f(10, 3), f(10)])
    w = f(10, 3)
    tw, lw = torch.tensor(w), tl.tensor(w)
    a = TF.embedding_bag(torch.tensor(idx), tw, torch.tensor(offs), max_norm=1.0)
    b = F.embedding_bag(tl.tensor(idx), lw, tl.tensor(offs), max_norm=1.0)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lw.numpy(), tw.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("q,k", [((2, 3, 4), (2, 3, 5)), ((3, 4), (3, 5)), ((2, 1, 3, 4), (1, 2, 3, 5)),
                                 ((2, 3, 4), (3, 5)), ((2, 2, 3, 4), (3, 3, 4))])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_sdpa_mismatched_shapes_raise_like_torch(q, k, dtype):
    """torch's math path fails in q @ k^T: the matmul's error, not a message of its own."""
    def fn(m):
        d = getattr(m, dtype)
        return m.nn.functional.scaled_dot_product_attention(m.ones(*q, dtype=d), m.ones(*k, dtype=d),
                                                            m.ones(*k, dtype=d))
    raises_like_torch(fn)


_SAME_PADDING_WARNINGS = """
import sys, warnings
import {lib} as torch
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.nn.functional.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 3), padding="same")
    torch.nn.Conv2d(1, 1, (2, 3), padding="same")(torch.ones(1, 1, 4, 4))
    torch.nn.functional.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 4), padding="same")
    torch._convolution_mode(torch.ones(1, 1, 5), torch.ones(1, 1, 2), None, [1], "same", [1], 1)
print([(x.category.__name__, str(x.message)) for x in w])
"""


def test_same_padding_with_an_uneven_split_warns_once_per_process_like_torch():
    """torch's TORCH_WARN_ONCE for padding='same' whose total padding is odd (an even kernel at odd dilation)."""
    import subprocess
    import sys
    out = [subprocess.run([sys.executable, "-c", _SAME_PADDING_WARNINGS.format(lib=lib)], capture_output=True,
                          text=True, timeout=300, check=True).stdout for lib in ("torch", "torchlike")]
    assert out[0] == out[1] and "zero-padded copy" in out[0], out
