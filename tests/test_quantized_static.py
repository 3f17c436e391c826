"""Static quantization pieces against torch 2.13 (x86 backend): the observers' qparams, the quantized kernels
(linear via fbgemm, conv2d via oneDNN or, past 100 groups, fbgemm, add/mul/cat/add_relu, relu, max_pool2d) bit for
bit on values chosen to hit rounding ties, the converted modules' repr/state_dict, and the NotImplementedError of
what is left out."""
import io
import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torchlike

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
rng = np.random.default_rng(0)


def _both(fn):
    return fn(torch), fn(torchlike)


def _ints(q):
    return np.asarray(q.int_repr().numpy()), q.q_scale(), q.q_zero_point()


@pytest.mark.parametrize("name,kw", [
    ("MinMaxObserver", {}), ("MinMaxObserver", dict(dtype="qint8", qscheme="per_tensor_symmetric")),
    ("MovingAverageMinMaxObserver", {}),
    ("PerChannelMinMaxObserver", dict(ch_axis=1, dtype="qint8", qscheme="per_channel_symmetric")),
    ("PerChannelMinMaxObserver", dict(ch_axis=0)), ("HistogramObserver", dict(reduce_range=True)),
    ("HistogramObserver", {})])
def test_observer_qparams(name, kw):
    data = [rng.standard_normal((4, 8, 6, 6)).astype(np.float32) * s + o
            for s, o in ((1, 0), (1.5, 0.3), (0.7, -0.2), (2, 1))]

    def run(m):
        k = {a: getattr(m, v) if isinstance(v, str) else v for a, v in kw.items()}
        obs = getattr(m.ao.quantization.observer, name)(**k)
        for d in data:
            obs(m.tensor(d))
        s, z = obs.calculate_qparams()
        return s.numpy(), z.numpy(), str(z.dtype), type(obs).__module__.replace("torchlike", "torch")
    t, ours = _both(run)
    np.testing.assert_array_equal(t[0], ours[0])
    np.testing.assert_array_equal(t[1], ours[1])
    assert t[2:] == ours[2:]


def _q(m, x, s, z):
    return m.quantize_per_tensor(m.tensor(x), s, z, m.quint8)


def _weights(m, w, per_channel):
    if per_channel:
        sw = m.tensor(np.linspace(0.002, 0.012, w.shape[0]), dtype=m.float64)
        return m.quantize_per_channel(m.tensor(w), sw, m.zeros(w.shape[0], dtype=m.long), 0, m.qint8)
    return m.quantize_per_tensor(m.tensor(w), 0.0071, 0, m.qint8)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("relu", [False, True])
def test_quantized_linear_bit_exact(per_channel, relu):
    x = rng.standard_normal((3000, 37)).astype(np.float32) * 2
    w = rng.standard_normal((67, 37)).astype(np.float32) * 0.3
    b = rng.standard_normal(67).astype(np.float32)

    def run(m):
        cls = m.ao.nn.intrinsic.quantized.LinearReLU if relu else m.ao.nn.quantized.Linear
        mod = cls(37, 67)
        mod.set_weight_bias(_weights(m, w, per_channel), m.tensor(b))
        mod.scale, mod.zero_point = 0.047, 91
        return _ints(mod(_q(m, x, 0.031, 67)))
    t, ours = _both(run)
    np.testing.assert_array_equal(t[0], ours[0])
    assert t[1:] == ours[1:]


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("relu,groups,stride", [(False, 1, 1), (True, 1, 2), (False, 2, 1)])
def test_quantized_conv2d_bit_exact(per_channel, relu, groups, stride):
    x = rng.standard_normal((40, 4, 20, 20)).astype(np.float32) * 2
    w = rng.standard_normal((16, 4 // groups, 3, 3)).astype(np.float32) * 0.3
    b = rng.standard_normal(16).astype(np.float32)

    def run(m):
        cls = m.ao.nn.intrinsic.quantized.ConvReLU2d if relu else m.ao.nn.quantized.Conv2d
        mod = cls(4, 16, 3, padding=1, groups=groups, stride=stride)
        mod.set_weight_bias(_weights(m, w, per_channel), m.tensor(b))
        mod.scale, mod.zero_point = 0.047, 91
        return _ints(mod(_q(m, x, 0.031, 67))), repr(mod).replace("torchlike", "torch")
    t, ours = _both(run)
    np.testing.assert_array_equal(t[0][0], ours[0][0])
    assert t[0][1:] == ours[0][1:] and t[1] == ours[1]


@pytest.mark.parametrize("cin,cout,groups,k,stride,pad", [
    (3, 8, 1, 3, 1, 1), (8, 8, 8, 3, 2, 1), (5, 6, 1, 1, 1, 0), (6, 6, 3, 3, 1, 1), (16, 16, 16, 5, 1, 2)])
def test_quantized_conv2d_geometries_bit_exact(cin, cout, groups, k, stride, pad):
    # odd channel counts, depthwise, 1x1 and 5x5: wide activations and weights make neighbouring products overflow
    # int16, which fbgemm (the x86 engine's convolution on CPUs without AVX512-VNNI) saturates
    x = rng.standard_normal((6, cin, 12, 12)).astype(np.float32) * 3
    w = rng.standard_normal((cout, cin // groups, k, k)).astype(np.float32) * 0.6
    b = rng.standard_normal(cout).astype(np.float32)

    def run(m):
        mod = m.ao.nn.quantized.Conv2d(cin, cout, k, padding=pad, groups=groups, stride=stride)
        mod.set_weight_bias(m.quantize_per_tensor(m.tensor(w), 0.0071, 0, m.qint8), m.tensor(b))
        mod.scale, mod.zero_point = 0.047, 91
        return _ints(mod(_q(m, x, 0.031, 20)))
    t, ours = _both(run)
    np.testing.assert_array_equal(t[0], ours[0])


@pytest.mark.parametrize("seed,kind,per_channel", [(3, "linear", False), (4, "linear", False), (4, "conv", False),
                                                   (8, "conv", False), (32, "linear", True),
                                                   (34, "conv", True)])
def test_quantized_bias_epilogue_ties(seed, kind, per_channel):
    # seeds whose outputs land within an ulp of a rounding tie: per tensor fbgemm adds bias * f32(1/ats) to the
    # accumulator in one fused multiply-add, per channel it adds bias / ats (either rounding alone is off by one)
    g = np.random.default_rng(seed)
    if kind == "conv":
        x, w, n = g.standard_normal((40, 4, 20, 20)).astype(np.float32) * 2, g.standard_normal((16, 2, 3, 3)), 16
    else:
        x, w, n = g.standard_normal((3000, 37)).astype(np.float32) * 2, g.standard_normal((67, 37)), 67
    w = w.astype(np.float32) * 0.3
    b = g.standard_normal(n).astype(np.float32) * (1 if seed == 8 else 3)

    def run(m):
        mod = m.ao.nn.quantized.Conv2d(4, 16, 3, padding=1, groups=2) if kind == "conv" else m.ao.nn.quantized.Linear(37, 67)
        mod.set_weight_bias(_weights(m, w, per_channel), m.tensor(b))
        mod.scale, mod.zero_point = 0.047, 91
        return _ints(mod(_q(m, x, 0.031, 67)))
    t, ours = _both(run)
    np.testing.assert_array_equal(t[0], ours[0])


@pytest.mark.parametrize("n,threads", [(63, 1), (200, 1), (1000, 1), (20001, 1), (70001, 1), (70001, 2)])
@pytest.mark.parametrize("scales", [(0.25, 0.125, 0.5), (0.1, 0.3, 0.2), (0.0371, 0.0257, 0.0413)])
@pytest.mark.parametrize("op", ["add", "add_relu", "mul", "cat"])
def test_qfunctional_bit_exact(n, threads, scales, op):
    a = rng.standard_normal(n).astype(np.float32) * 3
    b = rng.standard_normal(n).astype(np.float32) * 2

    def run(m):
        m.set_num_threads(threads)  # (each thread's chunk has its own scalar tail: torch's split is reproduced)
        f = m.ao.nn.quantized.QFunctional()
        f.scale, f.zero_point = scales[2], 97
        qa, qb = _q(m, a, scales[0], 61), _q(m, b, scales[1], 140)
        return _ints(f.cat([qa, qb]) if op == "cat" else getattr(f, op)(qa, qb))
    before = torch.get_num_threads(), torchlike.get_num_threads()
    try:
        t, ours = _both(run)
    finally:
        torch.set_num_threads(before[0])
        torchlike.set_num_threads(before[1])
    np.testing.assert_array_equal(t[0], ours[0])
    assert t[1:] == ours[1:]


def test_relu_and_max_pool_on_quantized():
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)

    def run(m):
        q = _q(m, x, 0.02, 100)
        return (_ints(m.relu(q)), _ints(m.nn.functional.relu(q)), _ints(m.nn.MaxPool2d(2)(q)),
                _ints(m.flatten(q, 1)), _ints(m.nn.ReLU(inplace=True)(q.clone())))
    t, ours = _both(run)
    for a, b in zip(t, ours):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]


def test_converted_linear_repr_state_dict_and_save_load():
    # (dyadic inputs and weights: the float calibration pass is exact, so torch's and torchlike's ranges agree)
    x = rng.integers(-8, 8, (8, 5)).astype(np.float32) / 4
    w = rng.integers(-8, 8, (3, 5)).astype(np.float32) / 8

    def run(m):
        model = m.nn.Sequential(m.ao.quantization.QuantStub(), m.nn.Linear(5, 3), m.ao.quantization.DeQuantStub())
        with m.no_grad():
            model[1].weight.copy_(m.tensor(w))
            model[1].bias.copy_(m.tensor([0.5, -0.25, 0.125]))
        model.eval().qconfig = m.ao.quantization.default_qconfig
        prepared = m.ao.quantization.prepare(model)
        prepared(m.tensor(x))
        q = m.ao.quantization.convert(prepared)
        buf = io.BytesIO()
        m.save(q.state_dict(), buf)
        buf.seek(0)
        sd = m.load(buf, weights_only=False)
        return (repr(q), list(sd), q(m.tensor(x)).numpy(), _ints(q[1].weight()), q[1].bias().detach().numpy())
    t, ours = _both(run)
    assert t[0] == ours[0] and t[1] == ours[1]
    np.testing.assert_array_equal(t[2], ours[2])
    np.testing.assert_array_equal(t[3][0], ours[3][0])
    np.testing.assert_array_equal(t[4], ours[4])


def test_left_out_raise_naming_them():
    m = torchlike
    model = m.nn.Sequential(m.ao.quantization.QuantStub(), m.nn.Conv3d(1, 1, 1)).eval()
    model.qconfig = m.ao.quantization.default_qconfig
    prepared = m.ao.quantization.prepare(model)
    prepared(m.ones(1, 1, 2, 2, 2))
    with pytest.raises(NotImplementedError, match="torch.ao.nn.quantized.Conv3d"):
        m.ao.quantization.convert(prepared)
    with pytest.raises(NotImplementedError, match="prepare_fx"):
        m.ao.quantization.quantize_fx.prepare_fx(model, {}, ())
    with pytest.raises(NotImplementedError, match="_LearnableFakeQuantize"):
        m.ao.quantization._LearnableFakeQuantize  # noqa: B018
    qat_model = m.nn.Sequential(m.nn.Conv3d(1, 1, 1)).train()
    qat_model.qconfig = m.ao.quantization.default_qat_qconfig
    with pytest.raises(NotImplementedError, match="torch.ao.nn.qat.Conv3d"):
        m.ao.quantization.prepare_qat(qat_model)


@pytest.mark.parametrize("scale,zp", [(0.25, 61), (0.1, 3), (0.0371, 120)])
def test_fake_quantize_ops_bit_exact_with_gradient(scale, zp):
    x = (rng.standard_normal(20001) * 10).astype(np.float32)
    x[:6000] = ((rng.integers(-300, 300, 6000) + 0.5) * np.float32(scale)).astype(np.float32)

    def run(m):
        t = m.tensor(x, requires_grad=True)
        y = m.fake_quantize_per_tensor_affine(t, scale, zp, 0, 255)
        (y * m.arange(len(x)).float()).sum().backward()
        c = m.tensor(x[:19998].reshape(6666, 3), requires_grad=True)
        yc = m.fake_quantize_per_channel_affine(c, m.tensor([scale, 0.3, 0.05]), m.tensor([zp, 0, 10], dtype=m.int32),
                                                1, -128, 127)
        yc.sum().backward()
        return y.detach().numpy(), t.grad.numpy(), yc.detach().numpy(), c.grad.numpy()
    for a, b in zip(*_both(run)):
        np.testing.assert_array_equal(a, b)


def test_fake_quantize_module_tracks_and_quantizes():
    data = [rng.standard_normal((4, 6)).astype(np.float32) * s for s in (1.0, 2.0, 0.5)]

    def run(m):
        fq = m.ao.quantization.default_fake_quant()
        wfq = m.ao.quantization.default_per_channel_weight_fake_quant()
        outs = [fq(m.tensor(d)).numpy() for d in data] + [wfq(m.tensor(d)).numpy() for d in data]
        return outs, fq.scale.numpy(), fq.zero_point.numpy(), wfq.scale.numpy(), list(fq.state_dict()), \
            repr(fq).replace("torchlike", "torch")
    t, ours = _both(run)
    for a, b in zip(t[0], ours[0]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(t[1:4], ours[1:4]):
        np.testing.assert_array_equal(a, b)
    assert t[4:] == ours[4:]


@pytest.mark.parametrize("which", ["default_fused_act_fake_quant", "default_fused_wt_fake_quant",
                                   "default_fused_per_channel_wt_fake_quant"])
def test_fused_moving_avg_obs_fake_quant(which):
    data = [rng.standard_normal((6, 3, 4, 4)).astype(np.float32) * s + o for s, o in ((1.0, 0.2), (2.0, -0.5), (0.5, 0))]

    def run(m):
        fq = getattr(m.ao.quantization.fake_quantize, which)()
        outs = []
        for d in data:
            t = m.tensor(d, requires_grad=True)
            y = fq(t)
            (y * y).sum().backward()
            outs += [y.detach().numpy(), t.grad.numpy(), fq.scale.numpy().copy(), fq.zero_point.numpy().copy()]
        s, z = fq.calculate_qparams()
        return outs + [s.numpy(), z.numpy()], repr(fq).replace("torchlike", "torch")
    t, ours = _both(run)
    for a, b in zip(t[0], ours[0]):
        np.testing.assert_array_equal(a, b)
    assert t[1] == ours[1]


def _converted(m):
    m.manual_seed(0)
    net = m.nn.Sequential(m.ao.quantization.QuantStub(), m.nn.Conv2d(2, 4, 3), m.nn.ReLU(), m.nn.Flatten(),
                          m.nn.Linear(4 * 4 * 4, 3), m.ao.quantization.DeQuantStub()).eval()
    net = m.ao.quantization.fuse_modules(net, [["1", "2"]])
    net.qconfig = m.ao.quantization.get_default_qconfig("x86")
    prepared = m.ao.quantization.prepare(net)
    prepared(m.tensor(rng.standard_normal((4, 2, 6, 6)).astype(np.float32)))
    return m.ao.quantization.convert(prepared)


def test_converted_state_dict_cross_loads_with_torch_both_ways():
    theirs, ours = _converted(torch), _converted(torchlike)
    x = rng.standard_normal((2, 2, 6, 6)).astype(np.float32)
    buf = io.BytesIO()
    torch.save(theirs.state_dict(), buf)
    buf.seek(0)
    ours.load_state_dict(torchlike.load(buf, weights_only=False))
    np.testing.assert_array_equal(theirs(torch.tensor(x)).numpy(), ours(torchlike.tensor(x)).numpy())
    buf = io.BytesIO()
    torchlike.save(ours.state_dict(), buf)
    buf.seek(0)
    theirs.load_state_dict(torch.load(buf, weights_only=False))
    np.testing.assert_array_equal(theirs(torch.tensor(x)).numpy(), ours(torchlike.tensor(x)).numpy())
    buf = io.BytesIO()
    torchlike.save(ours, buf)  # (a whole converted model pickles and loads in torchlike)
    buf.seek(0)
    again = torchlike.load(buf, weights_only=False)
    np.testing.assert_array_equal(again(torchlike.tensor(x)).numpy(), ours(torchlike.tensor(x)).numpy())


def test_old_torch_nn_paths_are_the_same_objects():
    def run(m):
        return (m.nn.intrinsic.quantized.LinearReLU is m.ao.nn.intrinsic.quantized.LinearReLU,
                m.nn.qat.Linear is m.ao.nn.qat.Linear, m.nn.intrinsic.qat.ConvBnReLU2d is m.ao.nn.intrinsic.qat.ConvBnReLU2d,
                m.nn.quantized.functional.linear is m.ao.nn.quantized.functional.linear,
                m.nn.quantized.FloatFunctional is m.ao.nn.quantized.FloatFunctional,
                m.quantization.prepare is m.ao.quantization.prepare)
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize("scale,zp", [(0.25, 61), (0.1, 3), (0.0371, 120)])
def test_adaptive_avg_pool2d_on_quantized(scale, zp):
    x = rng.standard_normal((2, 5, 11, 7)).astype(np.float32) * 3

    def run(m):
        q = _q(m, x, scale, zp)
        return [_ints(m.nn.functional.adaptive_avg_pool2d(q, size)) for size in ((1, 1), (3, 2), (4, 5), (11, 7))] + \
            [_ints(m.nn.AdaptiveAvgPool2d((2, None))(q[0]))]
    t, ours = _both(run)
    for a, b in zip(t, ours):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]


def test_relu6_quantized_and_converted():
    x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32) * 8

    def run(m):
        outs = []
        for scale, zp in ((0.05, 10), (0.0371, 120), (0.25, 3)):
            outs.append(_ints(m.ao.nn.quantized.ReLU6()(_q(m, x, scale, zp))))
        net = m.nn.Sequential(m.ao.quantization.QuantStub(), m.nn.Conv2d(3, 2, 1), m.nn.ReLU6(),
                              m.ao.quantization.DeQuantStub()).eval()
        with m.no_grad():
            net[1].weight.copy_(m.tensor([[[[0.5]], [[-0.25]], [[0.125]]], [[[1.0]], [[0.5]], [[-0.5]]]]))
            net[1].bias.copy_(m.tensor([0.25, -0.5]))
        net.qconfig = m.ao.quantization.default_qconfig
        prepared = m.ao.quantization.prepare(net)
        prepared(m.tensor(np.round(x * 4) / 4))
        q = m.ao.quantization.convert(prepared)
        return outs, repr(q), q(m.tensor(np.round(x * 4) / 4)).numpy()
    t, ours = _both(run)
    for a, b in zip(t[0], ours[0]):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]
    assert t[1] == ours[1]
    np.testing.assert_array_equal(t[2], ours[2])


@pytest.mark.parametrize("nd,relu,qdtype", [(4, False, "quint8"), (4, True, "quint8"), (5, False, "qint8"),
                                            (5, True, "quint8"), (4, False, "qint8")])
def test_quantized_batch_norm_modules_bit_exact(nd, relu, qdtype):
    """torch.ao.nn.quantized.BatchNorm2d/3d and intrinsic.quantized.BNReLU2d/3d on random statistics and on one
    exact-tie case (alpha 0.5, beta 0: every odd integer lands on .5), channel counts on both sides of the
    kernel's 8/32-lane split."""
    def run(m):
        cls = getattr(m.ao.nn.intrinsic.quantized if relu else m.ao.nn.quantized,
                      ("BNReLU" if relu else "BatchNorm") + f"{nd - 2}d")
        outs = []
        for c, ties in ((3, True), (5, False), (40, False), (33, True)):
            r = np.random.default_rng(c)
            x = (r.standard_normal((2, c) + (3,) * (nd - 2)) * 2).astype(np.float32)
            bn = cls(c, eps=0.0 if ties else 1e-5)
            with m.no_grad():
                if not ties:
                    bn.weight.copy_(m.tensor(r.standard_normal(c).astype(np.float32)))
                    bn.bias.copy_(m.tensor(r.standard_normal(c).astype(np.float32)))
                    bn.running_mean.copy_(m.tensor(r.standard_normal(c).astype(np.float32)))
                    bn.running_var.copy_(m.tensor(r.uniform(0.1, 2, c).astype(np.float32)))
            zy = 7 if qdtype == "quint8" else -3
            bn.scale, bn.zero_point = m.tensor(0.1 if ties else 0.0437), m.tensor(zy)
            zx = 128 if qdtype == "quint8" else 5
            q = m.quantize_per_tensor(m.tensor(x), 0.05, zx, getattr(m, qdtype))
            outs.append(_ints(bn(q)))
        bad = cls(2)
        errors = []
        for shape in ((1, 2, 3), (1, 2, 3, 3, 3, 3)):
            try:
                bad(m.quantize_per_tensor(m.ones(shape), 0.1, 0, m.quint8))
            except (RuntimeError, ValueError) as e:
                errors.append((type(e).__name__, str(e)))
        return outs, errors, repr(bad), sorted(bad.state_dict())
    t, ours = _both(run)
    for a, b in zip(t[0], ours[0]):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]
    assert t[1:] == ours[1:]


@pytest.mark.parametrize("fuse", [False, True])
def test_converted_batch_norm_and_bn_relu(fuse):
    """An eager static-quantization model with a BatchNorm2d after the conv (unfused), or BatchNorm2d+ReLU fused
    into BNReLU2d, converts to torch's quantized modules (what bayesian-torch's bnn_to_qbnn imports) with the
    same repr and the same output."""
    x = np.round(rng.standard_normal((4, 3, 6, 6)) * 4).astype(np.float32) / 4  # (exact float convolutions)
    w = np.round(rng.standard_normal((4, 3, 3, 3)) * 8).astype(np.float32) / 8

    def run(m):
        net = m.nn.Sequential(m.ao.quantization.QuantStub(), m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4),
                              m.nn.ReLU(), m.ao.quantization.DeQuantStub()).eval()
        with m.no_grad():
            net[1].weight.copy_(m.tensor(w))
            net[1].bias.copy_(m.tensor([0.25, -0.5, 0.0, 1.0]))
            net[2].running_mean.copy_(m.tensor([0.5, -1.0, 0.25, 2.0]))
            net[2].running_var.copy_(m.tensor([4.0, 2.0, 0.5, 8.0]))
            net[2].weight.copy_(m.tensor([1.5, -0.75, 1.0, 0.5]))
            net[2].bias.copy_(m.tensor([0.125, 0.5, -0.25, 0.0]))
        if fuse:
            net = m.ao.quantization.fuse_modules(net, [["2", "3"]])
        net.qconfig = m.ao.quantization.default_qconfig
        prepared = m.ao.quantization.prepare(net)
        prepared(m.tensor(x))
        q = m.ao.quantization.convert(prepared)
        return repr(q), q(m.tensor(x)).numpy()
    t, ours = _both(run)
    assert t[0] == ours[0]
    np.testing.assert_array_equal(t[1], ours[1])


def _random_conv(m, g, cin, cout, groups, k, stride, pad, dil, wide=False):
    """A quantized (ReLU)Conv2d of this geometry on random values, scales and zero points drawn from ``g`` (so torch
    and torchlike see the same ones), per tensor or per channel, with or without bias; returns the output's ints."""
    x = g.standard_normal((2, cin, 10, 10)).astype(np.float32) * (3 if wide else 2)
    w = g.standard_normal((cout, cin // groups, k, k)).astype(np.float32) * (0.6 if wide else 0.3)
    b = g.standard_normal(cout).astype(np.float32) * 3
    pc, relu, has_bias = (bool(v) for v in g.integers(0, 2, 3))
    sw = g.uniform(0.001, 0.02, cout if pc else 1)
    sx, sy, zx, zy = g.uniform(0.01, 0.05), g.uniform(0.02, 0.08), int(g.integers(0, 256)), int(g.integers(0, 256))
    qw = (m.quantize_per_channel(m.tensor(w), m.tensor(sw, dtype=m.float64), m.zeros(cout, dtype=m.long), 0, m.qint8)
          if pc else m.quantize_per_tensor(m.tensor(w), float(sw[0]), 0, m.qint8))
    cls = m.ao.nn.intrinsic.quantized.ConvReLU2d if relu else m.ao.nn.quantized.Conv2d
    mod = cls(cin, cout, k, stride=stride, padding=pad, dilation=dil, groups=groups)
    mod.set_weight_bias(qw, m.tensor(b) if has_bias else None)
    mod.scale, mod.zero_point = float(sy), zy
    return _ints(mod(m.quantize_per_tensor(m.tensor(x), float(sx), zx, m.quint8)))


@pytest.mark.parametrize("cin,cout,groups,k,stride,pad,dil,seed", [
    (4, 16, 1, 3, 1, 1, 1, 9), (4, 16, 2, 3, 2, 1, 1, 307), (5, 6, 1, 1, 1, 0, 1, 116), (32, 48, 1, 3, 1, 1, 2, 11),
    (16, 16, 16, 5, 1, 2, 1, 15), (100, 100, 100, 3, 1, 1, 1, 3)])
def test_quantized_conv2d_random_scales_bit_exact(cin, cout, groups, k, stride, pad, dil, seed):
    # random scales: on a VNNI CPU oneDNN scales the accumulator by the source scale, then by the weight's, and
    # torch hands it the reciprocals of the source and output scales (each rounded to float32 and inverted again);
    # the seeds give outputs within an ulp of a rounding tie, where one rounding with f32(sx*sw) is off by one
    def run(m):
        g = np.random.default_rng(seed)
        return [_random_conv(m, g, cin, cout, groups, k, stride, pad, dil) for _ in range(6)]
    for a, b in zip(*_both(run)):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]


@pytest.mark.parametrize("cin,cout,groups,k,stride,pad", [
    (104, 104, 104, 3, 1, 1), (104, 208, 104, 5, 2, 2), (104, 104, 104, 3, 1, 0), (101, 101, 101, 3, 1, 1),
    (208, 208, 104, 3, 1, 1), (208, 104, 104, 3, 1, 1)])
def test_quantized_conv2d_past_100_groups_bit_exact(cin, cout, groups, k, stride, pad):
    # past 100 groups the x86 engine gives convolutions to fbgemm even on a VNNI CPU: its depthwise kernels
    # (groups a multiple of 8, 3x3/5x5/7x7 "same" padding) saturate neighbouring products to int16 there too, its
    # groupwise and im2col ones do not (wide values make the pairs overflow)
    def run(m):
        g = np.random.default_rng(cin + cout + k + pad)
        return [_random_conv(m, g, cin, cout, groups, k, stride, pad, 1, wide=True) for _ in range(3)]
    for a, b in zip(*_both(run)):
        np.testing.assert_array_equal(a[0], b[0])


def test_fbgemm_enable_instructions_avx2_bit_exact():
    # FBGEMM_ENABLE_INSTRUCTIONS=AVX2 makes fbgemm use its AVX2 kernels (int16-saturating products) on any x86 CPU,
    # and torchlike with it: linear and a past-100-groups im2col convolution compared in a child process
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("FBGEMM_ENABLE_INSTRUCTIONS steers fbgemm on x86 only")
    child = textwrap.dedent("""
        import warnings
        import numpy as np
        import torch
        import torchlike
        warnings.simplefilter("ignore")
        g = np.random.default_rng(5)
        x = g.standard_normal((500, 64)).astype(np.float32) * 3
        w = g.standard_normal((40, 64)).astype(np.float32) * 0.6
        b = g.standard_normal(40).astype(np.float32)
        xc = g.standard_normal((2, 208, 8, 8)).astype(np.float32) * 3
        wc = g.standard_normal((104, 2, 3, 3)).astype(np.float32) * 0.6
        def run(m):
            lin = m.ao.nn.quantized.Linear(64, 40)
            lin.set_weight_bias(m.quantize_per_tensor(m.tensor(w), 0.01, 0, m.qint8), m.tensor(b))
            lin.scale, lin.zero_point = 0.05, 100
            conv = m.ao.nn.quantized.Conv2d(208, 104, 3, padding=1, groups=104)
            conv.set_weight_bias(m.quantize_per_tensor(m.tensor(wc), 0.01, 0, m.qint8), None)
            conv.scale, conv.zero_point = 0.05, 100
            return (lin(m.quantize_per_tensor(m.tensor(x), 0.03, 20, m.quint8)).int_repr().numpy(),
                    conv(m.quantize_per_tensor(m.tensor(xc), 0.03, 20, m.quint8)).int_repr().numpy())
        for a, b in zip(run(torch), run(torchlike)):
            assert (a == b).all(), int((a != b).sum())
        print("ok")
    """)
    env = dict(os.environ, FBGEMM_ENABLE_INSTRUCTIONS="AVX2")
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
