"""Convolutions (torch.nn.functional.conv*d / conv_transpose*d) on ``lax.conv_general_dilated``.

Layout is torch's NC(D)(H)W with OI(D)(H)W weights; one jitted function per configuration, gradients
from ``jax.vjp`` of that function.
"""
from __future__ import annotations

import itertools
import operator

import jax
import jax.numpy as jnp
from jax import lax

from ..._dispatch import dispatch
from ..._errors import argument_error, caller_op, torch_warn, tp_name
from ..._ops.indexing import c_type_name
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ... import _autocast as _amp
from ... import _memory_format as _mfmt
from ..._cpu_features import onednn_half as _onednn_half
from ..._global_settings import get_num_threads

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           ]

_HI = lax.Precision.HIGHEST
_SPATIAL = {1: "H", 2: "HW", 3: "DHW"}
_CAP = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
        "complex64": "ComplexFloat", "complex128": "ComplexDouble", "int64": "Long", "int32": "Int"}


def _is_index(a):
    try:
        operator.index(a)
    except TypeError:
        return False
    return True


def ntuple(v, n, name="kernel_size"):
    """``3`` -> ``(3, 3)``; a sequence of length 1 is broadcast too; checked to be length ``n``."""
    if isinstance(v, Tensor):
        v = v.tolist()
    try:  # (operator.index: torch's parser takes integers only, where int() would truncate 1.5)
        if not isinstance(v, (list, tuple)):
            return (operator.index(v),) * n
        t = tuple(map(operator.index, v))
    except TypeError:  # a float, a str, None: torch's parser rejects the argument's type
        bad = next((k for k, a in enumerate(v) if not _is_index(a)), None) if isinstance(v, (list, tuple)) else None
        if bad is None:
            raise argument_error(v, "tuple of ints", name) from None
        raise TypeError(f"{caller_op()}(): argument '{name}' must be tuple of ints, but found element of type "
                        f"{tp_name(v[bad])} at pos {bad}") from None
    if len(t) == 1 and n > 1:
        t = t * n
    if len(t) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to "
                           f"match the convolution dimensions, but got {name}={list(t)}")
    return t


def check_same_dtype(input, *others):
    for o in others:
        if o is not None and o.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {_CAP.get(input.dtype.name, input.dtype.name)} but found "
                               f"{_CAP.get(o.dtype.name, o.dtype.name)}")


def _dn(n):
    s = _SPATIAL[n]
    return ("NC" + s, "OI" + s, "NC" + s)


def _acc(x):
    """The accumulation dtype of a convolution of ``x``: half types sum in float32 and take the bias there,
    rounding once (torch's oneDNN and gemm kernels); None (the input's) otherwise."""
    return jnp.float32 if x.dtype in (jnp.bfloat16, jnp.float16) else None


def _conv_impl(x, w, b, stride, padding, dilation, groups, unbatched):
    n = w.ndim - 2
    if unbatched:
        x = x[None]
    y = lax.conv_general_dilated(x, w, stride, padding, rhs_dilation=dilation, feature_group_count=groups,
                                 dimension_numbers=_dn(n), precision=_HI, preferred_element_type=_acc(x))
    if b is not None:
        y = y + b.astype(y.dtype).reshape((1, -1) + (1,) * n)
    y = y.astype(x.dtype)
    return y[0] if unbatched else y


def _prep(input, weight, n, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(input).__name__}, ...)")
    if input.ndim not in (n + 1, n + 2):
        if not isinstance(weight, Tensor):  # (torch's parser rejects it first)
            raise argument_error(weight, "Tensor", "weight", name, 2)
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input.shape)}")
    return input.ndim == n + 1


def _conv_checks(input, shape, weight, bias, stride, padding, dilation, groups, output_padding=None):
    # torch's convolution argument checks (at::_convolution, check_shape_forward), in its order, before the
    # channel-count check: the parameters are expanded to the weight's spatial rank first (a conv2d given a
    # 3-D or 5-D weight fails there, on its stride); ``shape``: the input's, batched; a padding string is
    # torch's _convolution_mode, which compares the ranks first (its message lacks a space)
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({c_type_name(input.dtype)}) and bias type "
                           f"({c_type_name(bias.dtype)}) should be the same")
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if isinstance(padding, str) and weight.ndim != len(shape):
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight"
                           f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
                           f"{list(input.shape)} instead")
    dim = weight.ndim - 2
    for name, v in (("stride", stride), ("padding", padding), ("dilation", dilation),
                    ("output_padding", output_padding)):
        if v is not None and not isinstance(v, str) and len(v) not in (1, dim):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {dim} values to "
                               f"match the convolution dimensions, but got {name}={list(v)}")
    if not isinstance(padding, str) and any(v < 0 for v in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(v < 0 for v in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(v <= 0 for v in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in dilation):  # (a zero dilation passes here: the kernel's own check below)
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != len(shape):
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {len(shape)}-dimensional input of size "
                           f"{list(shape)} instead")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {list(weight.shape)} instead")
    if weight.shape[0] % groups:  # (torch prints the sizes inside its own brackets: [[3, 2, 3, 3]])
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{list(weight.shape)}] instead")


def _check_bias(bias, weight, n_out, transposed=False):
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != n_out):
        raise RuntimeError(f"Given {'transposed=1, ' if transposed else ''}weight of size {list(weight.shape)}, "
                           f"expected bias to be 1-dimensional with {n_out} elements, but got bias of size "
                           f"{list(bias.shape)} instead")


_DIL_NAMES = {1: ("height", "width"), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _hw(vals, fill=1):
    """A 1-d parameter as torch's CPU kernels see it (conv1d runs as conv2d: a leading height of ``fill``)."""
    return ((fill,) + tuple(vals)) if len(vals) == 1 else tuple(vals)


def _check_kernel_nonzero(k, transposed=False):
    """torch's CPU kernels' check of an empty kernel (weight of size 0 in a spatial dim)."""
    if all(v > 0 for v in k):
        return
    if len(k) == 3 and not transposed:
        raise RuntimeError(f"kernel size should be greater than zero, but got: {' x '.join(map(str, k))} (TxHxW)")
    got = " ".join(f"kernel_{n}: {v}" for n, v in zip(_DIL_NAMES[len(k)], _hw(k)))
    raise RuntimeError(f"kernel size should be greater than zero, but got {got}")


def _check_dilation_zero(dilation, transposed=False):
    """torch's CPU kernels' own check, after the shape checks: a zero dilation (conv1d runs as conv2d: [1, d])."""
    if all(d > 0 for d in dilation):
        return
    d = (1,) + tuple(dilation) if len(dilation) == 1 else tuple(dilation)
    if transposed:
        got = ", ".join(f"dilation_{k}: {v}" for k, v in zip(_DIL_NAMES[len(dilation)], d))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")


def _conv(input, weight, bias, stride, padding, dilation, groups, n, name):
    unbatched = _prep(input, weight, n, name)
    stride, dilation = ntuple(stride, n, "stride"), ntuple(dilation, n, "dilation")
    pad_t = padding if isinstance(padding, str) else ntuple(padding, n, "padding")
    groups = int(groups)
    shape = (1,) + tuple(input.shape) if unbatched else tuple(input.shape)
    _conv_checks(input, shape, weight, bias, stride, pad_t, dilation, groups)
    check_same_dtype(input, weight, bias)
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            tot = [d * (kk - 1) for d, kk in zip(dilation, k)]
            pads = tuple((t // 2, t - t // 2) for t in tot)
            if any(t % 2 for t in tot):   # torch pads a copy of the input for the uneven side
                torch_warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                           "zero-padded copy of the input be created", "aten/src/ATen/native/Convolution.cpp:1101",
                           once=True)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in ntuple(padding, n, "padding"))
    if shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(shape)} to have {weight.shape[1] * groups} channels, but got {shape[1]} "
                           f"channels instead")
    _check_bias(bias, weight, weight.shape[0])
    padded = [s + a + b for s, (a, b) in zip(shape[2:], pads)]
    eff = [d * (kk - 1) + 1 for d, kk in zip(dilation, k)]
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than actual "
                           f"input size")
    _check_kernel_nonzero(k)
    _check_dilation_zero(dilation)
    return dispatch(_conv_impl, (input, weight, bias),
                    (("stride", stride), ("padding", pads), ("dilation", dilation), ("groups", int(groups)),
                     ("unbatched", unbatched)), name="ConvolutionBackward0", saves=True)


@_functional(torch=True)
@_amp.lower
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) input.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv1d(torchlike.ones(1, 2, 5), torchlike.ones(3, 2, 3)).shape
    torch.Size([1, 3, 3])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@_functional(torch=True)
@_amp.lower
@_mfmt.channels_last_follows((0, "input"), (1, "weight"))
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) input.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv2d(torchlike.ones(1, 2, 5, 5), torchlike.ones(3, 2, 3, 3), padding='same').shape
    torch.Size([1, 3, 5, 5])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _slow_conv3d(transposed):
    """Whether torch's CPU conv3d (conv_transpose3d) takes its fallback kernel, which writes a row-major result
    where oneDNN keeps ``channels_last_3d``: ``ConvParams::use_mkldnn``'s test of the arguments (``unless`` of
    ``_memory_format.channels_last_follows``)."""
    names = ("input", "weight", "bias", "stride", "padding") + (
        ("output_padding", "groups", "dilation") if transposed else ("dilation", "groups"))

    def slow(args, kwargs):
        a = {"stride": 1, "output_padding": 0, "groups": 1, "dilation": 1, **dict(zip(names, args)), **kwargs}
        x, w = a["input"], a["weight"]
        if x.ndim != 5 or x.dtype.name in ("bfloat16", "float16"):
            return x.ndim != 5 or not _onednn_half(x.dtype.name)
        if x.dtype.name != "float32":
            return True
        stride, dil, opad = ((v,) * 3 if isinstance(v, int) else tuple(v)
                             for v in (a["stride"], a["dilation"], a["output_padding"]))
        if transposed and any(o >= s for o, s in zip(opad, stride)):
            return True
        n, kh, kw = x.shape[0], w.shape[-2], w.shape[-1]
        return not ((any(s != 1 for s in stride) or any(d != 1 for d in dil) or n >= 16 or kw != 1 or kh != 1
                     or get_num_threads() > 1) and
                    (a["groups"] > 1 or kw > 3 and kh > 3 or n > 1 or n * x.shape[1] * x.shape[2] * x.shape[3] > 20480))
    return slow


@_functional(torch=True)
@_amp.lower
@_mfmt.channels_last_follows((0, "input"), (1, "weight"), unless=_slow_conv3d(False))
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) input.

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv3d(torchlike.ones(1, 2, 4, 4, 4), torchlike.ones(3, 2, 3, 3, 3)).shape
    torch.Size([1, 3, 2, 2, 2])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _convT_impl(x, w, b, stride, pads, dilation, groups, unbatched):
    # conv_transpose = a convolution of the stride-dilated input with the flipped, in/out-swapped kernel
    n = w.ndim - 2
    if unbatched:
        x = x[None]
    cin, cout_g = w.shape[0], w.shape[1]
    k = w.shape[2:]
    wg = w.reshape((groups, cin // groups, cout_g) + k)
    wg = jnp.swapaxes(wg, 1, 2).reshape((groups * cout_g, cin // groups) + k)
    wg = jnp.flip(wg, axis=tuple(range(2, 2 + n)))
    y = lax.conv_general_dilated(x, wg, (1,) * n, pads, lhs_dilation=stride, rhs_dilation=dilation,
                                 feature_group_count=groups, dimension_numbers=_dn(n), precision=_HI,
                                 preferred_element_type=_acc(x))
    if b is not None:
        y = y + b.astype(y.dtype).reshape((1, -1) + (1,) * n)
    y = y.astype(x.dtype)
    return y[0] if unbatched else y


# (exponent, mantissa) bits of the half types whose CPU conv_transpose torch computes tap by tap (below)
_HALF_BITS = {jnp.dtype(jnp.bfloat16): (8, 7), jnp.dtype(jnp.float16): (5, 10)}


def _convT_taps(x, w, b, stride, padding, output_padding, dilation, groups):
    """torch's CPU kernel for half-precision conv_transpose (slow_conv_transpose*d: gemm into columns, then
    col2im): each kernel tap's product, summed over input channels in float32, is rounded to the half type,
    then the taps are added into the output one at a time in tap order (kd, kh, kw), each sum rounded, and
    the bias added last. A one-rounding XLA convolution differs from it by up to a few bf16 ulps. (Where
    torch hands the dtype to oneDNN, ``_onednn_half``, it rounds once: the plain path.)"""
    n = w.ndim - 2
    e, m = _HALF_BITS[x.dtype]

    def rnd(a):
        return lax.reduce_precision(a, exponent_bits=e, mantissa_bits=m)
    nb, cin, L = x.shape[0], x.shape[1], x.shape[2:]
    cout_g, K = w.shape[1], w.shape[2:]
    ks, ls = "uvw"[:n], "xyz"[:n]
    cols = rnd(jnp.einsum(f"ngc{ls},gco{ks}->ngo{ks}{ls}", x.reshape((nb, groups, cin // groups) + L),
                          w.reshape((groups, cin // groups, cout_g) + K), precision=_HI,
                          preferred_element_type=jnp.float32))
    full = tuple((l - 1) * s + d * (k - 1) + 1 + op for l, s, d, k, op in zip(L, stride, dilation, K, output_padding))
    acc = jnp.zeros((nb, groups, cout_g) + full, jnp.float32)
    for tap in itertools.product(*[range(k) for k in K]):
        at = tuple(slice(t * d, t * d + (l - 1) * s + 1, s) for t, d, l, s in zip(tap, dilation, L, stride))
        acc = rnd(acc.at[(Ellipsis,) + at].add(cols[(slice(None),) * 3 + tap]))
    out = tuple(f - 2 * p for f, p in zip(full, padding))
    y = acc[(Ellipsis,) + tuple(slice(p, p + o) for p, o in zip(padding, out))].reshape((nb, groups * cout_g) + out)
    if b is not None:
        y = rnd(y + b.astype(jnp.float32).reshape((1, -1) + (1,) * n))
    return y.astype(x.dtype)


def _convT_half_impl(x, w, b, stride, padding, output_padding, dilation, groups, unbatched):
    """Half-precision CPU conv_transpose: values from ``_convT_taps`` (torch's rounding), gradients from
    the one-rounding convolution (torch's backward kernels are other kernels again)."""
    pads = tuple((d * (kk - 1) - p, d * (kk - 1) - p + op)
                 for kk, p, op, d in zip(w.shape[2:], padding, output_padding, dilation))

    @jax.custom_vjp
    def f(x, w, b):
        return _convT_taps(x, w, b, stride, padding, output_padding, dilation, groups)

    def fwd(x, w, b):
        return f(x, w, b), (x, w, b)

    def bwd(res, g):
        return jax.vjp(lambda *a: _convT_impl(*a, stride, pads, dilation, groups, False), *res)[1](g)
    f.defvjp(fwd, bwd)
    y = f(x[None] if unbatched else x, w, b)
    return y[0] if unbatched else y


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n, name,
                    output_size=None):
    unbatched = _prep(input, weight, n, name)
    check_same_dtype(input, weight, bias)
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    stride, dilation = ntuple(stride, n, "stride"), ntuple(dilation, n, "dilation")
    padding, output_padding = ntuple(padding, n, "padding"), ntuple(output_padding, n, "output_padding")
    groups = int(groups)
    shape = (1,) + tuple(input.shape) if unbatched else tuple(input.shape)
    _conv_checks(input, shape, weight, bias, stride, padding, dilation, groups, output_padding)
    k = tuple(weight.shape[2:])
    if shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(shape)} to have {weight.shape[0]} channels, but got {shape[1]} channels "
                           f"instead")
    _check_bias(bias, weight, weight.shape[1] * groups, transposed=True)
    if n == 3 and not all(k):
        raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
                           f"kernel_width) tensor expected for weight, but got: {list(weight.shape)}")
    _check_kernel_nonzero(k, transposed=True)
    _check_dilation_zero(dilation, transposed=True)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        names = _DIL_NAMES[n]
        got = " ".join(f"{what}_{nm}: {v}" for what, vals, fill in (("output_padding", output_padding, 0),
                                                                    ("stride", stride, 1), ("dilation", dilation, 1))
                       for nm, v in zip(names, _hw(vals, fill)))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
    out = [(i - 1) * s - 2 * p + d * (kk - 1) + op + 1
           for i, s, p, d, kk, op in zip(shape[2:], stride, padding, dilation, k, output_padding)]
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, _hw(shape[2:])))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, _hw(out)))}). Output size is too small")
    if (input.dtype.name in ("bfloat16", "float16") and input._dev.type == "cpu"
            and not (all(op < s for op, s in zip(output_padding, stride)) and _onednn_half(input.dtype.name))):
        return dispatch(_convT_half_impl, (input, weight, bias),
                        (("stride", stride), ("padding", padding), ("output_padding", output_padding),
                         ("dilation", dilation), ("groups", int(groups)), ("unbatched", unbatched)),
                        name="ConvolutionBackward0", saves=True)
    pads = tuple((d * (kk - 1) - p, d * (kk - 1) - p + op)
                 for kk, p, op, d in zip(k, padding, output_padding, dilation))
    return dispatch(_convT_impl, (input, weight, bias),
                    (("stride", stride), ("pads", pads), ("dilation", dilation), ("groups", int(groups)),
                     ("unbatched", unbatched)), name="ConvolutionBackward0", saves=True)


@_functional(torch=True)
@_amp.lower
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-D transposed convolution; weight is (C_in, C_out/groups, k).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv_transpose1d(torchlike.ones(1, 2, 4), torchlike.ones(2, 3, 3), stride=2).shape
    torch.Size([1, 3, 9])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


@_functional(torch=True)
@_amp.lower
@_mfmt.channels_last_follows((0, "input"), (1, "weight"))
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-D transposed convolution; weight is (C_in, C_out/groups, kH, kW).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv_transpose2d(torchlike.ones(1, 2, 4, 4), torchlike.ones(2, 3, 3, 3), stride=2).shape
    torch.Size([1, 3, 9, 9])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


@_functional(torch=True)
@_amp.lower
@_mfmt.channels_last_follows((0, "input"), (1, "weight"), unless=_slow_conv3d(True))
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """3-D transposed convolution; weight is (C_in, C_out/groups, kD, kH, kW).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> F.conv_transpose3d(torchlike.ones(1, 2, 2, 2, 2), torchlike.ones(2, 3, 3, 3, 3)).shape
    torch.Size([1, 3, 4, 4, 4])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")
