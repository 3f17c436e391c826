"""torch.ao.quantization's qconfigs, as far as dynamic quantization reads them: which dtype a module's weight
(and activation) is quantized to.  The observers themselves are not modelled: ``weight()`` returns a spec whose
``dtype`` says it (torchlike quantizes weights as torch's default MinMaxObserver would)."""
from __future__ import annotations

from collections import namedtuple

from ... import _dtype

__all__ = ["QConfig", "QConfigDynamic", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "per_channel_dynamic_qconfig", "float_qparams_weight_only_qconfig",
           "float_qparams_weight_only_qconfig_4bit"]


class _ObserverSpec:
    """What ``qconfig.weight()`` gives here: the observer's dtype and scheme, nothing it observes."""

    def __init__(self, dtype, qscheme="per_tensor_symmetric", is_dynamic=False):
        self.dtype, self.qscheme, self.is_dynamic = dtype, qscheme, is_dynamic

    def __call__(self):
        return self

    def __repr__(self):
        return f"{type(self).__name__}(dtype={self.dtype}, qscheme=torch.{self.qscheme})"


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """torch.ao.quantization.QConfig: how a module's activation and weight are observed."""

    __slots__ = ()


QConfigDynamic = QConfig
default_dynamic_qconfig = QConfig(activation=_ObserverSpec(_dtype.quint8, "per_tensor_affine", True),
                                  weight=_ObserverSpec(_dtype.qint8))
float16_dynamic_qconfig = QConfig(activation=_ObserverSpec(_dtype.float16, "per_tensor_affine", True),
                                  weight=_ObserverSpec(_dtype.float16))
per_channel_dynamic_qconfig = QConfig(activation=_ObserverSpec(_dtype.quint8, "per_tensor_affine", True),
                                      weight=_ObserverSpec(_dtype.qint8, "per_channel_affine"))
# (embeddings' weight-only qconfigs: quantize_dynamic picks them for quint8/quint4x2; torchlike has no quantized
# Embedding, and a Linear given one fails as in torch)
float_qparams_weight_only_qconfig = QConfig(activation=_ObserverSpec(_dtype.float32, "per_tensor_affine"),
                                            weight=_ObserverSpec(_dtype.quint8, "per_channel_affine_float_qparams"))
float_qparams_weight_only_qconfig_4bit = QConfig(activation=_ObserverSpec(_dtype.float32, "per_tensor_affine"),
                                                 weight=_ObserverSpec(_dtype.quint4x2,
                                                                      "per_channel_affine_float_qparams"))
