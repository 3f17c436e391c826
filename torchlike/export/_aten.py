"""The aten operators a torch ``.pt2`` graph may call, mapped onto torchlike's op table.

Each entry takes the operator's arguments by their aten schema names (the names torch writes into
the serialized graph; arguments left at their default are not written, so the defaults here are aten's)
and returns a Tensor, a tuple of Tensors, or a Python number for the symbolic-size operators.
``lookup(target)`` resolves a target string such as ``"torch.ops.aten.linear.default"``.

>>> from torchlike.export._aten import lookup
>>> import torchlike
>>> lookup("torch.ops.aten.add.Tensor")(self=torchlike.ones(2), other=torchlike.ones(2), alpha=2)
tensor([3., 3.])
"""
from __future__ import annotations

import math
import operator

import torchlike as _t
import torchlike.nn.functional as F

from .._dispatch import dispatch
from ..nn.functional import _rnn as K

__all__ = ["ATEN", "SYM_OPS", "lookup", "supported_ops"]

ATEN: dict = {}  # "name.overload" -> callable taking aten's argument names


def _reg(*names):
    def deco(fn):
        for n in names:
            ATEN[n] = fn
        return fn
    return deco


def _same(torch_name, *names, unary=False):
    """Ops whose aten arguments are the torch function's, in the same order (``self`` -> ``input``)."""
    fn = getattr(_t, torch_name)
    if unary:
        def call(self):
            return fn(self)
    else:
        def call(self, other, alpha=None):
            return fn(self, other) if alpha is None else fn(self, other, alpha=alpha)
    for n in names:
        ATEN[n] = call


# ---------------------------------------------------------------- pointwise
for _n in ("add", "sub", "rsub"):
    _same(_n, f"{_n}.Tensor", f"{_n}.Scalar")
for _n in ("mul", "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "logical_and", "logical_or",
           "logical_xor", "remainder", "fmod", "atan2", "floor_divide", "bitwise_and", "bitwise_or",
           "bitwise_xor"):
    _same(_n, f"{_n}.Tensor", f"{_n}.Scalar", f"{_n}.default")
for _n in ("relu", "sigmoid", "tanh", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
           "neg", "abs", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "erfc", "reciprocal",
           "floor", "ceil", "trunc", "sign", "square", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite",
           "sgn", "frac"):
    _same(_n, f"{_n}.default", unary=True)
ATEN["lift_fresh_copy.default"] = lambda self: self.clone()
ATEN["alias.default"] = ATEN["detach.default"] = lambda self: self.detach()


@_reg("div.Tensor", "div.Scalar", "div.Tensor_mode", "div.Scalar_mode")
def _div(self, other, rounding_mode=None):
    return _t.div(self, other, rounding_mode=rounding_mode)


@_reg("pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar")
def _pow(self, exponent):
    return _t.pow(self, exponent)


@_reg("round.default", "round.decimals")
def _round(self, decimals=0):
    return _t.round(self, decimals=decimals)


@_reg("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")
def _where(condition, self, other):
    return _t.where(condition, self, other)


@_reg("clamp.default", "clamp.Tensor")
def _clamp(self, min=None, max=None):
    return _t.clamp(self, min, max)


ATEN["clamp_min.default"] = lambda self, min: _t.clamp(self, min=min)
ATEN["clamp_max.default"] = lambda self, max: _t.clamp(self, max=max)
ATEN["gelu.default"] = lambda self, approximate="none": F.gelu(self, approximate=approximate)
ATEN["silu.default"] = lambda self: F.silu(self)
ATEN["mish.default"] = lambda self: F.mish(self)
ATEN["selu.default"] = lambda self: F.selu(self)
ATEN["celu.default"] = lambda self, alpha=1.0: F.celu(self, alpha)
ATEN["glu.default"] = lambda self, dim=-1: F.glu(self, dim)
ATEN["prelu.default"] = ATEN["_prelu_kernel.default"] = lambda self, weight: F.prelu(self, weight)
ATEN["log_sigmoid_forward.default"] = lambda self: (F.logsigmoid(self), self.new_zeros((0,)))
ATEN["hardshrink.default"] = lambda self, lambd=0.5: F.hardshrink(self, lambd)
ATEN["hardswish.default"] = lambda self: F.hardswish(self)
ATEN["hardsigmoid.default"] = lambda self: F.hardsigmoid(self)
ATEN["hardtanh.default"] = lambda self, min_val=-1.0, max_val=1.0: F.hardtanh(self, min_val, max_val)
ATEN["leaky_relu.default"] = lambda self, negative_slope=0.01: F.leaky_relu(self, negative_slope)
ATEN["softplus.default"] = lambda self, beta=1, threshold=20: F.softplus(self, beta, threshold)
ATEN["masked_fill.Scalar"] = ATEN["masked_fill.Tensor"] = lambda self, mask, value: self.masked_fill(mask, value)
ATEN["tril.default"] = lambda self, diagonal=0: _t.tril(self, diagonal)
ATEN["triu.default"] = lambda self, diagonal=0: _t.triu(self, diagonal)


@_reg("elu.default")
def _elu(self, alpha=1.0, scale=1.0, input_scale=1.0):
    if scale != 1.0 or input_scale != 1.0:  # selu / celu are written this way
        return scale * _t.where(self > 0, self, alpha * (_t.exp(self * input_scale) - 1))
    return F.elu(self, alpha)


# in-place operators (the training-IR graph of ``torch.export.export`` mutates buffers with them; the
# interpreter writes the final values of mutated inputs back after the call)
for _n in ("add", "sub"):
    ATEN[f"{_n}_.Tensor"] = ATEN[f"{_n}_.Scalar"] = (lambda self, other, alpha=1, _n=_n:
                                                     getattr(self, f"{_n}_")(other, alpha=alpha))
for _n in ("mul", "div"):
    ATEN[f"{_n}_.Tensor"] = ATEN[f"{_n}_.Scalar"] = lambda self, other, _n=_n: getattr(self, f"{_n}_")(other)
ATEN["copy_.default"] = lambda self, src, non_blocking=False: self.copy_(src)
ATEN["fill_.Scalar"] = ATEN["fill_.Tensor"] = lambda self, value: self.fill_(value)
ATEN["zero_.default"] = lambda self: self.zero_()
ATEN["relu_.default"] = lambda self: self.relu_()
ATEN["clamp_.default"] = lambda self, min=None, max=None: self.clamp_(min, max)
ATEN["masked_fill_.Scalar"] = ATEN["masked_fill_.Tensor"] = lambda self, mask, value: self.masked_fill_(mask, value)
ATEN["copy.default"] = lambda self, src, non_blocking=False: src.to(self.dtype).expand(*self.shape).clone()


# ---------------------------------------------------------------- linear algebra
ATEN["mm.default"] = lambda self, mat2: _t.mm(self, mat2)
ATEN["bmm.default"] = lambda self, mat2: _t.bmm(self, mat2)
ATEN["matmul.default"] = lambda self, other: _t.matmul(self, other)
ATEN["dot.default"] = lambda self, tensor: _t.dot(self, tensor)
ATEN["t.default"] = lambda self: self.t()
ATEN["linear.default"] = lambda input, weight, bias=None: F.linear(input, weight, bias)
ATEN["addmm.default"] = lambda self, mat1, mat2, beta=1, alpha=1: _t.addmm(self, mat1, mat2, beta=beta, alpha=alpha)
ATEN["baddbmm.default"] = (lambda self, batch1, batch2, beta=1, alpha=1:
                           _t.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha))
ATEN["einsum.default"] = lambda equation, tensors, path=None: _t.einsum(equation, *tensors)


def _conv(nd):
    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        return getattr(F, f"conv{nd}d")(input, weight, bias, stride, padding, dilation, groups)
    return conv


def _conv_t(nd):
    def conv_t(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        return getattr(F, f"conv_transpose{nd}d")(input, weight, bias, stride, padding, output_padding, groups,
                                                  dilation)
    return conv_t


for _d in (1, 2, 3):
    ATEN[f"conv{_d}d.default"] = ATEN[f"conv{_d}d.padding"] = _conv(_d)
    ATEN[f"conv_transpose{_d}d.input"] = _conv_t(_d)


@_reg("convolution.default", "_convolution.default")
def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *_):
    nd = weight.dim() - 2
    if transposed:
        return _conv_t(nd)(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return _conv(nd)(input, weight, bias, stride, padding, dilation, groups)


# ---------------------------------------------------------------- normalization
def _channel_shape(x):
    return (1, -1) + (1,) * (x.dim() - 2)


@_reg("batch_norm.default")
def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@_reg("_native_batch_norm_legit_no_training.default")
def _bn_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    empty = input.new_zeros((0,))
    return out, empty, empty


def _bn_train(input, weight, bias, eps):
    dims = [0] + list(range(2, input.dim()))
    mean = input.mean(dims)
    var = input.var(dims, unbiased=False)
    rstd = _t.rsqrt(var + eps)
    out = (input - mean.reshape(_channel_shape(input))) * rstd.reshape(_channel_shape(input))
    if weight is not None:
        out = out * weight.reshape(_channel_shape(input))
    if bias is not None:
        out = out + bias.reshape(_channel_shape(input))
    n = input.numel() // input.shape[1]
    return out, mean, rstd, var * (n / max(n - 1, 1))


@_reg("_native_batch_norm_legit_functional.default")
def _bn_functional(input, weight, bias, running_mean, running_var, training, momentum, eps):
    if not training:
        out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
        empty = input.new_zeros((0,))
        return out, empty, empty, running_mean, running_var
    out, mean, rstd, unbiased = _bn_train(input, weight, bias, eps)
    return (out, mean, rstd, running_mean * (1 - momentum) + mean * momentum,
            running_var * (1 - momentum) + unbiased * momentum)


@_reg("native_batch_norm.default", "_native_batch_norm_legit.default", "_native_batch_norm_legit.no_stats")
def _native_bn(input, weight, bias, running_mean=None, running_var=None, training=True, momentum=0.1, eps=1e-5):
    if training or running_mean is None:
        out, mean, rstd, _ = _bn_train(input, weight, bias, eps)
        return out, mean, rstd
    out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    empty = input.new_zeros((0,))
    return out, empty, empty


@_reg("layer_norm.default")
def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, list(normalized_shape), weight, bias, eps)


@_reg("native_layer_norm.default")
def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    mean = input.mean(dims, keepdim=True)
    rstd = _t.rsqrt(input.var(dims, unbiased=False, keepdim=True) + eps)
    return F.layer_norm(input, list(normalized_shape), weight, bias, eps), mean, rstd


@_reg("group_norm.default")
def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


@_reg("native_group_norm.default")
def _native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    g = input.reshape(N, group, -1)
    mean = g.mean(-1)
    rstd = _t.rsqrt(g.var(-1, unbiased=False) + eps)
    return F.group_norm(input, group, weight, bias, eps), mean, rstd


# ---------------------------------------------------------------- softmax, attention, dropout, embedding
ATEN["softmax.int"] = lambda self, dim, dtype=None: _t.softmax(self, dim, dtype=dtype)
ATEN["log_softmax.int"] = lambda self, dim, dtype=None: _t.log_softmax(self, dim, dtype=dtype)
ATEN["_softmax.default"] = lambda self, dim, half_to_float: _t.softmax(self, dim)
ATEN["_log_softmax.default"] = lambda self, dim, half_to_float: _t.log_softmax(self, dim)
ATEN["dropout.default"] = lambda input, p, train: F.dropout(input, p, train)
ATEN["native_dropout.default"] = lambda input, p, train: (F.dropout(input, p, bool(train)),
                                                          _t.ones_like(input, dtype=_t.bool))
ATEN["embedding.default"] = (lambda weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False:
                             F.embedding(indices, weight))


@_reg("scaled_dot_product_attention.default")
def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    return F.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                          enable_gqa=enable_gqa)


# ---------------------------------------------------------------- pooling
def _pool_stride(kernel_size, stride):
    return stride if stride else kernel_size  # aten writes stride=[] for "same as kernel"


for _d in (1, 2, 3):
    def _maxpool(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False, _d=_d, _ind=False):
        return getattr(F, f"max_pool{_d}d")(self, kernel_size, _pool_stride(kernel_size, stride), padding,
                                            dilation, ceil_mode, return_indices=_ind)

    def _maxpool_ind(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False, _f=_maxpool):
        return tuple(_f(self, kernel_size, stride, padding, dilation, ceil_mode, _ind=True))

    def _avgpool(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, _d=_d):
        f = getattr(F, f"avg_pool{_d}d")
        if _d == 1:
            return f(self, kernel_size, _pool_stride(kernel_size, stride), padding, ceil_mode, count_include_pad)
        return f(self, kernel_size, _pool_stride(kernel_size, stride), padding, ceil_mode, count_include_pad,
                 divisor_override)

    def _adaptive(self, output_size, _d=_d):
        return getattr(F, f"adaptive_avg_pool{_d}d")(self, output_size)

    ATEN[f"max_pool{_d}d.default"] = _maxpool
    ATEN[f"max_pool{_d}d_with_indices.default"] = _maxpool_ind
    ATEN[f"avg_pool{_d}d.default"] = _avgpool
    ATEN[f"adaptive_avg_pool{_d}d.default"] = ATEN[f"_adaptive_avg_pool{_d}d.default"] = _adaptive


# ---------------------------------------------------------------- recurrent layers (nn.LSTM / GRU / RNN)
def _rnn(mode):
    def run(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        if train and dropout > 0 and num_layers > 1:
            raise NotImplementedError("torchlike.export.load: recurrent layers with dropout in training mode are "
                                      "not supported (see docs/differences.md)")
        x = input.transpose(0, 1) if batch_first else input
        h0, c0 = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
        per = len(params) // (num_layers * (2 if bidirectional else 1))
        proj = per == (4 if has_biases else 2) + 1
        outs = dispatch(K.rnn_impl, (x, h0, c0, None, None) + tuple(params),
                        (("mode", mode), ("num_layers", num_layers), ("bidirectional", bool(bidirectional)),
                         ("has_bias", bool(has_biases)), ("proj", proj)), name=f"{mode.split('_')[0]}Backward0")
        out = outs[0].transpose(0, 1) if batch_first else outs[0]
        return (out,) + tuple(outs[1:])
    return run


ATEN["lstm.input"] = _rnn("LSTM")
ATEN["gru.input"] = _rnn("GRU")
ATEN["rnn_tanh.input"] = _rnn("RNN_TANH")
ATEN["rnn_relu.input"] = _rnn("RNN_RELU")


# ---------------------------------------------------------------- padding and resampling
ATEN["pad.default"] = lambda self, pad, mode="constant", value=None: F.pad(self, list(pad), mode, value)
ATEN["constant_pad_nd.default"] = lambda self, pad, value=0: F.pad(self, list(pad), "constant", value)
for _d in (1, 2, 3):
    ATEN[f"reflection_pad{_d}d.default"] = lambda self, padding: F.pad(self, list(padding), "reflect")
    ATEN[f"replication_pad{_d}d.default"] = lambda self, padding: F.pad(self, list(padding), "replicate")
ATEN["pixel_shuffle.default"] = lambda self, upscale_factor: F.pixel_shuffle(self, upscale_factor)


def _upsample(mode):
    def vec_align(input, output_size=None, align_corners=None, scale_factors=None):
        if scale_factors:
            return F.interpolate(input, scale_factor=tuple(scale_factors), mode=mode, align_corners=align_corners)
        return F.interpolate(input, size=list(output_size), mode=mode, align_corners=align_corners)

    def vec_nearest(input, output_size=None, scale_factors=None):
        return vec_align(input, output_size, None, scale_factors)
    vec = vec_nearest if "nearest" in mode else vec_align

    def default(self, output_size, align_corners=None, scales=None, scales_d=None, scales_h=None, scales_w=None):
        given = [v for v in (scales, scales_d, scales_h, scales_w) if v is not None]
        if given and len(given) == len(output_size):
            return F.interpolate(self, scale_factor=tuple(given), mode=mode, align_corners=align_corners)
        return F.interpolate(self, size=list(output_size), mode=mode, align_corners=align_corners)
    return vec, default


for _name, _mode in (("upsample_nearest1d", "nearest"), ("upsample_nearest2d", "nearest"),
                      ("upsample_nearest3d", "nearest"), ("_upsample_nearest_exact1d", "nearest-exact"),
                      ("_upsample_nearest_exact2d", "nearest-exact"), ("upsample_linear1d", "linear"),
                      ("upsample_bilinear2d", "bilinear"), ("upsample_bicubic2d", "bicubic"),
                      ("upsample_trilinear3d", "trilinear")):
    ATEN[f"{_name}.vec"], ATEN[f"{_name}.default"] = _upsample(_mode)


# ---------------------------------------------------------------- shapes and views
ATEN["view.default"] = ATEN["_unsafe_view.default"] = ATEN["view_copy.default"] = lambda self, size: self.reshape(size)
ATEN["reshape.default"] = lambda self, shape: self.reshape(shape)
ATEN["expand_as.default"] = lambda self, other: self.expand_as(other)
ATEN["view_as.default"] = ATEN["reshape_as.default"] = lambda self, other: self.reshape(other.shape)
ATEN["permute.default"] = ATEN["permute_copy.default"] = lambda self, dims: self.permute(dims)
ATEN["transpose.int"] = lambda self, dim0, dim1: self.transpose(dim0, dim1)
ATEN["unsqueeze.default"] = ATEN["unsqueeze_copy.default"] = lambda self, dim: self.unsqueeze(dim)
ATEN["squeeze.default"] = lambda self: self.squeeze()
ATEN["squeeze.dim"] = ATEN["squeeze.dims"] = ATEN["squeeze_copy.dims"] = lambda self, dim: self.squeeze(dim)
ATEN["flatten.using_ints"] = lambda self, start_dim=0, end_dim=-1: _t.flatten(self, start_dim, end_dim)
ATEN["unflatten.int"] = lambda self, dim, sizes: self.unflatten(dim, sizes)
ATEN["expand.default"] = ATEN["expand_copy.default"] = lambda self, size, implicit=False: self.expand(*size)
ATEN["clone.default"] = lambda self, memory_format=None: self.clone()
ATEN["contiguous.default"] = lambda self, memory_format=None: self.contiguous()
ATEN["select.int"] = ATEN["select_copy.int"] = lambda self, dim, index: self.select(dim, index)
ATEN["narrow.default"] = lambda self, dim, start, length: self.narrow(dim, start, length)
ATEN["cat.default"] = ATEN["concat.default"] = lambda tensors, dim=0: _t.cat(list(tensors), dim)
ATEN["stack.default"] = lambda tensors, dim=0: _t.stack(list(tensors), dim)
ATEN["split.Tensor"] = lambda self, split_size, dim=0: tuple(_t.split(self, split_size, dim))
ATEN["split_with_sizes.default"] = lambda self, split_sizes, dim=0: tuple(_t.split(self, list(split_sizes), dim))
ATEN["chunk.default"] = lambda self, chunks, dim=0: tuple(_t.chunk(self, chunks, dim))
ATEN["unbind.int"] = lambda self, dim=0: tuple(_t.unbind(self, dim))
ATEN["index_select.default"] = lambda self, dim, index: _t.index_select(self, dim, index)
ATEN["gather.default"] = lambda self, dim, index, sparse_grad=False: _t.gather(self, dim, index)
ATEN["repeat.default"] = lambda self, repeats: self.repeat(*repeats)
ATEN["flip.default"] = lambda self, dims: _t.flip(self, dims)
ATEN["roll.default"] = lambda self, shifts, dims=(): _t.roll(self, list(shifts), list(dims) or None)
ATEN["movedim.int"] = lambda self, source, destination: _t.movedim(self, source, destination)
ATEN["index.Tensor"] = lambda self, indices: self[tuple(slice(None) if i is None else i for i in indices)]


@_reg("slice.Tensor", "slice_copy.Tensor")
def _slice(self, dim=0, start=None, end=None, step=1):
    n = self.shape[dim]
    start, end, _ = slice(start, end, step).indices(n)  # aten clamps like Python slicing
    idx = (slice(None),) * (dim % self.dim()) + (slice(start, max(start, end), step),)
    return self[idx]


# ---------------------------------------------------------------- reductions
def _dims(dim):
    return None if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0) else list(dim)


@_reg("sum.dim_IntList", "sum.default")
def _sum(self, dim=None, keepdim=False, dtype=None):
    d = _dims(dim)
    return _t.sum(self, dtype=dtype) if d is None else _t.sum(self, d, keepdim, dtype=dtype)


@_reg("mean.dim", "mean.default")
def _mean(self, dim=None, keepdim=False, dtype=None):
    d = _dims(dim)
    return _t.mean(self, dtype=dtype) if d is None else _t.mean(self, d, keepdim, dtype=dtype)


ATEN["amax.default"] = lambda self, dim=(), keepdim=False: _t.amax(self, tuple(dim), keepdim)
ATEN["amin.default"] = lambda self, dim=(), keepdim=False: _t.amin(self, tuple(dim), keepdim)
ATEN["max.dim"] = lambda self, dim, keepdim=False: tuple(_t.max(self, dim, keepdim))
ATEN["min.dim"] = lambda self, dim, keepdim=False: tuple(_t.min(self, dim, keepdim))
ATEN["max.default"] = lambda self: _t.max(self)
ATEN["min.default"] = lambda self: _t.min(self)
ATEN["argmax.default"] = lambda self, dim=None, keepdim=False: _t.argmax(self, dim, keepdim)
ATEN["argmin.default"] = lambda self, dim=None, keepdim=False: _t.argmin(self, dim, keepdim)
ATEN["prod.default"] = lambda self, dtype=None: _t.prod(self, dtype=dtype)
ATEN["prod.dim_int"] = lambda self, dim, keepdim=False, dtype=None: _t.prod(self, dim, keepdim, dtype=dtype)
ATEN["cumsum.default"] = lambda self, dim, dtype=None: _t.cumsum(self, dim, dtype=dtype)
ATEN["logsumexp.default"] = lambda self, dim, keepdim=False: _t.logsumexp(self, list(dim), keepdim)
ATEN["any.default"] = lambda self: _t.any(self)
ATEN["all.default"] = lambda self: _t.all(self)
ATEN["any.dim"] = ATEN["any.dims"] = lambda self, dim=None, keepdim=False: _reduce_dims(_t.any, self, dim, keepdim)
ATEN["all.dim"] = ATEN["all.dims"] = lambda self, dim=None, keepdim=False: _reduce_dims(_t.all, self, dim, keepdim)


def _reduce_dims(fn, self, dim, keepdim):
    if dim is None or isinstance(dim, int):
        return fn(self) if dim is None else fn(self, dim, keepdim)
    out = self
    for d in sorted((d % self.dim() for d in dim), reverse=True):
        out = fn(out, d, keepdim)
    return out


@_reg("var.correction", "std.correction")
def _var_std(self, dim=None, correction=None, keepdim=False, _std=False):
    fn = _t.std if _std else _t.var
    return fn(self, _dims(dim), correction=1 if correction is None else correction, keepdim=keepdim)


ATEN["std.dim"] = (lambda self, dim, unbiased=True, keepdim=False:
                   _var_std(self, dim, int(unbiased), keepdim, _std=True))
ATEN["var.dim"] = lambda self, dim, unbiased=True, keepdim=False: _var_std(self, dim, int(unbiased), keepdim)
ATEN["std.default"] = lambda self, unbiased=True: _var_std(self, None, int(unbiased), _std=True)
ATEN["var.default"] = lambda self, unbiased=True: _var_std(self, None, int(unbiased))
ATEN["linalg_vector_norm.default"] = (lambda self, ord=2, dim=None, keepdim=False, dtype=None:
                                      _t.linalg.vector_norm(self, ord, _dims(dim), keepdim, dtype=dtype))
ATEN["topk.default"] = (lambda self, k, dim=-1, largest=True, sorted=True:
                        tuple(_t.topk(self, k, dim, largest, sorted)))
ATEN["sort.default"] = lambda self, dim=-1, descending=False: tuple(_t.sort(self, dim, descending))
ATEN["sort.stable"] = (lambda self, stable=None, dim=-1, descending=False:
                       tuple(_t.sort(self, dim=dim, descending=descending, stable=bool(stable))))
ATEN["std.correction"] = lambda self, dim=None, correction=None, keepdim=False: _var_std(self, dim, correction,
                                                                                        keepdim, _std=True)

# ---------------------------------------------------------------- creation and conversion


def _size(size):
    return [int(s) for s in size]


ATEN["full.default"] = (lambda size, fill_value, dtype=None, layout=None, device=None, pin_memory=None:
                        _t.full(_size(size), fill_value, dtype=dtype))
ATEN["zeros.default"] = (lambda size, dtype=None, layout=None, device=None, pin_memory=None:
                         _t.zeros(_size(size), dtype=dtype))
ATEN["ones.default"] = (lambda size, dtype=None, layout=None, device=None, pin_memory=None:
                        _t.ones(_size(size), dtype=dtype))
ATEN["empty.memory_format"] = (lambda size, dtype=None, layout=None, device=None, pin_memory=None,
                               memory_format=None: _t.zeros(_size(size), dtype=dtype))
ATEN["scalar_tensor.default"] = (lambda s, dtype=None, layout=None, device=None, pin_memory=None:
                                 _t.scalar_tensor(s, dtype=dtype or _t.float32))


def _like(fill):
    def like(self, *args, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None, **kw):
        value = kw.get("fill_value", args[0] if args else fill)
        return _t.full_like(self, value, dtype=dtype)
    return like


ATEN["full_like.default"] = _like(None)
ATEN["zeros_like.default"] = _like(0)
ATEN["ones_like.default"] = _like(1)
ATEN["empty_like.default"] = _like(0)


@_reg("arange.default", "arange.start", "arange.start_step")
def _arange(start=0, end=None, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    return _t.arange(start, end, step, dtype=dtype)


@_reg("_to_copy.default", "to.dtype", "to.dtype_layout", "to.device", "_to_dim_order_copy.default")
def _to(self, device=None, dtype=None, non_blocking=False, copy=False, memory_format=None, layout=None,
        pin_memory=None, dim_order=None):
    return self.to(dtype) if dtype is not None else self.clone()


ATEN["type_as.default"] = lambda self, other: self.type_as(other)

# ---------------------------------------------------------------- symbolic sizes and asserts
ATEN["sym_size.int"] = lambda self, dim: self.shape[dim]
ATEN["sym_numel.default"] = lambda self: self.numel()
ATEN["sym_stride.int"] = lambda self, dim: self.stride(dim)
ATEN["sym_storage_offset.default"] = lambda self: 0
for _n in ("_assert_scalar.default", "_assert_tensor_metadata.default", "sym_constrain_range.default",
           "sym_constrain_range_for_size.default", "_assert_async.msg", "_assert_async.default"):
    ATEN[_n] = lambda *a, **k: None

SYM_OPS = {  # python-level operators on sizes (targets without the torch.ops.aten prefix); positional args
    "_operator.getitem": operator.getitem, "_operator.add": operator.add, "_operator.sub": operator.sub,
    "_operator.mul": operator.mul, "_operator.floordiv": operator.floordiv, "_operator.truediv": operator.truediv,
    "_operator.mod": operator.mod, "_operator.pow": operator.pow, "_operator.neg": operator.neg,
    "_operator.eq": operator.eq, "_operator.ne": operator.ne, "_operator.lt": operator.lt,
    "_operator.le": operator.le, "_operator.gt": operator.gt, "_operator.ge": operator.ge,
    "_operator.and_": operator.and_, "_operator.or_": operator.or_, "_operator.not_": operator.not_,
    "torch.sym_max": max, "torch.sym_min": min, "torch.sym_not": operator.not_, "torch.sym_float": float,
    "torch.sym_int": int, "torch.sym_sqrt": math.sqrt, "torch.sym_ite": lambda c, a, b: a if c else b,
    "math.ceil": math.ceil, "math.floor": math.floor, "math.trunc": math.trunc, "math.sqrt": math.sqrt,
    "builtins.round": round, "torch._sym_sqrt": math.sqrt,
}

_PREFIX = "torch.ops.aten."


def lookup(target):
    """The callable for a serialized node target; NotImplementedError names an aten op torchlike lacks."""
    if target in SYM_OPS:
        return SYM_OPS[target]
    if target.startswith(_PREFIX):
        fn = ATEN.get(target[len(_PREFIX):])
        if fn is not None:
            return fn
        what = f"aten operator {target[len('torch.ops.'):]}"
    else:
        what = f"graph target {target}"
    raise NotImplementedError(
        f"torchlike.export.load: the {what} in this torch.export program is not supported by torchlike yet "
        "(see docs/differences.md, 'Programs exported by torch (.pt2)', for the supported aten operators)")


def supported_ops():
    """The sorted aten ``name.overload`` strings a loaded program may call."""
    return sorted(ATEN)
