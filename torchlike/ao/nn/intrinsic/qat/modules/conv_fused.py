"""torch.ao.nn.intrinsic.qat's conv fusions: ``ConvReLU2d`` and ``ConvBn2d``/``ConvBnReLU2d``, which fold the batch
norm's running statistics into the fake-quantized weight (torch's approximate path: the conv with the scaled
weight, divided back, plus the bias, through the real batch norm, which keeps training its statistics until
``freeze_bn_stats``)."""
from __future__ import annotations

import math

from ...... import _creation
from ......nn import functional as F, init
from ......nn.modules.batchnorm import BatchNorm2d
from ......nn.modules.conv import _ConvNd
from ......nn.parameter import Parameter
from ......nn.utils.fusion import fuse_conv_bn_weights
from ....qat.modules import conv as nnqat_conv
from ...modules import fused as nni

__all__ = ["ConvBn2d", "ConvBnReLU2d", "ConvReLU2d", "freeze_bn_stats", "update_bn_stats"]


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class ConvReLU2d(nnqat_conv.Conv2d, nni._FusedModule):
    """``relu(conv2d(x, weight_fake_quant(weight), bias))``."""

    _FLOAT_MODULE = nni.ConvReLU2d

    def forward(self, input):
        return F.relu(self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias))


class _ConvBnNd(_ConvNd, nni._FusedModule):
    _version = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, eps=1e-05, momentum=0.1, freeze_bn=False, qconfig=None):
        _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, False, padding_mode)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.freeze_bn = freeze_bn if self.training else True
        self.bn = BatchNorm2d(out_channels, eps, momentum, True, True)
        self.weight_fake_quant = self.qconfig.weight()
        if bias:
            self.bias = Parameter(_creation.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_bn_parameters()
        if self.training and not freeze_bn:
            self.update_bn_stats()
        else:
            self.freeze_bn_stats()
        self._enable_slow_path_for_better_numerical_stability = False

    def reset_running_stats(self):
        self.bn.reset_running_stats()

    def reset_bn_parameters(self):
        self.bn.reset_running_stats()
        init.uniform_(self.bn.weight)
        init.zeros_(self.bn.bias)
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.weight.shape[2:])
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def update_bn_stats(self):
        self.freeze_bn = False
        self.bn.training = True
        return self

    def freeze_bn_stats(self):
        self.freeze_bn = True
        self.bn.training = False
        return self

    def _forward(self, input):
        if self._enable_slow_path_for_better_numerical_stability:
            raise NotImplementedError("torchlike's ConvBn QAT modules take torch's default (approximate) path only")
        running_std = (self.bn.running_var + self.bn.eps).sqrt()
        scale_factor = self.bn.weight / running_std
        weight_shape = [1] * len(self.weight.shape)
        weight_shape[0] = -1
        bias_shape = [1] * len(self.weight.shape)
        bias_shape[1] = -1
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(weight_shape))
        if self.bias is not None:
            zero_bias = _creation.zeros_like(self.bias, dtype=input.dtype)
        else:
            zero_bias = _creation.zeros(self.out_channels, dtype=input.dtype)
        conv = self._conv_forward(input, scaled_weight, zero_bias)
        conv_orig = conv / scale_factor.reshape(bias_shape)
        if self.bias is not None:
            conv_orig = conv_orig + self.bias.reshape(bias_shape)
        return self.bn(conv_orig)

    def extra_repr(self):
        return super().extra_repr()

    def forward(self, input):
        return self._forward(input)

    def train(self, mode=True):
        self.training = mode
        if not self.freeze_bn:
            for module in self.children():
                module.train(mode)
        return self

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT module of a fused float Conv+BN(+ReLU) ``mod`` (sharing its parameters and statistics)."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError("qat." + cls.__name__ + ".from_float only works for " + cls._FLOAT_MODULE.__name__)
        if not getattr(mod, "qconfig", None):
            raise AssertionError("Input float module must have a valid qconfig")
        conv, bn = mod[0], mod[1]
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, conv.dilation,
                  conv.groups, conv.bias is not None, conv.padding_mode, bn.eps, bn.momentum, False, mod.qconfig)
        qat.weight = conv.weight
        qat.bias = conv.bias
        qat.bn.weight = bn.weight
        qat.bn.bias = bn.bias
        qat.bn.running_mean = bn.running_mean
        qat.bn.running_var = bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def _folded(self):
        """(weight, bias) with the batch norm folded in (what ``convert`` quantizes)."""
        return fuse_conv_bn_weights(self.weight, self.bias, self.bn.running_mean, self.bn.running_var, self.bn.eps,
                                    self.bn.weight, self.bn.bias)


class ConvBn2d(_ConvBnNd, _ConvNd):
    """``torch.ao.nn.intrinsic.qat.ConvBn2d``: Conv2d + BatchNorm2d for quantization-aware training."""

    _FLOAT_MODULE = nni.ConvBn2d
    _FLOAT_CONV_MODULE = nnqat_conv._FloatConv2d
    _FLOAT_BN_MODULE = BatchNorm2d
    _FLOAT_RELU_MODULE = None
    _n = 2
    _fn = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=None,
                 padding_mode="zeros", eps=1e-05, momentum=0.1, freeze_bn=False, qconfig=None):
        _ConvBnNd.__init__(self, in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding),
                           _pair(dilation), False, _pair(0), groups, bias, padding_mode, eps, momentum, freeze_bn,
                           qconfig)

    _conv_forward = nnqat_conv._FloatConv2d._conv_forward


class ConvBnReLU2d(ConvBn2d):
    """``torch.ao.nn.intrinsic.qat.ConvBnReLU2d``: ConvBn2d then ReLU."""

    _FLOAT_MODULE = nni.ConvBnReLU2d

    def forward(self, input):
        return F.relu(self._forward(input))


def update_bn_stats(mod):
    """Let a ConvBn QAT module's batch norm train its running statistics again (``model.apply``)."""
    if isinstance(mod, _ConvBnNd):
        mod.update_bn_stats()


def freeze_bn_stats(mod):
    """Freeze a ConvBn QAT module's batch-norm statistics (``model.apply``)."""
    if isinstance(mod, _ConvBnNd):
        mod.freeze_bn_stats()
