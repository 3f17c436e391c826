"""torch.ao.quantization.quantize_dynamic: swap a model's Linear and LSTM layers for dynamically quantized ones.

>>> import torchlike
>>> from torchlike import nn
>>> m = torchlike.ao.quantization.quantize_dynamic(nn.Sequential(nn.Linear(4, 3), nn.ReLU()), {nn.Linear})
>>> m
Sequential(
  (0): DynamicQuantizedLinear(in_features=4, out_features=3, dtype=torch.qint8, qscheme=torch.per_tensor_affine)
  (1): ReLU()
)
"""
from __future__ import annotations

import copy
import warnings

from ... import _dtype, nn
from ..nn.quantized.dynamic.modules.linear import Linear as DynamicLinear
from ..nn.quantized.dynamic.modules.rnn import LSTM as DynamicLSTM
from .qconfig import default_dynamic_qconfig, float16_dynamic_qconfig, float_qparams_weight_only_qconfig, \
    float_qparams_weight_only_qconfig_4bit

__all__ = ["quantize_dynamic", "get_default_dynamic_quant_module_mappings", "propagate_qconfig_", "convert",
           "swap_module"]

DEPRECATION_WARNING = (
    "torch.ao.quantization is deprecated and will be removed in 2.10. \n"
    "For migrations of users: \n"
    "1. Eager mode quantization (torch.ao.quantization.quantize, torch.ao.quantization.quantize_dynamic), please "
    "migrate to use torchao eager mode quantize_ API instead \n"
    "2. FX graph mode quantization (torch.ao.quantization.quantize_fx.prepare_fx,"
    "torch.ao.quantization.quantize_fx.convert_fx, please migrate to use torchao pt2e quantization API instead "
    "(prepare_pt2e, convert_pt2e) \n"
    "3. pt2e quantization has been migrated to torchao (https://github.com/pytorch/ao/tree/main/torchao/"
    "quantization/pt2e) \n"
    "see https://github.com/pytorch/ao/issues/2259 for more details")

_RNN_TYPES = (nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)


class _Unsupported:
    """A mapping target torchlike does not have yet: swapping a module to it raises, naming it."""

    def __init__(self, name):
        self.name = name

    def from_float(self, mod, use_precomputed_fake_quant=False):
        raise NotImplementedError(f"{self.name} (dynamic quantization of {type(mod).__name__}) is not implemented "
                                  "in torchlike; only nn.Linear and nn.LSTM are quantized dynamically (see docs/differences.md)")


def get_default_dynamic_quant_module_mappings():
    """The float module types ``quantize_dynamic`` swaps, and their dynamic quantized counterparts."""
    return {nn.Linear: DynamicLinear, nn.modules.linear.NonDynamicallyQuantizableLinear: DynamicLinear,
            nn.LSTM: DynamicLSTM,
            **{t: _Unsupported(f"torch.ao.nn.quantized.dynamic.{t.__name__}") for t in _RNN_TYPES[1:]},
            nn.Embedding: _Unsupported("torch.ao.nn.quantized.Embedding"),
            nn.EmbeddingBag: _Unsupported("torch.ao.nn.quantized.EmbeddingBag")}


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Give every submodule the qconfig its type or qualified name asks for in ``qconfig_dict``, else its
    parent's (torch's rule; an existing ``qconfig`` attribute wins)."""
    def visit(mod, parent_qconfig, prefix):
        qc = qconfig_dict.get(type(mod), parent_qconfig)
        qc = qconfig_dict.get(prefix, qc)
        qc = getattr(mod, "qconfig", qc)
        mod.qconfig = qc
        for name, child in mod.named_children():
            visit(child, qc, prefix + "." + name if prefix else name)
    visit(module, None, "")


def swap_module(mod, mapping, custom_module_class_mapping=None, use_precomputed_fake_quant=False):
    """``mod``'s quantized counterpart when its type is in ``mapping`` and it has a qconfig, else ``mod``."""
    if getattr(mod, "qconfig", None) is not None and type(mod) in mapping:
        new = mapping[type(mod)].from_float(mod)
        for hook in mod._forward_pre_hooks.values():
            new.register_forward_pre_hook(hook)
        for hook in mod._forward_hooks.values():
            new.register_forward_hook(hook)
        return new
    return mod


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """Swap ``module``'s children (recursively; not ``module`` itself) by ``mapping``."""
    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()
    if not inplace:
        module = copy.deepcopy(module)

    def visit(mod):
        for name, child in list(mod.named_children()):
            visit(child)
            mod._modules[name] = swap_module(child, mapping)
    visit(module)
    if remove_qconfig:
        for m in module.modules():
            if hasattr(m, "qconfig"):
                del m.qconfig
    return module


def quantize_dynamic(model, qconfig_spec=None, dtype=_dtype.qint8, mapping=None, inplace=False):
    """A copy of ``model`` (``inplace``: ``model`` itself) whose ``nn.Linear`` submodules are replaced by
    ``torch.ao.nn.quantized.dynamic.Linear`` (weights qint8 per tensor, activations quantized per call).

    ``qconfig_spec``: a set of module types and/or qualified names (quantized to ``dtype``), or a dict from those to
    qconfigs; default all Linear/RNN types.  ``nn.LSTM`` becomes ``torch.ao.nn.quantized.dynamic.LSTM``; GRU, the
    RNN cells and embeddings are not supported: a module of those types the spec selects raises
    NotImplementedError.
    """
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
    default = {_dtype.qint8: default_dynamic_qconfig, _dtype.float16: float16_dynamic_qconfig,
               _dtype.quint8: float_qparams_weight_only_qconfig, _dtype.quint4x2: float_qparams_weight_only_qconfig_4bit}
    if qconfig_spec is None:
        if dtype not in default:
            raise ValueError(f"Don't know how to quantize with default settings for {dtype}. Provide full qconfig "
                             "please")
        types = (nn.Linear, *_RNN_TYPES) if dtype in (_dtype.qint8, _dtype.float16) else \
            (nn.EmbeddingBag, nn.Embedding) if dtype is _dtype.quint8 else (nn.EmbeddingBag,)
        qconfig_spec = dict.fromkeys(types, default[dtype])
    elif isinstance(qconfig_spec, set):
        if dtype not in default:
            raise RuntimeError("Unknown dtype specified for quantize_dynamic: ", str(dtype))
        qconfig_spec = dict.fromkeys(qconfig_spec, default[dtype])
    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping, inplace=True)
    return model
