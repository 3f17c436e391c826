"""Memory formats and strides, each expected value computed by real torch: channels_last / channels_last_3d
conversions (``.to``, ``.contiguous``, ``clone``, ``empty``, ``*_like``, ``empty_strided``, ``Module.to``), the
layout elementwise ops, convolution, norms, pooling and interpolation give their results, view legality and view
strides, gradients, copies, pickles and saved files; values never change (the layout is metadata over a row-major
jax.Array, docs/differences.md)."""
import copy
import pickle

import numpy as np
import pytest
import torch

import torchlike

CASES = {
    "plain_cl": lambda m, x: x.is_contiguous(memory_format=m.channels_last),
    "to_cl": lambda m, x: x.to(memory_format=m.channels_last).is_contiguous(),
    "to_cl_cl": lambda m, x: x.to(memory_format=m.channels_last).is_contiguous(memory_format=m.channels_last),
    "to_dtype_cl": lambda m, x: x.to(m.float64, memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "contiguous_cl": lambda m, x: x.contiguous(memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "back_to_rows": lambda m, x: x.to(memory_format=m.channels_last).contiguous().is_contiguous(),
    "back_to_rows_cl": lambda m, x: x.to(memory_format=m.channels_last).contiguous().is_contiguous(
        memory_format=m.channels_last),
    "empty_like": lambda m, x: m.empty_like(x.to(memory_format=m.channels_last)).is_contiguous(),
    "zeros_like_rows": lambda m, x: m.zeros_like(x.to(memory_format=m.channels_last),
                                                 memory_format=m.contiguous_format).is_contiguous(),
    "clone_preserve": lambda m, x: x.to(memory_format=m.channels_last).clone().is_contiguous(
        memory_format=m.channels_last),
    "clone_rows": lambda m, x: x.to(memory_format=m.channels_last).clone(
        memory_format=m.contiguous_format).is_contiguous(),
    "empty_cl": lambda m, x: m.empty(*x.shape, memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "permuted_view": lambda m, x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).is_contiguous(
        memory_format=m.channels_last),
    "transposed_view": lambda m, x: x.transpose(1, 2).is_contiguous(),
}


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (1, 3, 1, 1)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_is_contiguous_matches_torch(case, shape):
    want = CASES[case](torch, torch.zeros(shape))
    assert CASES[case](torchlike, torchlike.zeros(shape)) == want


def test_channels_last_3d_and_rank_errors():
    for m in (torch, torchlike):
        x = m.zeros(2, 3, 4, 5, 6).to(memory_format=m.channels_last_3d)
        assert x.is_contiguous(memory_format=m.channels_last_3d) and not x.is_contiguous()
        assert not m.zeros(2, 3, 4, 5).is_contiguous(memory_format=m.channels_last_3d)
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            m.zeros(2, 3).contiguous(memory_format=m.channels_last)


def test_module_to_channels_last_tags_4d_parameters_and_keeps_values():
    got = []
    for m in (torch, torchlike):
        m.manual_seed(0)
        conv = m.nn.Conv2d(3, 8, 3)
        w = conv.weight.detach().clone()
        conv.to(memory_format=m.channels_last)
        assert conv.weight.is_contiguous(memory_format=m.channels_last) and conv.bias.is_contiguous()
        assert m.equal(conv.weight.detach(), w)
        x = m.arange(2 * 3 * 6 * 6, dtype=m.float32).reshape(2, 3, 6, 6).to(memory_format=m.channels_last)
        y = conv(x)
        y.sum().backward()
        got.append((y.detach().numpy(), conv.weight.grad.numpy()))
        conv.to(memory_format=m.contiguous_format)
        assert conv.weight.is_contiguous()
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-5, atol=1e-3)


# ---- torch's strides (the layout is metadata over a row-major jax.Array) ----------------------------------
SHAPES4 = [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (1, 3, 1, 1), (2, 3, 1, 5), (1, 1, 1, 1), (2, 0, 4, 5)]
FORMATS = ["channels_last", "contiguous_format", "preserve_format"]

STRIDE_CASES = {
    "to": lambda m, x, f: x.to(memory_format=f),
    "contiguous": lambda m, x, f: x.contiguous(memory_format=f) if f is not m.preserve_format else x.contiguous(),
    "clone": lambda m, x, f: x.to(memory_format=m.channels_last).clone(memory_format=f),
    "empty_like": lambda m, x, f: m.empty_like(x.to(memory_format=m.channels_last), memory_format=f),
    "zeros_like_perm": lambda m, x, f: m.zeros_like(x.permute(0, 2, 3, 1), memory_format=f)
    if f is not m.channels_last else m.zeros_like(x.permute(0, 2, 1, 3), memory_format=f),
    "empty": lambda m, x, f: m.empty(*x.shape, memory_format=f) if f is not m.preserve_format else m.empty(*x.shape),
    "to_dtype": lambda m, x, f: x.to(memory_format=f).to(m.float64),
    "double": lambda m, x, f: x.to(memory_format=f).double(),
    "mul_scalar": lambda m, x, f: x.to(memory_format=f) * 2,
    "add_rowmajor": lambda m, x, f: x.to(memory_format=f) + x,
    "add_rowmajor_first": lambda m, x, f: x + x.to(memory_format=f),
    "add_both": lambda m, x, f: x.to(memory_format=f) + x.to(memory_format=f),
    "add_bcast": lambda m, x, f: x.to(memory_format=f) + x[:, :, :1, :1],
    "exp": lambda m, x, f: m.exp(x.to(memory_format=f)),
    "neg_permuted": lambda m, x, f: -x.permute(0, 2, 3, 1),
    "sub_transposed": lambda m, x, f: x.transpose(1, 3) - 1,
    "div_sliced": lambda m, x, f: x.to(memory_format=f)[:, :, 1:] / 3,
    "pow": lambda m, x, f: x.to(memory_format=f) ** 2,
    "gt": lambda m, x, f: x.to(memory_format=f) > 0,
    "where": lambda m, x, f: m.where(x.to(memory_format=f) > 0, x.to(memory_format=f), 0.0),
    "clamp": lambda m, x, f: x.to(memory_format=f).clamp(0, 1),
    "relu": lambda m, x, f: m.nn.functional.relu(x.to(memory_format=f)),
    "gelu": lambda m, x, f: m.nn.functional.gelu(x.to(memory_format=f)),
    "silu_module": lambda m, x, f: m.nn.SiLU()(x.to(memory_format=f)),
    "permute_back": lambda m, x, f: x.to(memory_format=f).permute(0, 2, 3, 1),
    "slice": lambda m, x, f: x.to(memory_format=f)[:, 1:, ::2],
    "unsqueeze": lambda m, x, f: x.to(memory_format=f)[0],
    "inplace_add": lambda m, x, f: x.to(memory_format=f).add_(1),
    "data_set": lambda m, x, f: _data_set(m, x, f),
}


def _data_set(m, x, f):
    t = m.zeros(x.shape)
    t.data = x.to(memory_format=f)
    return t


def _layout(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(), \
        t.is_contiguous(memory_format=_fmt_of(t, "channels_last"))


def _fmt_of(t, name):
    return getattr(torch if type(t).__module__.startswith("torch.") or type(t) is torch.Tensor else torchlike, name)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", SHAPES4, ids=str)
@pytest.mark.parametrize("case", sorted(STRIDE_CASES))
def test_strides_match_torch(case, shape, fmt):
    x = torch.arange(float(np.prod(shape))).reshape(shape)
    want = STRIDE_CASES[case](torch, x, getattr(torch, fmt))
    y = torchlike.arange(float(np.prod(shape))).reshape(shape)
    got = STRIDE_CASES[case](torchlike, y, getattr(torchlike, fmt))
    assert _layout(got) == _layout(want)
    if not case.startswith("empty"):  # (torch's empty memory holds anything)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)  # values never change
        np.testing.assert_allclose(np.array(got.tolist()), np.array(want.tolist()), rtol=1e-6)


VIEW_CASES = {
    "flat": lambda t: t.view(-1),
    "permuted_flat": lambda t: t.permute(0, 2, 3, 1).view(-1),
    "permuted_rows": lambda t: t.permute(0, 2, 3, 1).view(t.shape[0], -1, t.shape[1]),
    "merge_hw": lambda t: t.view(t.shape[0], t.shape[1], -1),
    "split_n": lambda t: t.view(1, t.shape[0], *t.shape[1:]),
    "transposed_merge": lambda t: t.transpose(1, 3).reshape(t.shape[0], -1).view(-1),
}


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (1, 3, 1, 1), (2, 3, 1, 5)], ids=str)
@pytest.mark.parametrize("case", sorted(VIEW_CASES))
def test_view_legality_follows_torch_strides(case, shape):
    results = []
    for m in (torch, torchlike):
        x = m.arange(float(np.prod(shape))).reshape(shape).to(memory_format=m.channels_last)
        try:
            v = VIEW_CASES[case](x)
        except RuntimeError as e:
            results.append(("error", str(e).split(".")[0]))
            continue
        results.append((tuple(v.shape), v.stride(), v.storage_offset(), v.tolist()))
    assert results[1] == results[0]


def test_channels_last_3d_strides_and_as_strided():
    for fmt in ("channels_last_3d", "contiguous_format"):
        x = torch.arange(240.).reshape(2, 3, 4, 5, 2).to(memory_format=getattr(torch, fmt))
        y = torchlike.arange(240.).reshape(2, 3, 4, 5, 2).to(memory_format=getattr(torchlike, fmt))
        assert y.stride() == x.stride() and (y * 2).stride() == (x * 2).stride()
        assert y.is_contiguous(memory_format=torchlike.channels_last_3d) == x.is_contiguous(
            memory_format=torch.channels_last_3d)
        # as_strided counts in the storage: a channels-last tensor's storage holds channels innermost
        assert y.as_strided((4, 3), (3, 1), 2).tolist() == x.as_strided((4, 3), (3, 1), 2).tolist()
    for size, stride in (((2, 3), (1, 2)), ((2, 3, 4), (12, 1, 3)), ((2, 3), (1, 4)), ((3, 2), (4, 1))):
        a, b = torch.empty_strided(size, stride), torchlike.empty_strided(size, stride)
        assert b.stride() == a.stride() and b.is_contiguous() == a.is_contiguous()
        assert torchlike.zeros(1).new_empty_strided(size, stride).stride() == a.stride()


def test_writes_through_views_of_channels_last_tensor():
    for m in (torch, torchlike):
        x = m.arange(120.).reshape(2, 3, 4, 5).to(memory_format=m.channels_last)
        x.permute(0, 2, 3, 1).view(-1)[7] = -1.0
        x[:, 1] += 100
        x.as_strided((5,), (3,), 1).fill_(7)
        if m is torch:
            want = (x.tolist(), x.stride())
    assert (x.tolist(), x.stride()) == want


NN_CASES = {
    "conv_input_cl": lambda m, x, w: m.nn.functional.conv2d(x.to(memory_format=m.channels_last), w, padding=1),
    "conv_weight_cl": lambda m, x, w: m.nn.functional.conv2d(x, w.to(memory_format=m.channels_last)),
    "conv_neither": lambda m, x, w: m.nn.functional.conv2d(x, w),
    "conv_transpose": lambda m, x, w: m.nn.functional.conv_transpose2d(x.to(memory_format=m.channels_last),
                                                                       w.transpose(0, 1)),
    "batch_norm_eval": lambda m, x, w: m.nn.functional.batch_norm(
        x.to(memory_format=m.channels_last), m.zeros(3), m.ones(3)),
    "batch_norm_train": lambda m, x, w: m.nn.BatchNorm2d(3)(x.to(memory_format=m.channels_last)),
    "group_norm": lambda m, x, w: m.nn.functional.group_norm(x.to(memory_format=m.channels_last), 3),
    "max_pool": lambda m, x, w: m.nn.functional.max_pool2d(x.to(memory_format=m.channels_last), 2),
    "max_pool_indices": lambda m, x, w: m.nn.functional.max_pool2d(x.to(memory_format=m.channels_last), 2,
                                                                   return_indices=True)[1],
    "avg_pool": lambda m, x, w: m.nn.functional.avg_pool2d(x.to(memory_format=m.channels_last), 2),
    "adaptive_avg": lambda m, x, w: m.nn.functional.adaptive_avg_pool2d(x.to(memory_format=m.channels_last), 3),
    "adaptive_max": lambda m, x, w: m.nn.functional.adaptive_max_pool2d(x.to(memory_format=m.channels_last), 3),
    "interp_nearest": lambda m, x, w: m.nn.functional.interpolate(x.to(memory_format=m.channels_last), scale_factor=2),
    "interp_bilinear": lambda m, x, w: m.nn.functional.interpolate(x.to(memory_format=m.channels_last), size=(5, 7),
                                                                   mode="bilinear"),
    "dropout_eval": lambda m, x, w: m.nn.functional.dropout(x.to(memory_format=m.channels_last), 0.5, False),
    "relu_module": lambda m, x, w: m.nn.ReLU()(x.to(memory_format=m.channels_last)),
}


@pytest.mark.parametrize("case", sorted(NN_CASES))
def test_nn_outputs_follow_channels_last_as_torch(case):
    got = []
    for m in (torch, torchlike):
        x = m.arange(2 * 3 * 8 * 8, dtype=m.float32).reshape(2, 3, 8, 8).div(100).sin()
        w = m.arange(4 * 3 * 3 * 3, dtype=m.float32).reshape(4, 3, 3, 3).div(50).cos()
        y = NN_CASES[case](m, x, w)
        got.append((y.stride(), y.is_contiguous(), y.detach().numpy()))
    assert got[1][:2] == got[0][:2]
    np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-4, atol=1e-4)


def test_parameter_grads_take_the_parameters_strides():
    got = []
    for m in (torch, torchlike):
        model = m.nn.Sequential(m.nn.Conv2d(3, 4, 3), m.nn.BatchNorm2d(4), m.nn.ReLU(), m.nn.Conv2d(4, 2, 1))
        model.to(memory_format=m.channels_last)
        x = m.ones(2, 3, 6, 6).to(memory_format=m.channels_last)
        y = model(x)
        y.sum().backward()
        got.append([(p.stride(), p.grad.stride()) for p in model.parameters()] + [y.stride()])
    assert got[1] == got[0]


def test_save_load_keeps_strides_both_ways(tmp_path):
    x = torch.arange(120.).reshape(2, 3, 4, 5).to(memory_format=torch.channels_last)
    y = torchlike.arange(120.).reshape(2, 3, 4, 5).to(memory_format=torchlike.channels_last)
    torch.save({"a": x, "b": x[:, 1:]}, tmp_path / "t.pt")
    torchlike.save({"a": y, "b": y[:, 1:], "p": y.permute(0, 2, 3, 1)}, tmp_path / "l.pt")
    for d in (torchlike.load(tmp_path / "t.pt"), torchlike.load(tmp_path / "l.pt")):
        assert d["a"].stride() == x.stride() and d["b"].stride() == x[:, 1:].stride()
        assert d["a"].tolist() == x.tolist() and d["b"].tolist() == x[:, 1:].tolist()
        d["a"][0, 0, 0, 0] = -5.0  # one storage: the slice sees the write
    e = torch.load(tmp_path / "l.pt")
    assert e["a"].stride() == x.stride() and torch.equal(e["a"], x) and torch.equal(e["b"], x[:, 1:])
    assert torch.equal(e["p"], x.permute(0, 2, 3, 1)) and e["p"].is_contiguous()
    assert e["a"].untyped_storage().data_ptr() == e["b"].untyped_storage().data_ptr()


VIEW_STRIDE_CASES = {
    "slice_t_unsqueeze": lambda x: x.view(6, 4)[2:5].t().unsqueeze(0),
    "size1_column": lambda x: x.view(6, 4)[:, :1],
    "size1_row_t": lambda x: x.view(6, 4)[1:2].t(),
    "select_of_cl": lambda x: x.view(1, 2, 3, 4).contiguous(memory_format=_fmt_of(x, "channels_last"))[0],
    "none_index": lambda x: x.view(6, 4)[None, :, None, 1:3],
    "empty_slice": lambda x: x.view(6, 4)[6:, 1:],
    "squeeze_unsqueeze": lambda x: x.view(2, 1, 12).transpose(0, 2).squeeze(1).unsqueeze(2),
    "expand": lambda x: x.view(6, 4)[:, :1].expand(6, 5).unsqueeze(0).expand(2, 6, 5),
    "diagonal": lambda x: x.view(2, 3, 4).diagonal(1, 1, 2),
    "unfold": lambda x: x.view(6, 4).unfold(0, 2, 3),
    "as_strided": lambda x: x.as_strided((3, 1, 2), (4, 7, 1), 3),
    "view_of_permuted": lambda x: x.view(2, 3, 4).permute(1, 0, 2).contiguous().view(3, 1, 8),
}


@pytest.mark.parametrize("case", sorted(VIEW_STRIDE_CASES))
def test_view_strides_follow_each_view_ops_rule(case):
    want = VIEW_STRIDE_CASES[case](torch.arange(24.))
    got = VIEW_STRIDE_CASES[case](torchlike.arange(24.))
    assert (tuple(got.shape), got.stride(), got.storage_offset(), got.is_contiguous()) == \
        (tuple(want.shape), want.stride(), want.storage_offset(), want.is_contiguous())
    assert got.tolist() == want.tolist()


def test_random_fills_follow_the_storage_order_as_torch():
    got = []
    for m in (torch, torchlike):
        m.manual_seed(0)
        x = m.ones(2, 3, 4, 5).to(memory_format=m.channels_last)
        out = [m.nn.functional.dropout(x, 0.5), m.rand_like(x), m.randn_like(x.permute(0, 2, 3, 1))]
        for fill in ("uniform_", "normal_", "bernoulli_", "exponential_"):
            out.append(getattr(m.empty(2, 3, 4, 5).to(memory_format=m.channels_last), fill)())
        got.append([t.numpy() for t in out])
    for a, b in zip(*got):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


COPY_CASES = {
    "deepcopy": lambda m, x: copy.deepcopy(x),
    "pickle": lambda m, x: pickle.loads(pickle.dumps(x)),
    "parameter": lambda m, x: m.nn.Parameter(x),
    "parameter_of_permuted": lambda m, x: m.nn.Parameter(x.permute(0, 2, 3, 1)),
    "cat": lambda m, x: m.cat([x, x]),
    "cat_dim1": lambda m, x: m.cat([x, x], 1),
    "cat_mixed": lambda m, x: m.cat([x, x.contiguous()]),
    "resize_flat": lambda m, x: x.clone().resize_(24),
    "resize_to_cl": lambda m, x: m.zeros(2, 3).resize_(2, 3, 4, 6, memory_format=m.channels_last),
}


@pytest.mark.parametrize("case", sorted(COPY_CASES))
def test_copies_and_containers_keep_torch_strides(case):
    got = []
    for m in (torch, torchlike):
        x = m.arange(24.).reshape(1, 2, 3, 4).to(memory_format=m.channels_last)
        y = COPY_CASES[case](m, x)
        got.append((y.stride(), y.detach().numpy().tolist() if not case.startswith("resize_to") else None))
    assert got[1] == got[0]
