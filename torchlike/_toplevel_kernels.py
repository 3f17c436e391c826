"""torch's top-level ATen kernel entry points that programs and libraries call directly: the fused recurrent
kernels (``torch.lstm``, ``torch.gru_cell``, ...), ``torch.convolution`` and ``conv_tbc``,
``torch.max_pool1d_with_indices``, ``torch.embedding_renorm_``, the SyncBatchNorm kernels
(``torch.batch_norm_stats`` ...), the legacy norms (``frobenius_norm``, ``nuclear_norm``, ``norm_except_dim``)
and ``torch.binomial``. Each is the kernel behind a public nn/linalg API, so it reuses that API's code.

>>> import torchlike as torch
>>> x, h = torch.zeros(2, 3), torch.zeros(2, 4)
>>> torch.gru_cell(x, h, torch.ones(12, 3), torch.ones(12, 4)).shape
torch.Size([2, 4])
"""
from __future__ import annotations

import operator

import numpy as np

from . import _creation, _dtype, linalg
from ._dispatch import dispatch
from ._errors import broadcast_shape
from ._grad_mode import no_grad
from ._random import draw
from .nn import functional as F
from .nn.functional._embedding import _renorm_rows
from .nn.functional._recurrent import KERNELS, run_cell, run_stack
from .nn.utils.rnn import PackedSequence, packed_to_padded
from ._ops.signatures import parses
from .tensor import Tensor

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
           "convolution", "_convolution", "_convolution_mode", "conv_tbc", "affine_grid_generator", "max_pool1d_with_indices",
           "embedding_renorm_", "frobenius_norm", "nuclear_norm", "native_norm", "norm_except_dim", "binomial",
           "batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
           "batch_norm_update_stats", "batch_norm_backward_reduce", "batch_norm_backward_elemt"]


# --- the fused recurrent kernels ---------------------------------------------------------------------
def _rnn(mode, input, *args):
    """torch.lstm/gru/rnn_* in both overloads: ``(input, hx, params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first)`` and the packed ``(data, batch_sizes, hx, params, has_biases, num_layers,
    dropout, train, bidirectional)``."""
    packed = isinstance(args[2], (list, tuple))  # the data overload: params come third, after batch_sizes and hx
    if packed:
        batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        batch_first = False
        x, lengths = packed_to_padded(PackedSequence(input, batch_sizes), sorted_order=True)
    else:
        hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
        x, lengths = (input.transpose(0, 1) if batch_first else input), None
    h0, c0 = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
    proj = mode == "LSTM" and h0.shape[-1] != c0.shape[-1]
    return run_stack(mode, x, h0, c0, lengths, params, num_layers=num_layers, dropout=dropout, train=train,
                     bidirectional=bidirectional, has_bias=has_biases, proj=proj, batch_first=batch_first)


@parses("Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
         "bool bidirectional, bool batch_first",
         "Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional")
def lstm(input, *args):
    """torch.lstm: the kernel of nn.LSTM; returns ``(output, h_n, c_n)``."""
    return _rnn("LSTM", input, *args)


@parses("Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
         "bool bidirectional, bool batch_first",
         "Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional")
def gru(input, *args):
    """torch.gru: the kernel of nn.GRU; returns ``(output, h_n)``."""
    return _rnn("GRU", input, *args)


@parses("Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
         "bool bidirectional, bool batch_first",
         "Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional")
def rnn_tanh(input, *args):
    """torch.rnn_tanh: the kernel of nn.RNN (tanh); returns ``(output, h_n)``."""
    return _rnn("RNN_TANH", input, *args)


@parses("Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, "
         "bool bidirectional, bool batch_first",
         "Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
         "float dropout, bool train, bool bidirectional")
def rnn_relu(input, *args):
    """torch.rnn_relu: the kernel of nn.RNN (relu); returns ``(output, h_n)``."""
    return _rnn("RNN_RELU", input, *args)


KERNELS.update(LSTM=lstm, GRU=gru, RNN_TANH=rnn_tanh, RNN_RELU=rnn_relu)


def _cell(mode, input, hx, w_ih, w_hh, b_ih, b_hh):
    h, c = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
    return run_cell(mode, input, h, c, w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: one LSTM step, ``hx = (h, c)``; returns ``(h', c')``."""
    return _cell("LSTM", input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.gru_cell: one GRU step."""
    return _cell("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_tanh_cell: one Elman step with tanh."""
    return _cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_relu_cell: one Elman step with relu."""
    return _cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)


# --- convolution, pooling, embedding ------------------------------------------------------------------
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch.convolution: the kernel behind every conv module (``transposed`` picks conv_transpose).

    >>> import torchlike as torch
    >>> torch.convolution(torch.ones(1, 1, 4), torch.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1).tolist()
    [[[2.0, 2.0, 2.0]]]
    """
    n = weight.ndim - 2
    if transposed:
        return getattr(F, f"conv_transpose{n}d")(input, weight, bias, tuple(stride), tuple(padding),
                                                 tuple(output_padding), groups, tuple(dilation))
    return getattr(F, f"conv{n}d")(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, benchmark,
                 deterministic, cudnn_enabled, allow_tf32=True):
    """torch._convolution: ``convolution`` with the backend flags torch's dispatcher passes on (both overloads;
    the flags choose no kernel here).

    >>> import torchlike as torch
    >>> torch._convolution(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1,
    ...                    False, False, True, True).tolist()
    [[[2.0, 2.0]]]
    """
    return convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


def _convolution_mode(input, weight, bias, stride, padding, dilation, groups):
    """torch._convolution_mode: a convolution whose ``padding`` is ``"same"`` or ``"valid"``.

    >>> import torchlike as torch
    >>> torch._convolution_mode(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [1], "same", [1], 1).tolist()
    [[[2.0, 2.0, 1.0]]]
    """
    n = weight.ndim - 2
    return getattr(F, f"conv{n}d")(input, weight, bias, tuple(stride), padding, tuple(dilation), groups)


@parses("Tensor input, Tensor weight, Tensor bias, int pad=0")
def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: 1-d convolution of a (time, batch, channels) input with a (kernel, in, out) weight."""
    y = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return y.permute(2, 0, 1)


def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator: the kernel of ``F.affine_grid``."""
    return F.affine_grid(theta, list(size), align_corners=align_corners)


@parses("Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, "
         "bool ceil_mode=False")
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d_with_indices: ``F.max_pool1d(..., return_indices=True)``."""
    return F.max_pool1d(input, kernel_size, stride if stride not in ((), []) else None, padding, dilation,
                        ceil_mode=ceil_mode, return_indices=True)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescale, in place, the rows of ``input`` named in ``indices`` whose
    ``norm_type``-norm exceeds ``max_norm`` (what ``F.embedding(max_norm=...)`` does first)."""
    idx = Tensor._wrap(np.unique(np.asarray(indices._value).reshape(-1)), indices.device)
    new = dispatch(_renorm_rows, (input, idx, float(max_norm)), (("norm_type", float(norm_type)),), diff=False)
    input._inplace_update(new)
    return input


_NO_KERNEL = ("This could be because the operator doesn't exist for this backend, or was omitted during the "
              "selective/custom build process (if using custom build).")


# --- the legacy norms ----------------------------------------------------------------------------------
@parses("Tensor input, int[1] dim, bool keepdim=False, *, Tensor? out=None")
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """torch.frobenius_norm: the 2-norm over ``dim``."""
    if dim is None:  # (torch's parser error, from the wrapper)
        raise TypeError("frobenius_norm(): dim is None")
    r = linalg.vector_norm(input, 2, dim, keepdim)
    return r if out is None else out.copy_(r)


@parses("Tensor input, bool keepdim=False, *, Tensor? out=None",
        "Tensor input, int[2] dim, bool keepdim=False, *, Tensor? out=None")
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """torch.nuclear_norm: the sum of singular values of the matrices over ``dim`` (default: the last two)."""
    if isinstance(dim, bool):  # the overload nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    r = linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    return r if out is None else out.copy_(r)


@parses("Tensor input, Scalar p=2", "Tensor input, Scalar? p, int[1] dim, bool keepdim, ScalarType? dtype")
def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """torch.native_norm: torch registers it for sparse tensors only (dense inputs raise as there)."""
    if not getattr(input, "is_sparse", False):
        raise NotImplementedError("Could not run 'aten::native_norm' with arguments from the 'CPU' backend. "
                                  + _NO_KERNEL)
    if dim is not None and sorted(d % input.ndim for d in dim) != list(range(input.ndim)):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    r = linalg.vector_norm(input.coalesce().values(), 2 if p is None else p, dtype=dtype)
    return r.reshape((1,) * input.ndim) if keepdim else r


@parses("Tensor v, int pow=2, int dim=0")
def norm_except_dim(v, pow=2, dim=0):  # noqa: A002 - torch's name
    """torch.norm_except_dim (weight_norm's norm): the ``pow``-norm over every dim but ``dim`` (-1: all)."""
    operator.index(pow)  # (an int: torch's parser rejects 1.5; the wrapper raises its error)
    if dim == -1:
        return linalg.vector_norm(v, pow)
    d = dim % v.ndim
    return linalg.vector_norm(v, pow, tuple(i for i in range(v.ndim) if i != d), keepdim=True)


# --- the SyncBatchNorm kernels (torch registers them for CUDA; here they run anywhere) ------------------
def _bn_dims(input):
    return (0,) + tuple(range(2, input.ndim))


def _stat_dtype(input):
    return _dtype.float32 if input.dtype in (_dtype.float16, _dtype.bfloat16) else input.dtype


def batch_norm_stats(input, eps):
    """Per-channel ``(mean, invstd)`` of ``input`` (biased variance), as SyncBatchNorm gathers them."""
    x = input.to(_stat_dtype(input))
    dims = _bn_dims(input)
    mean = x.mean(dims)
    var = x.var(dims, unbiased=False)
    return mean, (var + eps).rsqrt()


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """``(input - mean) * invstd * weight + bias`` per channel."""
    shape = (1, -1) + (1,) * (input.ndim - 2)
    y = (input - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y.to(input.dtype)


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """Combine per-replica ``(mean, invstd)`` rows weighted by ``counts`` into the global ``(mean, invstd)``,
    updating the running statistics in place (unbiased variance) as torch's kernel does."""
    counts = counts.to(mean.dtype).reshape(-1, 1)
    n = counts.sum()
    g_mean = (mean * counts).sum(0) / n
    var = (1.0 / invstd ** 2 - eps + (mean - g_mean) ** 2) * counts
    g_var = var.sum(0) / n
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(g_mean.to(running_mean.dtype), alpha=momentum)
        if running_var is not None:
            unbiased = g_var * n / (n - 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
    return g_mean, (g_var + eps).rsqrt()


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """``batch_norm_gather_stats_with_counts`` with the same ``count`` on every replica."""
    counts = _creation.full((mean.shape[0],), float(count), dtype=mean.dtype)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps,
                                               counts)


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """Per-channel ``(mean, unbiased var)`` of ``input``, folded into the running statistics in place."""
    if running_mean is not None and running_mean.dtype != input.dtype:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    dims = _bn_dims(input)
    mean, var = input.mean(dims), input.var(dims, unbiased=False)
    n = input.numel() // input.shape[1]
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (n / max(n - 1, 1)), alpha=momentum)
    return mean, var


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """Per-channel ``(sum_dy, sum_dy_xmu, grad_weight, grad_bias)`` (None where not asked for)."""
    dims = _bn_dims(input)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - mean.reshape(shape))).sum(dims)
    return (sum_dy if input_g else None, sum_dy_xmu if input_g else None,
            sum_dy_xmu * invstd if weight_g else None, sum_dy if bias_g else None)


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    """The input gradient of batch norm from globally reduced ``sum_dy``/``sum_dy_xmu`` (``count``: the
    per-replica element counts)."""
    shape = (1, -1) + (1,) * (input.ndim - 2)
    n = count.sum().to(mean.dtype)
    mean_dy, mean_dy_xmu = sum_dy / n, sum_dy_xmu / n
    scale = invstd if weight is None else invstd * weight
    g = (grad_out - mean_dy.reshape(shape)
         - (input - mean.reshape(shape)) * (invstd ** 2 * mean_dy_xmu).reshape(shape)) * scale.reshape(shape)
    return g.to(input.dtype)


# --- sampling --------------------------------------------------------------------------------------------
@parses("Tensor count, Tensor prob, Generator? generator=None")
def binomial(count, prob, generator=None):
    """torch.binomial: Binomial(count, prob) samples in ``count``'s (floating) dtype.

    >>> import torchlike as torch
    >>> torch.binomial(torch.tensor([4.0]), torch.tensor([1.0])).tolist()
    [4.0]
    """
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dtype._CAP[count.dtype.name]}")
    shape = broadcast_shape(tuple(count.shape), tuple(prob.shape))
    x = draw("binomial", shape, count.dtype.np, generator,
             args=(count.expand(shape)._value, prob.expand(shape)._value))
    return Tensor._wrap(x, count.device)
