"""torch.ao.quantization's qconfigs: which observers ``prepare`` attaches to a module's output and weight.  The
static ones (``default_qconfig``, ``get_default_qconfig("x86")`` ...) hold torch's observer constructors; the
dynamic ones hold only dtypes (``weight()`` returns a spec whose ``dtype`` says it: torchlike quantizes dynamic
weights as torch's default MinMaxObserver would).

>>> import torchlike
>>> torchlike.ao.quantization.get_default_qconfig("x86").weight().qscheme
torch.per_channel_symmetric
"""
from __future__ import annotations

from collections import namedtuple

from ... import _dtype
from ...nn.modules.module import Module
from .fake_quantize import FakeQuantize, FusedMovingAvgObsFakeQuantize, default_fake_quant, \
    default_fused_per_channel_wt_fake_quant, default_fused_wt_fake_quant, default_per_channel_weight_fake_quant, \
    default_weight_fake_quant
from .observer import HistogramObserver, MovingAverageMinMaxObserver, default_observer, \
    default_per_channel_weight_observer, default_weight_observer

__all__ = ["QConfig", "QConfigDynamic", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "per_channel_dynamic_qconfig", "float_qparams_weight_only_qconfig",
           "float_qparams_weight_only_qconfig_4bit", "default_qconfig", "default_per_channel_qconfig",
           "get_default_qconfig", "default_qat_qconfig", "get_default_qat_qconfig"]


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

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError("QConfig received observer instance, please pass observer class instead. Use "
                             "MyObserver.with_args(x=1) to override arguments to constructor if needed")
        return super().__new__(cls, activation, weight)


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

default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_per_channel_qconfig = QConfig(activation=default_observer, weight=default_per_channel_weight_observer)


def get_default_qconfig(backend="x86", version=0):
    """The default post-training qconfig of a quantized backend: for "x86"/"fbgemm", histogram-observed activations
    (reduced range) and per-channel symmetric weights."""
    supported = ["fbgemm", "x86", "qnnpack", "onednn"]
    if backend not in supported:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of {supported}")
    if version != 0:
        raise AssertionError(f"Version number: {version} in get_default_qconfig is not supported. Version number "
                             "must be 0")
    if backend in ("fbgemm", "x86"):
        return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                       weight=default_per_channel_weight_observer)
    if backend == "qnnpack":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False), weight=default_weight_observer)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                   weight=default_per_channel_weight_observer)


default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)


def get_default_qat_qconfig(backend="x86", version=1):
    """The default quantization-aware-training qconfig of a backend: version 1 (the default) with
    ``FusedMovingAvgObsFakeQuantize``, version 0 with ``FakeQuantize`` (for "x86"/"fbgemm": reduced-range
    activations, per-channel symmetric weights)."""
    supported = ["fbgemm", "x86", "qnnpack", "onednn"]
    if backend not in supported:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of {supported}")
    reduce_range = backend in ("fbgemm", "x86")
    if version == 1:
        activation = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0,
                                                             quant_max=255, reduce_range=reduce_range)
        return QConfig(activation=activation, weight=default_fused_wt_fake_quant if backend == "qnnpack" else
                       default_fused_per_channel_wt_fake_quant)
    if version != 0:
        raise AssertionError(f"Version number: {version} in get_default_qat_qconfig is not supported. Version number "
                             "must be 0 or 1")
    activation = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                        reduce_range=reduce_range)
    return QConfig(activation=activation, weight=default_weight_fake_quant if backend == "qnnpack" else
                   default_per_channel_weight_fake_quant)
