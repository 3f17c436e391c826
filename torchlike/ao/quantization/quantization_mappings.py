"""torch.ao.quantization.quantization_mappings: which quantized module each float (or fused) module becomes in
static quantization, and which modules get a qconfig.  Targets torchlike lacks are stand-ins whose ``from_float``
raises NotImplementedError naming them.

>>> import torchlike
>>> from torchlike.ao.quantization.quantization_mappings import get_default_static_quant_module_mappings
>>> get_default_static_quant_module_mappings()[torchlike.nn.Linear].__name__
'Linear'
"""
from __future__ import annotations

from ... import nn
from ..nn import intrinsic as nni
from ..nn.intrinsic import qat as nniqat, quantized as nniq
from ..nn import qat as nnqat
from ..nn.quantized import modules as nnq
from ..nn.quantized.dynamic.modules.linear import Linear as DynamicLinear
from ..nn.quantized.dynamic.modules.rnn import LSTM as DynamicLSTM
from .stubs import DeQuantStub, QuantStub

__all__ = ["get_default_static_quant_module_mappings", "get_default_dynamic_quant_module_mappings",
           "get_default_qconfig_propagation_list", "no_observer_set", "get_default_qat_module_mappings", "get_quantized_operator",
           "DEFAULT_STATIC_QUANT_MODULE_MAPPINGS", "DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS",
           "DEFAULT_QAT_MODULE_MAPPINGS"]


class _Unsupported:
    """A mapping target torchlike does not have: swapping a module to it raises, naming it."""

    def __init__(self, name, what="static quantization"):
        self.name, self.what = name, what
        self.__name__ = name.rsplit(".", 1)[-1]

    def from_float(self, mod, use_precomputed_fake_quant=False):
        raise NotImplementedError(f"{self.name} ({self.what} of {type(mod).__name__}) is not implemented in "
                                  "torchlike (see docs/differences.md)")


_NNQ = "torch.ao.nn.quantized."
_STATIC_UNSUPPORTED = {
    nn.Conv1d: "Conv1d", nn.Conv3d: "Conv3d",
    nn.ConvTranspose1d: "ConvTranspose1d", nn.ConvTranspose2d: "ConvTranspose2d",
    nn.ConvTranspose3d: "ConvTranspose3d", nn.ELU: "ELU", nn.Embedding: "Embedding", nn.EmbeddingBag: "EmbeddingBag",
    nn.GroupNorm: "GroupNorm", nn.Hardswish: "Hardswish", nn.InstanceNorm1d: "InstanceNorm1d",
    nn.InstanceNorm2d: "InstanceNorm2d", nn.InstanceNorm3d: "InstanceNorm3d", nn.LayerNorm: "LayerNorm",
    nn.LeakyReLU: "LeakyReLU", nn.PReLU: "PReLU",
    nni.ConvReLU1d: "intrinsic.ConvReLU1d",
    nni.ConvReLU3d: "intrinsic.ConvReLU3d", nni.ConvAdd2d: "intrinsic.ConvAdd2d",
    nni.ConvAddReLU2d: "intrinsic.ConvAddReLU2d", nni.LinearLeakyReLU: "intrinsic.LinearLeakyReLU",
    nni.LinearTanh: "intrinsic.LinearTanh"}

DEFAULT_STATIC_QUANT_MODULE_MAPPINGS = {
    QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize, nn.Dropout: nnq.Dropout, nn.Conv2d: nnq.Conv2d,
    nn.ReLU6: nnq.ReLU6, nn.BatchNorm2d: nnq.BatchNorm2d, nn.BatchNorm3d: nnq.BatchNorm3d,
    nni.BNReLU2d: nniq.BNReLU2d, nni.BNReLU3d: nniq.BNReLU3d,
    nn.Linear: nnq.Linear, nn.modules.linear.NonDynamicallyQuantizableLinear: nnq.Linear,
    nnq.FloatFunctional: nnq.QFunctional, nni.ConvReLU2d: nniq.ConvReLU2d, nni.LinearReLU: nniq.LinearReLU,
    nniqat.ConvBn2d: nnq.Conv2d, nniqat.ConvBnReLU2d: nniq.ConvReLU2d, nniqat.ConvReLU2d: nniq.ConvReLU2d,
    nniqat.LinearReLU: nniq.LinearReLU, nnqat.Linear: nnq.Linear, nnqat.Conv2d: nnq.Conv2d,
    **{t: _Unsupported(("torch.ao.nn." + n.replace("intrinsic.", "intrinsic.quantized.")) if n.startswith("intrinsic") else _NNQ + n) for t, n in
       _STATIC_UNSUPPORTED.items()}}

_RNN_TYPES = (nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)
DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS = {
    nn.Linear: DynamicLinear, nn.modules.linear.NonDynamicallyQuantizableLinear: DynamicLinear, nn.LSTM: DynamicLSTM,
    **{t: _Unsupported(f"{_NNQ}dynamic.{t.__name__}", "dynamic quantization") for t in _RNN_TYPES},
    nn.Embedding: _Unsupported(_NNQ + "Embedding", "dynamic quantization"),
    nn.EmbeddingBag: _Unsupported(_NNQ + "EmbeddingBag", "dynamic quantization")}

_INCLUDE_QCONFIG_PROPAGATE_LIST = {nn.Sequential}

_NNQAT = "torch.ao.nn.qat."
DEFAULT_QAT_MODULE_MAPPINGS = {
    nn.Conv2d: nnqat.Conv2d, nn.Linear: nnqat.Linear, nn.modules.linear.NonDynamicallyQuantizableLinear: nnqat.Linear,
    nni.ConvBn2d: nniqat.ConvBn2d, nni.ConvBnReLU2d: nniqat.ConvBnReLU2d, nni.ConvReLU2d: nniqat.ConvReLU2d,
    nni.LinearReLU: nniqat.LinearReLU,
    **{t: _Unsupported(_NNQAT + n, "quantization-aware training") for t, n in (
        (nn.Conv1d, "Conv1d"), (nn.Conv3d, "Conv3d"), (nni.ConvBn1d, "intrinsic.ConvBn1d"),
        (nni.ConvBn3d, "intrinsic.ConvBn3d"), (nni.ConvBnReLU1d, "intrinsic.ConvBnReLU1d"),
        (nni.ConvBnReLU3d, "intrinsic.ConvBnReLU3d"), (nni.ConvReLU1d, "intrinsic.ConvReLU1d"),
        (nni.ConvReLU3d, "intrinsic.ConvReLU3d"), (nni.LinearBn1d, "intrinsic.LinearBn1d"))}}


def get_default_static_quant_module_mappings():
    """The float module types ``convert`` swaps, and their statically quantized counterparts."""
    return dict(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)


def get_default_dynamic_quant_module_mappings():
    """The float module types ``quantize_dynamic`` swaps, and their dynamic quantized counterparts."""
    return dict(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS)


def get_default_qat_module_mappings():
    """The float (and fused) module types ``prepare_qat`` swaps, and their QAT counterparts."""
    return dict(DEFAULT_QAT_MODULE_MAPPINGS)


def get_default_qconfig_propagation_list():
    """The module types ``prepare`` gives a qconfig (and an output observer when they are leaves)."""
    return set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS) | set(DEFAULT_QAT_MODULE_MAPPINGS) | \
        set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS) | _INCLUDE_QCONFIG_PROPAGATE_LIST


def no_observer_set():
    """Module types whose output is not observed (the dynamic-only embeddings)."""
    return {nn.Embedding, nn.EmbeddingBag}


def get_quantized_operator(float_op):
    """Not supported: torchlike keeps no float-op -> quantized-op table."""
    raise NotImplementedError("torch.ao.quantization.quantization_mappings.get_quantized_operator is not "
                              "implemented in torchlike (see docs/differences.md)")
