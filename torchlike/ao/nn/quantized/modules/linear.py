"""torch.ao.nn.quantized's Linear and its packed parameters: a qint8 weight (and float bias) kept as torch
keeps them, with torch's ``state_dict`` layout (``scale``, ``zero_point``, ``_packed_params.dtype``,
``_packed_params._packed_params`` = ``(weight, bias)``) and repr.  Its forward takes a quint8 tensor and gives one
quantized with ``scale``/``zero_point``, bit-equal to torch's fbgemm kernel; the dynamic subclass
(``torch.ao.nn.quantized.dynamic.Linear``) quantizes float inputs per call."""
from __future__ import annotations

import numpy as np

from ..... import _dtype
from ....._creation import zeros
from ....._quantized import _make, per_tensor_affine
from .....nn.modules.linear import Linear as _FloatLinear, NonDynamicallyQuantizableLinear
from .....nn.modules.module import Module
from ...intrinsic.modules import fused as nni
from .. import functional as qF
from .utils import _quantize_weight, load_qparams, save_qparams

__all__ = ["LinearPackedParams", "Linear"]


def _empty_qint8(shape):
    """torch._empty_affine_quantized(shape, scale=1, zero_point=0, dtype=qint8), its integers zero."""
    return _make(np.zeros(shape, np.int8), (_dtype.qint8, per_tensor_affine, 1.0, 0, None), zeros(1)._dev)


class LinearPackedParams(Module):
    """The (weight, bias) pair a quantized Linear multiplies with; torch packs it for fbgemm (a ScriptObject
    as ``_packed_params``), torchlike keeps the pair itself there."""

    _version = 3

    def __init__(self, dtype=_dtype.qint8):
        super().__init__()
        self.dtype = dtype
        if dtype is _dtype.qint8:
            wq = _empty_qint8((1, 1))
        elif dtype is _dtype.float16:
            wq = zeros(1, 1)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        self.set_weight_bias(wq, None)

    def set_weight_bias(self, weight, bias) -> None:
        if self.dtype is _dtype.float16:  # (torch's fp16 prepack stores the weight rounded to half)
            weight = weight.to(_dtype.float16).to(_dtype.float32)
        self._packed_params = (weight, bias)

    def _weight_bias(self):
        return self._packed_params

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        self.dtype = _dtype.qint8 if version is None or version < 2 else state_dict.pop(prefix + "dtype")
        if version is None or version < 3:
            self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias"))
        else:
            self.set_weight_bias(*state_dict.pop(prefix + "_packed_params"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def __repr__(self):
        return self._weight_bias().__repr__()


def _hide_packed_params_repr(self):
    """torch's repr of a quantized module: nn.Module's, leaving out the packed parameters child."""
    extra = self.extra_repr()
    extra_lines = extra.split("\n") if extra else []
    child_lines = ["(" + k + "): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items()
                   if not isinstance(m, LinearPackedParams)]
    lines = extra_lines + child_lines
    main = self._get_name() + "("
    if lines:
        main += extra_lines[0] if len(extra_lines) == 1 and not child_lines else "\n  " + "\n  ".join(lines) + "\n"
    return main + ")"


class Linear(Module):
    """``torch.ao.nn.quantized.Linear``: a linear layer with a quantized weight (float bias)."""

    _version = 3

    def __init__(self, in_features, out_features, bias_=True, dtype=_dtype.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bias = zeros(out_features) if bias_ else None
        if dtype is _dtype.qint8:
            qweight = _empty_qint8((out_features, in_features))
        elif dtype is _dtype.float16:
            qweight = zeros(out_features, in_features)
        else:
            raise RuntimeError("Unsupported dtype specified for quantized Linear!")
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(qweight, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self):
        return "QuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, scale={self.scale}, "
                f"zero_point={self.zero_point}, qscheme={self.weight().qscheme()}")

    def __repr__(self):
        return _hide_packed_params_repr(self)

    _FLOAT_MODULE = (_FloatLinear, NonDynamicallyQuantizableLinear)
    _RELU = False

    def forward(self, x):
        w, b = self._packed_params._packed_params
        if self._packed_params.dtype is not _dtype.qint8:
            raise NotImplementedError("torchlike's statically quantized Linear takes qint8 weights only")
        return qF.linear(x, w, b, self.scale, self.zero_point, relu=self._RELU)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized version of the observed float (or fused LinearReLU) Linear ``mod``: its weight quantized
        by its qconfig's weight observer, its output qparams from its ``activation_post_process``."""
        if hasattr(mod, "weight_fake_quant"):  # a QAT Linear (or LinearReLU)
            weight_post_process = mod.weight_fake_quant
            activation_post_process = mod.activation_post_process
        else:
            floats = cls._FLOAT_MODULE if isinstance(cls._FLOAT_MODULE, tuple) else (cls._FLOAT_MODULE,)
            if type(mod) not in floats:
                raise AssertionError(f"nnq.{cls.__name__}.from_float only works for "
                                     f"{', '.join(f.__name__ for f in floats)}, but got: {type(mod)}")
            if not hasattr(mod, "qconfig"):
                raise AssertionError("Input float module must have qconfig defined")
            activation_post_process = mod.activation_post_process
            if type(mod) is nni.LinearReLU:
                mod = mod[0]
            weight_post_process = mod.qconfig.weight()
        if not use_precomputed_fake_quant:
            weight_post_process(mod.weight)
        dtype = weight_post_process.dtype
        act_scale, act_zp = activation_post_process.calculate_qparams()
        if dtype is not _dtype.qint8:
            raise AssertionError("Weight observer must have dtype torch.qint8")
        qweight = _quantize_weight(mod.weight.detach().float(), weight_post_process)
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, None if mod.bias is None else mod.bias.detach())
        qlinear.scale = float(act_scale)
        qlinear.zero_point = int(act_zp)
        return qlinear

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        save_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        load_qparams(self, state_dict, prefix)
        version = local_metadata.get("version", None)
        if version is None or version == 1:
            state_dict[prefix + "_packed_params.weight"] = state_dict.pop(prefix + "weight")
            state_dict[prefix + "_packed_params.bias"] = state_dict.pop(prefix + "bias")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def _weight_bias(self):
        return self._packed_params._weight_bias()

    def weight(self):
        return self._weight_bias()[0]

    def bias(self):
        return self._weight_bias()[1]

    def set_weight_bias(self, w, b) -> None:
        self._packed_params.set_weight_bias(w, b)
