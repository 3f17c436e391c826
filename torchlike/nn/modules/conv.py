"""Convolution modules: Conv1d/2d/3d and ConvTranspose1d/2d/3d with torch's init, repr and state_dict.

>>> import torchlike as torch
>>> torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))
"""
from __future__ import annotations

import math

from ... import _creation
from ..._class_parts import own_copies
from .. import init
from ..functional import _conv as Fc
from .. import functional as F
from ._functional_ref import functional_ref
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

# sets, shown in error messages as torch shows them (built in the same order, so they print alike)
_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode):
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    for name, channels in (("in_channels", in_channels), ("out_channels", out_channels)):
        if channels % groups != 0:
            raise ValueError(f"{name} must be divisible by groups")
    if isinstance(padding, str):
        if padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
        if padding == "same" and any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
    if padding_mode not in _MODES:
        raise ValueError(f"padding_mode must be one of {_MODES}, but got padding_mode='{padding_mode}'")


def _explicit_pad(padding, kernel_size, dilation):
    """``padding`` as ``F.pad`` amounts: (before, after) per spatial dimension, last dimension first.
    Non-zero padding modes pad the input this way and then convolve without padding."""
    if padding == "valid":
        return [0, 0] * len(kernel_size)
    if padding == "same":
        # the receptive field minus one, split with the odd element after (as torch / TF do)
        amounts = []
        for d, k in zip(reversed(dilation), reversed(kernel_size)):
            extent = d * (k - 1)
            amounts += [extent // 2, extent - extent // 2]
        return amounts
    return tuple(p for p in reversed(padding) for _ in range(2))  # a tuple here, a list above, as torch


def _differs(values, default):
    return values != (default,) * len(values)


class _ConvNd(Module):
    """State and parameters shared by convolutions and transposed convolutions.

    The weight is ``(out, in / groups, *kernel)`` (``(in, out / groups, *kernel)`` when transposed),
    initialised like torch so seeded models start from the same distribution.
    """
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                 output_padding, groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        _check_conv_args(in_channels, out_channels, stride, padding, groups, padding_mode)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding = transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = _explicit_pad(padding, kernel_size, dilation)
        channels = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_creation.empty(channels + tuple(kernel_size), device=device, dtype=dtype))
        self.register_parameter(
            "bias", Parameter(_creation.empty(out_channels, device=device, dtype=dtype)) if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias gets the same bound
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is None:
            return
        fan_in = init._calculate_fan_in_and_fan_out(self.weight)[0]
        if fan_in != 0:
            limit = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -limit, limit)

    def extra_repr(self):
        # defaults are left out, like torch's repr
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        shown = [("padding", _differs(self.padding, 0)), ("dilation", _differs(self.dilation, 1)),
                 ("output_padding", _differs(self.output_padding, 0)), ("groups", self.groups != 1)]
        text += "".join(f", {name}={getattr(self, name)}" for name, show in shown if show)
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.setdefault("padding_mode", "zeros")  # pickles from before padding modes existed


def _tup(v, n):
    return Fc.ntuple(v, n) if not isinstance(v, str) else v


class _Conv(_ConvNd):
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._n
        super().__init__(in_channels, out_channels, _tup(kernel_size, n), _tup(stride, n), _tup(padding, n),
                         _tup(dilation, n), False, _tup(0, n), groups, bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = type(self)._fn
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                      self.stride, _tup(0, self._n), self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


@own_copies("forward")
class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L).

    >>> import torchlike as torch
    >>> torch.nn.Conv1d(2, 4, 3)(torch.zeros(1, 2, 8)).shape
    torch.Size([1, 4, 6])
    """
    _n = 1
    _fn = functional_ref("conv1d")


@own_copies("forward")
class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W).

    >>> import torchlike as torch
    >>> torch.nn.Conv2d(2, 4, 3, padding='same')(torch.zeros(1, 2, 8, 8)).shape
    torch.Size([1, 4, 8, 8])
    """
    _n = 2
    _fn = functional_ref("conv2d")


@own_copies("forward")
class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W).

    >>> import torchlike as torch
    >>> torch.nn.Conv3d(2, 4, 3)(torch.zeros(1, 2, 5, 5, 5)).shape
    torch.Size([1, 4, 3, 3, 3])
    """
    _n = 3
    _fn = functional_ref("conv3d")


class _ConvTransposeNd(_ConvNd):
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        n = self._n
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, _tup(kernel_size, n), _tup(stride, n), _tup(padding, n),
                         _tup(dilation, n), True, _tup(output_padding, n), groups, bias, padding_mode, device,
                         dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims,
                        dilation=None):
        if output_size is None:
            return self.output_padding
        # torch's own check, in its order and words (output_size printed as given, the input's spatial Size)
        num_non_spatial_dims = 2 if input.dim() == num_spatial_dims + 2 else 1
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes = [(input.size(d + num_non_spatial_dims) - 1) * stride[d] - 2 * padding[d] +
                     (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                     for d in range(num_spatial_dims)]
        max_sizes = [m + stride[d] - 1 for d, m in enumerate(min_sizes)]
        for size, min_size, max_size in zip(output_size, min_sizes, max_sizes):
            if size < min_size or size > max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[2:]})")
        res = [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]
        return tuple(res)

    def forward(self, input, output_size=None):
        n = self._n
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                  self.dilation)
        return type(self)._fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                              self.dilation)


@own_copies("forward")
class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution.

    >>> import torchlike as torch
    >>> torch.nn.ConvTranspose1d(2, 4, 3, stride=2)(torch.zeros(1, 2, 5)).shape
    torch.Size([1, 4, 11])
    """
    _n = 1
    _fn = functional_ref("conv_transpose1d")


@own_copies("forward")
class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution; ``forward(input, output_size=...)`` picks the output padding.

    >>> import torchlike as torch
    >>> torch.nn.ConvTranspose2d(2, 4, 3, stride=2)(torch.zeros(1, 2, 5, 5), output_size=(12, 12)).shape
    torch.Size([1, 4, 12, 12])
    """
    _n = 2
    _fn = functional_ref("conv_transpose2d")


@own_copies("forward")
class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution."""
    _n = 3
    _fn = functional_ref("conv_transpose3d")


from .lazy_conv import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,  # noqa: E402
                        LazyConvTranspose2d, LazyConvTranspose3d)
from ..._torch_paths import home as _home  # noqa: E402

_home(globals(), LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
