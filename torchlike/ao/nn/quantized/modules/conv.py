"""torch.ao.nn.quantized.Conv2d: a 2-D convolution with a qint8 weight (per tensor or per output channel) and a
float bias, on quint8 NCHW inputs, its output quantized with the observed ``scale``/``zero_point``; bit-equal to
torch's x86 backend (see ``torchlike.ao.nn.quantized.functional``).  Conv1d/Conv3d and the transposed convolutions
are not implemented (they raise NotImplementedError naming them).

>>> import torchlike
>>> from torchlike.ao.nn.quantized import Conv2d
>>> Conv2d(3, 8, 3, padding=1)
QuantizedConv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), scale=1.0, zero_point=0, padding=(1, 1))
"""
from __future__ import annotations

from ..... import _dtype, nn
from ....._creation import zeros
from ....._quantized import quantize_per_tensor
from .....nn.modules.module import Module
from ...intrinsic.modules import fused as nni
from .. import functional as qF
from .utils import _quantize_weight, load_qparams, save_qparams

__all__ = ["Conv2d"]


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class Conv2d(Module):
    """``torch.ao.nn.quantized.Conv2d`` (``QuantizedConv2d``)."""

    _FLOAT_MODULE = nn.Conv2d
    _NNI_CONV_RELU_MODULE = nni.ConvReLU2d
    _NNI_CONV_ADD_MODULE = nni.ConvAdd2d
    _NNI_CONV_ADD_RELU_MODULE = nni.ConvAddReLU2d
    _version = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"torchlike's quantized Conv2d supports padding_mode='zeros' only, not "
                                      f"{padding_mode!r} (see docs/differences.md)")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding, self.dilation = _pair(padding), _pair(dilation)
        self.transposed, self.output_padding = False, (0, 0)
        self.groups, self.padding_mode = groups, padding_mode
        qweight = quantize_per_tensor(zeros(out_channels, in_channels // groups, *self.kernel_size), 1.0, 0,
                                      _dtype.qint8)
        self.set_weight_bias(qweight, zeros(out_channels) if bias else None)
        self.scale = 1.0
        self.zero_point = 0

    def set_weight_bias(self, w, b):
        self._packed_params = (w, None if b is None else b.detach())

    def _weight_bias(self):
        return self._packed_params

    def weight(self):
        return self._packed_params[0]

    def bias(self):
        return self._packed_params[1]

    def _get_name(self):
        return "QuantizedConv2d"

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
             f"scale={self.scale}, zero_point={self.zero_point}")
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias() is None:
            s += ", bias=False"
        return s

    def _conv(self, input, relu):
        if len(input.shape) != 4:
            raise ValueError("Input shape must be `(N, C, H, W)`!")
        w, b = self._packed_params
        return qF.conv2d(input, w, b, self.stride, self.padding, self.dilation, self.groups, scale=self.scale,
                         zero_point=self.zero_point, relu=relu)

    def forward(self, input):
        return self._conv(input, relu=False)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        w, b = self._weight_bias()
        destination[prefix + "weight"] = w
        destination[prefix + "bias"] = b
        save_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias"))
        load_qparams(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    @staticmethod
    def get_qconv(cls, mod, activation_post_process, weight_post_process=None, use_precomputed_fake_quant=False):
        """The quantized conv of float ``mod``: its weight quantized by ``weight_post_process`` (observing it
        first), its output qparams from ``activation_post_process``."""
        if weight_post_process is None:
            weight_post_process = mod.qconfig.weight()
        if not use_precomputed_fake_quant or not hasattr(mod, "weight_fake_quant"):
            weight_post_process(mod.weight)
        if weight_post_process.dtype is not _dtype.qint8:
            raise AssertionError("Weight observer must have a dtype of qint8")
        qweight = _quantize_weight(mod.weight.detach().float(), weight_post_process)
        qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding, mod.dilation,
                    mod.groups, mod.bias is not None, mod.padding_mode)
        qconv.set_weight_bias(qweight, mod.bias)
        if activation_post_process is None or activation_post_process.dtype is _dtype.float32:
            return qconv
        act_scale, act_zp = activation_post_process.calculate_qparams()
        qconv.scale = float(act_scale)
        qconv.zero_point = int(act_zp)
        return qconv

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized version of the observed float (or fused ConvReLU2d) module ``mod``."""
        if hasattr(mod, "weight_fake_quant"):  # a QAT conv (ConvBn: the batch norm folded into the weight)
            if type(mod).__name__ == "ConvBn2d" and cls._FLOAT_MODULE is nn.Conv2d:
                mod.weight, mod.bias = mod._folded()
            if not hasattr(mod, "activation_post_process"):
                raise AssertionError("Input QAT module must have observer attached")
            return cls.get_qconv(cls, mod, mod.activation_post_process, mod.weight_fake_quant,
                                 use_precomputed_fake_quant)
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(" nnq." + cls.__name__ + ".from_float only works for " + cls._FLOAT_MODULE.__name__
                                 + " but got:" + str(type(mod)))
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined.")
        activation_post_process = getattr(mod, "activation_post_process", None)
        if type(mod) in (cls._NNI_CONV_RELU_MODULE, cls._NNI_CONV_ADD_MODULE, cls._NNI_CONV_ADD_RELU_MODULE):
            mod = mod[0]
        return cls.get_qconv(cls, mod, activation_post_process, mod.qconfig.weight())

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        raise NotImplementedError("torch.ao.nn.quantized.Conv2d.from_reference is not implemented in torchlike")


