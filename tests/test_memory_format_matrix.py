"""The layout of ~90 common ops' results on channels_last (4-D) and channels_last_3d (5-D) inputs, against real
torch: ``stride()`` and ``is_contiguous(memory_format=...)`` of every tensor an op returns, and its values
(random ops excepted).  Binary and ternary ops also run on a channels-last + row-major pair, both ways round.
``python tests/test_memory_format_matrix.py`` prints the mismatches."""
import numpy as np
import pytest
import torch

import torchlike

SHAPES = {"cl": (2, 3, 4, 5), "cl3d": (2, 3, 4, 5, 6)}
RANDOM = {"dropout_train", "alpha_dropout", "feature_dropout", "rand_like", "randn_like", "randint_like",
          "empty_like", "empty_like_rows", "bernoulli", "multinomial_free"}


def _F(m):
    return m.nn.functional


def _nd(m, x, name):
    """``F.<name><k>d`` for ``x``'s spatial rank."""
    return getattr(_F(m), f"{name}{x.dim() - 2}d")


def _same_threads(m, fn):
    """``fn()`` with torch's intra-op thread count (torch's CPU conv3d picks oneDNN, which keeps channels_last_3d,
    by it among others)."""
    n = m.get_num_threads()
    m.set_num_threads(torch.get_num_threads())
    try:
        return fn()
    finally:
        m.set_num_threads(n)


def _per_channel(m, x):
    return m.arange(1.0, x.shape[1] + 1).reshape((1, -1) + (1,) * (x.dim() - 2))


UNARY = {
    "neg": lambda m, x, y: -x,
    "exp": lambda m, x, y: x.exp(),
    "abs": lambda m, x, y: m.abs(x),
    "sigmoid": lambda m, x, y: m.sigmoid(x),
    "tanh": lambda m, x, y: x.tanh(),
    "sqrt_abs": lambda m, x, y: x.abs().sqrt(),
    "erf": lambda m, x, y: m.erf(x),
    "sign": lambda m, x, y: x.sign(),
    "round": lambda m, x, y: x.mul(4).round(),
    "isnan": lambda m, x, y: x.isnan(),
    "logical_not": lambda m, x, y: m.logical_not(x),
    "nan_to_num": lambda m, x, y: m.nan_to_num(x),
    "relu": lambda m, x, y: _F(m).relu(x),
    "gelu": lambda m, x, y: _F(m).gelu(x),
    "silu": lambda m, x, y: _F(m).silu(x),
    "leaky_relu": lambda m, x, y: _F(m).leaky_relu(x, 0.1),
    "hardtanh": lambda m, x, y: _F(m).hardtanh(x),
    "softplus": lambda m, x, y: _F(m).softplus(x),
    "elu": lambda m, x, y: _F(m).elu(x),
    "hardswish": lambda m, x, y: _F(m).hardswish(x),
    "mish": lambda m, x, y: _F(m).mish(x),
    "clamp_scalars": lambda m, x, y: x.clamp(-0.5, 0.5),
    "clamp_min": lambda m, x, y: x.clamp_min(0.1),
    "pow_scalar": lambda m, x, y: x ** 2,
    "rsub_scalar": lambda m, x, y: 1 - x,
    "float_cast": lambda m, x, y: x.double(),
    "half_cast": lambda m, x, y: x.half(),
    "to_int": lambda m, x, y: x.mul(10).to(m.int32),
    "to_dtype_device": lambda m, x, y: x.to("cpu", m.float64),
    "type_str": lambda m, x, y: x.type("torch.DoubleTensor"),
    "inplace_mul": lambda m, x, y: x.clone().mul_(2),
    "celu": lambda m, x, y: _F(m).celu(x),
    "selu": lambda m, x, y: _F(m).selu(x),
    "relu6": lambda m, x, y: _F(m).relu6(x),
    "hardsigmoid": lambda m, x, y: _F(m).hardsigmoid(x),
    "softshrink": lambda m, x, y: _F(m).softshrink(x),
    "hardshrink": lambda m, x, y: m.hardshrink(x),
    "softsign": lambda m, x, y: _F(m).softsign(x),
    "tanhshrink": lambda m, x, y: _F(m).tanhshrink(x),
    "threshold": lambda m, x, y: _F(m).threshold(x, 0.2, -1.0),
    "prelu": lambda m, x, y: _F(m).prelu(x, m.full((3,), 0.25)),
    "logit": lambda m, x, y: m.logit(x.sigmoid()),
    "special_logit": lambda m, x, y: m.special.logit(x.sigmoid()),
    "square": lambda m, x, y: m.square(x),
    "frexp": lambda m, x, y: m.frexp(x),
    "polygamma": lambda m, x, y: m.polygamma(1, x.abs() + 1),
    "chebyshev": lambda m, x, y: m.special.chebyshev_polynomial_t(x, 3),
    "clamp_max": lambda m, x, y: x.clamp_max(0.1),
    "detach": lambda m, x, y: x.detach(),
}

BINARY = {  # (each also runs as (cl, row-major) and (row-major, cl))
    "add": lambda m, x, y: x + y,
    "mul": lambda m, x, y: m.mul(x, y),
    "sub_alpha": lambda m, x, y: m.sub(x, y, alpha=2),
    "div": lambda m, x, y: x / (y.abs() + 1),
    "pow": lambda m, x, y: x.abs() ** y,
    "maximum": lambda m, x, y: m.maximum(x, y),
    "atan2": lambda m, x, y: m.atan2(x, y),
    "eq": lambda m, x, y: x == y,
    "fmod": lambda m, x, y: m.fmod(x, y.abs() + 1),
    "remainder": lambda m, x, y: m.remainder(x, y.abs() + 1),
    "copysign": lambda m, x, y: m.copysign(x, y),
    "hypot": lambda m, x, y: m.hypot(x, y),
    "logical_and": lambda m, x, y: m.logical_and(x > 0, y > 0),
    "xlogy": lambda m, x, y: m.xlogy(x, y.abs()),
    "mse_none": lambda m, x, y: _F(m).mse_loss(x, y, reduction="none"),
    "where": lambda m, x, y: m.where(x > 0, x, y),
    "lerp_scalar": lambda m, x, y: m.lerp(x, y, 0.3),
    "lerp_tensor": lambda m, x, y: m.lerp(x, y, y.sigmoid()),
    "addcmul": lambda m, x, y: m.addcmul(x, y, x, value=0.5),
    "addcdiv": lambda m, x, y: m.addcdiv(x, y, x.abs() + 1, value=0.5),
    "clamp_tensors": lambda m, x, y: m.clamp(x, min=y - 1, max=y + 1),
    "clamp_tensor_min": lambda m, x, y: x.clamp(min=y),
    "masked_fill": lambda m, x, y: x.masked_fill(y > 0, 0.0),
    "masked_fill_tensor": lambda m, x, y: x.masked_fill(y > 0, m.tensor(2.0)),
    "float_power": lambda m, x, y: m.float_power(x.abs(), y),
    "complex": lambda m, x, y: m.complex(x, y),
    "polar": lambda m, x, y: m.polar(x.abs(), y),
    "isclose": lambda m, x, y: m.isclose(x, y, atol=0.5),
    "clamp_max_tensor": lambda m, x, y: m.clamp_max(x, y),
    "l1_none": lambda m, x, y: _F(m).l1_loss(x, y, reduction="none"),
    "huber_none": lambda m, x, y: _F(m).huber_loss(x, y, reduction="none"),
    "smooth_l1_none": lambda m, x, y: _F(m).smooth_l1_loss(x, y, reduction="none"),
    "soft_margin_none": lambda m, x, y: _F(m).soft_margin_loss(x, y, reduction="none"),
    "bce_none": lambda m, x, y: _F(m).binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction="none"),
    "bce_logits_none": lambda m, x, y: _F(m).binary_cross_entropy_with_logits(x, y.sigmoid(), reduction="none"),
    "kl_div_none": lambda m, x, y: _F(m).kl_div(x, y.sigmoid(), reduction="none"),
    "poisson_nll_none": lambda m, x, y: _F(m).poisson_nll_loss(x, y.abs(), reduction="none"),
    "gaussian_nll_none": lambda m, x, y: _F(m).gaussian_nll_loss(x, y, y.abs() + 1, reduction="none"),
    "mse_mean": lambda m, x, y: _F(m).mse_loss(x, y),
}

OTHER = {
    "add_bias": lambda m, x, y: x + _per_channel(m, x),
    "bias_add": lambda m, x, y: _per_channel(m, x) + x,
    "where_scalars": lambda m, x, y: m.where(x > 0, x, 0.0),
    "where_scalar_first": lambda m, x, y: m.where(x > 0, 1.0, x),
    "where_bcast_cond": lambda m, x, y: m.where(_per_channel(m, x) > 1, x, 0.0),
    "lerp_bcast": lambda m, x, y: m.lerp(x, _per_channel(m, x), 0.25),
    "addcmul_bcast": lambda m, x, y: m.addcmul(_per_channel(m, x), x, x),
    # reductions
    "sum_spatial_keepdim": lambda m, x, y: x.sum(tuple(range(2, x.dim())), keepdim=True),
    "sum_c_keepdim": lambda m, x, y: x.sum(1, keepdim=True),
    "sum_h_keepdim": lambda m, x, y: x.sum(2, keepdim=True),
    "sum_last_keepdim": lambda m, x, y: x.sum(-1, keepdim=True),
    "sum_c": lambda m, x, y: x.sum(1),
    "sum_h": lambda m, x, y: x.sum(2),
    "sum_all": lambda m, x, y: x.sum(),
    "mean_h_keepdim": lambda m, x, y: x.mean(2, keepdim=True),
    "mean_spatial": lambda m, x, y: x.mean(tuple(range(2, x.dim()))),
    "amax_h_keepdim": lambda m, x, y: x.amax(2, keepdim=True),
    "amin_c_keepdim": lambda m, x, y: x.amin(1, keepdim=True),
    "std_h_keepdim": lambda m, x, y: x.std(2, keepdim=True),
    "var_nc_keepdim": lambda m, x, y: x.var((0, 1), keepdim=True),
    "norm_h_keepdim": lambda m, x, y: x.norm(dim=2, keepdim=True),
    "logsumexp_h_keepdim": lambda m, x, y: x.logsumexp(2, keepdim=True),
    "prod_h_keepdim": lambda m, x, y: x.prod(2, keepdim=True),
    "max_dim_keepdim": lambda m, x, y: x.max(2, keepdim=True),
    "min_dim": lambda m, x, y: x.min(1),
    "argmax_keepdim": lambda m, x, y: x.argmax(2, keepdim=True),
    "var_mean_keepdim": lambda m, x, y: m.var_mean(x, 2, keepdim=True),
    "any_keepdim": lambda m, x, y: (x > 0).any(2, keepdim=True),
    "cumsum_h": lambda m, x, y: x.cumsum(2),
    "cumsum_c": lambda m, x, y: x.cumsum(1),
    "sort_h": lambda m, x, y: x.sort(2),
    "topk_h": lambda m, x, y: x.topk(2, 2),
    "argsort_c": lambda m, x, y: x.argsort(1),
    "msort": lambda m, x, y: m.msort(x),
    "diff_h": lambda m, x, y: m.diff(x, dim=2),
    "diff_c": lambda m, x, y: x.diff(dim=1),
    "glu_c": lambda m, x, y: _F(m).glu(m.cat([x, x], 1), 1),
    "glu_last": lambda m, x, y: _F(m).glu(x[..., :4]),
    "softmax_c": lambda m, x, y: x.softmax(1),
    "softmax_last": lambda m, x, y: _F(m).softmax(x, -1),
    "log_softmax_c": lambda m, x, y: _F(m).log_softmax(x, 1),
    "normalize": lambda m, x, y: _F(m).normalize(x, dim=1),
    # dropout
    "dropout_eval": lambda m, x, y: _F(m).dropout(x, 0.5, training=False),
    "dropout_train": lambda m, x, y: _F(m).dropout(x, 0.5),
    "alpha_dropout": lambda m, x, y: _F(m).alpha_dropout(x, 0.5, training=True),
    "feature_dropout": lambda m, x, y: _nd(m, x, "dropout")(x, 0.5),
    "bernoulli": lambda m, x, y: m.bernoulli(x.sigmoid()),
    "dropout1d": lambda m, x, y: _F(m).dropout1d(x[0, :, 0]),
    "dropout_nd_eval": lambda m, x, y: _nd(m, x, "dropout")(x, 0.5, training=False),
    "feature_alpha_dropout": lambda m, x, y: _F(m).feature_alpha_dropout(x, 0.5, training=True),
    # nn
    "conv": lambda m, x, y: _nd(m, x, "conv")(x, m.ones((4, 3) + (2,) * (x.dim() - 2)) / 10, padding=1),
    "conv_double": lambda m, x, y: _nd(m, x, "conv")(x.double(), m.ones((4, 3) + (2,) * (x.dim() - 2),
                                                                       dtype=m.float64)),
    "conv_bf16": lambda m, x, y: _nd(m, x, "conv")(x.bfloat16(), m.ones((4, 3) + (2,) * (x.dim() - 2),
                                                                         dtype=m.bfloat16)),
    "conv_batch1": lambda m, x, y: _nd(m, x, "conv")(x[:1], m.ones((4, 3) + (2,) * (x.dim() - 2))),
    "conv_1x1": lambda m, x, y: _same_threads(m, lambda: _nd(m, x, "conv")(x, m.ones((4, 3) + (1,) * (x.dim() - 2)))),
    "conv_weight_cl": lambda m, x, y: _nd(m, x, "conv")(x.contiguous(), m.ones((4, 3) + (2,) * (x.dim() - 2)).to(
        memory_format=m.channels_last if x.dim() == 4 else m.channels_last_3d), stride=2),
    "conv_transpose_batch1": lambda m, x, y: _nd(m, x, "conv_transpose")(x[:1], m.ones((3, 2) + (2,) * (x.dim() - 2))),
    "conv_transpose_double": lambda m, x, y: _nd(m, x, "conv_transpose")(
        x.double(), m.ones((3, 2) + (2,) * (x.dim() - 2), dtype=m.float64)),
    "conv_transpose": lambda m, x, y: _nd(m, x, "conv_transpose")(x, m.ones((3, 2) + (2,) * (x.dim() - 2)) / 10),
    "batch_norm": lambda m, x, y: _F(m).batch_norm(x, m.zeros(3), m.ones(3), m.ones(3), m.zeros(3), True),
    "group_norm": lambda m, x, y: _F(m).group_norm(x, 3),
    "instance_norm": lambda m, x, y: _F(m).instance_norm(x),
    "layer_norm": lambda m, x, y: _F(m).layer_norm(x, x.shape[-2:]),
    "max_pool": lambda m, x, y: _nd(m, x, "max_pool")(x, 2),
    "max_pool_indices": lambda m, x, y: _nd(m, x, "max_pool")(x, 2, return_indices=True),
    "avg_pool": lambda m, x, y: _nd(m, x, "avg_pool")(x, 2),
    "adaptive_avg_pool": lambda m, x, y: _nd(m, x, "adaptive_avg_pool")(x, 2),
    "adaptive_max_pool": lambda m, x, y: _nd(m, x, "adaptive_max_pool")(x, 3),
    "interpolate_nearest": lambda m, x, y: _F(m).interpolate(x, scale_factor=2),
    "interpolate_linear": lambda m, x, y: _F(m).interpolate(
        x, scale_factor=2, mode="bilinear" if x.dim() == 4 else "trilinear"),
    "lp_pool": lambda m, x, y: _nd(m, x, "lp_pool")(x.abs(), 2, 2),
    "local_response_norm": lambda m, x, y: _F(m).local_response_norm(x, 2),
    "pixel_shuffle": lambda m, x, y: _F(m).pixel_shuffle(m.cat([x, x[:, :1]], 1), 2),
    "pixel_unshuffle": lambda m, x, y: _F(m).pixel_unshuffle(x[..., :4], 2),
    "channel_shuffle": lambda m, x, y: _F(m).channel_shuffle(m.cat([x, x[:, :1]], 1), 2),
    "pad_constant": lambda m, x, y: _F(m).pad(x, (1, 1, 2, 0)),
    "pad_circular": lambda m, x, y: _F(m).pad(x, (1, 1) * (x.dim() - 2), mode="circular"),
    "pad_reflect": lambda m, x, y: _F(m).pad(x, (1, 1) * (x.dim() - 2), mode="reflect"),
    "pad_replicate": lambda m, x, y: _F(m).pad(x, (1, 1) * (x.dim() - 2), mode="replicate"),
    # copies and creation
    "clone": lambda m, x, y: x.clone(),
    "clone_rows": lambda m, x, y: x.clone(memory_format=m.contiguous_format),
    "empty_like": lambda m, x, y: m.empty_like(x),
    "empty_like_rows": lambda m, x, y: m.empty_like(x, memory_format=m.contiguous_format),
    "zeros_like": lambda m, x, y: m.zeros_like(x),
    "ones_like_dtype": lambda m, x, y: m.ones_like(x, dtype=m.int64),
    "full_like": lambda m, x, y: m.full_like(x, 7.0),
    "rand_like": lambda m, x, y: m.rand_like(x),
    "randn_like": lambda m, x, y: m.randn_like(x),
    "randint_like": lambda m, x, y: m.randint_like(x, 5),
    "new_zeros": lambda m, x, y: x.new_zeros(x.shape),
    "contiguous": lambda m, x, y: x.contiguous(),
    "contiguous_same": lambda m, x, y: x.contiguous(
        memory_format=m.channels_last if x.dim() == 4 else m.channels_last_3d),
    "to_rows": lambda m, x, y: x.to(memory_format=m.contiguous_format),
    "to_preserve_dtype": lambda m, x, y: x.to(m.float64, memory_format=m.preserve_format),
    # indexing and shape
    "index_select_c": lambda m, x, y: x.index_select(1, m.tensor([2, 0])),
    "index_select_h": lambda m, x, y: x.index_select(2, m.tensor([3, 1, 0])),
    "gather_c": lambda m, x, y: x.gather(1, m.zeros(x.shape, dtype=m.int64)),
    "gather_h": lambda m, x, y: x.gather(2, (y > 0).long()),
    "expand": lambda m, x, y: x[:1].expand(x.shape),
    "expand_add": lambda m, x, y: x[:1].expand(x.shape) + 1,
    "permute_chain": lambda m, x, y: x.permute(0, *range(2, x.dim()), 1).permute(0, -1, *range(1, x.dim() - 1)),
    "permute_mul": lambda m, x, y: x.permute(*range(x.dim() - 1, -1, -1)) * 2,
    "flip": lambda m, x, y: x.flip(2),
    "flip_slice": lambda m, x, y: x[:, :, 1:].flip(1),
    "fliplr": lambda m, x, y: m.fliplr(x),
    "flipud": lambda m, x, y: x.flipud(),
    "roll": lambda m, x, y: x.roll(1, 2),
    "rot90": lambda m, x, y: x.rot90(1, (1, 2)),
    "rot90_2": lambda m, x, y: m.rot90(x, 2, (1, -1)),
    "rot90_3": lambda m, x, y: m.rot90(x, 3, (-1, 0)),
    "rot90_0": lambda m, x, y: m.rot90(x, 0),
    "roll_two": lambda m, x, y: x.roll((1, -1), (1, 3)),
    "roll_flat": lambda m, x, y: x.roll(1),
    "slice_scatter": lambda m, x, y: m.slice_scatter(x, y[:, :1], 1, 0, 1),
    "index_fill": lambda m, x, y: x.index_fill(1, m.tensor([0]), 1.0),
    "put": lambda m, x, y: x.put(m.tensor([0, 7]), m.tensor([9.0, 8.0])),
    "repeat": lambda m, x, y: x.repeat((1, 2) + (1,) * (x.dim() - 2)),
    "narrow_c": lambda m, x, y: x.narrow(1, 1, 2),
    "stack0": lambda m, x, y: m.stack([x, x]),
    "stack1": lambda m, x, y: m.stack([x, x], 1),
    "stack_last": lambda m, x, y: m.stack([x, x], -1),
    "stack_mixed": lambda m, x, y: m.stack([x, y]),
    "stack_out": lambda m, x, y: m.stack([x, x], 1, out=m.empty(0)),
    "stack_slices": lambda m, x, y: m.stack([x[:, :2], x[:, 1:]], 2),
    "hstack": lambda m, x, y: m.hstack([x, x]),
    "cat_c": lambda m, x, y: m.cat([x, x], 1),
    "cat_h": lambda m, x, y: m.cat([x, x[:, :, :2]], 2),
    "cat_mixed": lambda m, x, y: m.cat([x, y], 1),
    "chunk_cat": lambda m, x, y: m.cat(x.chunk(2, 2), 1),
    "masked_select_like": lambda m, x, y: x[x > 0],
    "bool_index": lambda m, x, y: x[:, m.tensor([True, False, True])],
    "sum_to_size": lambda m, x, y: x.sum_to_size((1,) * x.dim()),
}


def _cases():
    cases = {}
    for name, fn in UNARY.items():
        cases[name] = fn
    for name, fn in BINARY.items():
        cases[name] = fn
        cases[name + "/cl,rows"] = fn
        cases[name + "/rows,cl"] = lambda m, x, y, fn=fn: fn(m, y, x)
    cases.update(OTHER)
    return cases


CASES = _cases()


def _inputs(m, kind, case):
    shape = SHAPES[kind]
    fmt = getattr(m, "channels_last" if kind == "cl" else "channels_last_3d")
    n = int(np.prod(shape))
    x = m.arange(n, dtype=m.float32).reshape(shape).mul(0.37).sin()
    y = m.arange(n, dtype=m.float32).reshape(shape).mul(0.11).cos()
    x = x.to(memory_format=fmt)
    if "/" not in case and not case.endswith("_mixed"):  # (a binary op's plain form: both channels-last)
        y = y.to(memory_format=fmt)
    return x, y


def _layout(t):
    if not hasattr(t, "stride"):
        return t if not isinstance(t, (tuple, list)) else [_layout(o) for o in t]
    m = torch if isinstance(t, torch.Tensor) else torchlike
    return (tuple(t.shape), str(t.dtype).split(".")[-1], t.stride(), t.is_contiguous(),
            t.is_contiguous(memory_format=m.channels_last), t.is_contiguous(memory_format=m.channels_last_3d))


def _values(t):
    if isinstance(t, (tuple, list)):
        return [_values(o) for o in t]
    if not hasattr(t, "stride"):
        return t
    m = torch if isinstance(t, torch.Tensor) else torchlike
    return t.detach().to(m.complex128 if t.is_complex() else m.float64).numpy()


def _run(m, kind, case):
    m.manual_seed(0)
    x, y = _inputs(m, kind, case)
    try:
        r = CASES[case](m, x, y)
    except Exception as e:  # (compared: the exception's type and message's first line)
        return ("raises", type(e).__name__, str(e).split("\n")[0]), None
    return _layout(r), (None if case in RANDOM else _values(r))


def mismatches(kinds=SHAPES, cases=CASES):
    """The (kind, case, torch's layout, torchlike's) where torchlike's layout differs from torch's."""
    out = []
    for kind in kinds:
        for case in cases:
            want, got = _run(torch, kind, case)[0], _run(torchlike, kind, case)[0]
            if want != got:
                out.append((kind, case, want, got))
    return out


@pytest.mark.parametrize("kind", sorted(SHAPES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_layout_matches_torch(case, kind):
    want, want_v = _run(torch, kind, case)
    got, got_v = _run(torchlike, kind, case)
    assert got == want
    if want_v is not None:
        _close(got_v, want_v)


def _close(got, want):
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("k", range(-1, 4))
def test_rot90_of_row_major_input_has_torchs_strides(k):
    """torch's rot90 is flip then ``transpose_`` of that result: an odd ``k`` gives a non-contiguous tensor."""
    want = torch.rot90(torch.arange(24.).reshape(2, 3, 4), k, (0, 2))
    got = torchlike.rot90(torchlike.arange(24.).reshape(2, 3, 4), k, (0, 2))
    assert (tuple(got.shape), got.stride(), got.is_contiguous()) == (tuple(want.shape), want.stride(),
                                                                      want.is_contiguous())
    assert got.tolist() == want.tolist()


if __name__ == "__main__":
    found = mismatches()
    for kind, case, want, got in found:
        print(f"{kind:5} {case:28} torch {want}\n{'':34} tl    {got}")
    print(f"{len(found)} of {len(CASES) * len(SHAPES)} differ")
