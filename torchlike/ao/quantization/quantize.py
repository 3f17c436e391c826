"""torch.ao.quantization's eager-mode flows: ``prepare`` (qconfigs propagated, observers attached to the
modules' outputs), ``convert`` (observed modules swapped for statically quantized ones), ``quantize`` (both, with a
calibration function) and ``quantize_dynamic`` (Linear and LSTM layers swapped for dynamically quantized ones).

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
from ...nn.utils.parametrize import type_before_parametrizations
from ..nn.intrinsic.modules.fused import _FusedModule
from ..nn.quantized.modules.functional_modules import FloatFunctional, QFunctional
from .observer import ObserverBase
from .fake_quantize import FakeQuantizeBase
from .quantization_mappings import get_default_dynamic_quant_module_mappings, \
    get_default_qat_module_mappings, get_default_qconfig_propagation_list, get_default_static_quant_module_mappings
from .stubs import DeQuantStub
from .qconfig import default_dynamic_qconfig, float16_dynamic_qconfig, float_qparams_weight_only_qconfig, \
    float_qparams_weight_only_qconfig_4bit

__all__ = ["quantize_dynamic", "propagate_qconfig_", "convert", "swap_module", "prepare", "quantize",
           "add_quant_dequant", "prepare_qat", "quantize_qat"]

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


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Give every submodule the qconfig its type or qualified name asks for in ``qconfig_dict``, else its
    parent's (torch's rule; an existing ``qconfig`` attribute wins)."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod, parent_qconfig, prefix):
        qc = qconfig_dict.get(type_before_parametrizations(mod), parent_qconfig)
        qc = qconfig_dict.get(prefix, qc)
        qc = getattr(mod, "qconfig", qc)
        mod.qconfig = qc
        for name, child in mod.named_children():
            visit(child, qc, prefix + "." + name if prefix else name)
    visit(module, None, "")


def swap_module(mod, mapping, custom_module_class_mapping=None, use_precomputed_fake_quant=False):
    """``mod``'s quantized counterpart when its type is in ``mapping`` and it has a qconfig, else ``mod``."""
    if getattr(mod, "qconfig", None) is not None and type_before_parametrizations(mod) in mapping:
        new = mapping[type_before_parametrizations(mod)].from_float(mod)
        for hook in mod._forward_pre_hooks.values():
            new.register_forward_pre_hook(hook)
        for hook in mod._forward_hooks.values():
            if hook is not _observer_forward_hook:
                new.register_forward_hook(hook)
        return new
    return mod


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """Swap ``module``'s children (recursively; not ``module`` itself; fused modules as a whole) for their
    quantized counterparts by ``mapping`` (default: the static mappings), then drop qconfigs and observers."""
    if is_reference:
        raise NotImplementedError("convert(is_reference=True) (reference quantized modules) is not implemented in "
                                  "torchlike (see docs/differences.md)")
    if convert_custom_config_dict:
        raise NotImplementedError("convert's convert_custom_config_dict (custom module classes) is not implemented "
                                  "in torchlike (see docs/differences.md)")
    if mapping is None:
        mapping = get_default_static_quant_module_mappings()
    if not inplace:
        module = copy.deepcopy(module)

    def visit(mod):
        reassign = {}
        for name, child in mod.named_children():
            if not isinstance(child, _FusedModule):
                visit(child)
            reassign[name] = swap_module(child, mapping)
        for name, child in reassign.items():
            mod._modules[name] = child
    visit(module)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def _observer_forward_hook(self, input, output):
    """Forward hook that calls observer on the output"""
    return self.activation_post_process(output)


def _observer_forward_pre_hook(self, input):
    """Forward pre hook that calls observer on the output"""
    return self.activation_post_process(input[0])


def _is_activation_post_process(module):
    return isinstance(module, (ObserverBase, FakeQuantizeBase))


def _remove_qconfig(module):
    for child in module.children():
        _remove_qconfig(child)
    if hasattr(module, "qconfig"):
        del module.qconfig
    if hasattr(module, "activation_post_process") and _is_activation_post_process(module.activation_post_process):
        delattr(module, "activation_post_process")
    for hooks, observer_hook in ((module._forward_pre_hooks, _observer_forward_pre_hook),
                                 (module._forward_hooks, _observer_forward_hook)):
        for handle_id in [k for k, fn in hooks.items() if fn is observer_hook]:
            hooks.pop(handle_id)


def _add_observer_(module, qconfig_propagation_list, non_leaf_module_list=None):
    """Give each leaf module of ``qconfig_propagation_list``'s types that has a qconfig (and each fused module,
    FloatFunctional ...) an ``activation_post_process`` observer of its output, run by a forward hook."""
    def needs_observation(m):
        return getattr(m, "qconfig", None) is not None

    def insert_activation_post_process(m):
        if needs_observation(m) and not isinstance(m, DeQuantStub):
            m.add_module("activation_post_process", m.qconfig.activation())
            memoryless = getattr(m.activation_post_process, "averaging_constant", None) == 1
            if memoryless:
                m.register_forward_pre_hook(_observer_forward_pre_hook, prepend=True)
            else:
                m.register_forward_hook(_observer_forward_hook, prepend=True)

    for child in module.children():
        kind = type_before_parametrizations(child)
        if kind is nn.Dropout:
            continue
        if issubclass(kind, (FloatFunctional, QFunctional)):
            if needs_observation(child):
                child.activation_post_process = child.qconfig.activation()
        elif isinstance(child, _FusedModule) or (non_leaf_module_list is not None and kind in non_leaf_module_list):
            insert_activation_post_process(child)
        else:
            _add_observer_(child, qconfig_propagation_list, non_leaf_module_list)
    if not module._modules and not isinstance(module, nn.Sequential) and \
            type_before_parametrizations(module) in qconfig_propagation_list:
        insert_activation_post_process(module)


def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    """A copy of ``model`` (``inplace``: ``model``) ready for calibration: qconfigs propagated from ``model.qconfig``
    (and its submodules'), an observer on the output of every module that will be quantized.

    >>> import torchlike
    >>> from torchlike import nn
    >>> from torchlike.ao import quantization as tq
    >>> m = nn.Sequential(tq.QuantStub(), nn.Linear(2, 2), tq.DeQuantStub()).eval()
    >>> m.qconfig = tq.default_qconfig
    >>> type(tq.prepare(m)[1].activation_post_process).__name__
    'MinMaxObserver'
    """
    if prepare_custom_config_dict:
        raise NotImplementedError("prepare's prepare_custom_config_dict (custom module classes) is not implemented "
                                  "in torchlike (see docs/differences.md)")
    if not inplace:
        model = copy.deepcopy(model)
    propagation_list = get_default_qconfig_propagation_list() if allow_list is None else allow_list
    propagate_qconfig_(model, None)
    if not any(getattr(m, "qconfig", None) for m in model.modules()):
        warnings.warn("None of the submodule got qconfig applied. Make sure you passed correct configuration "
                      "through `qconfig_dict` or by assigning the `.qconfig` attribute directly on submodules",
                      stacklevel=2)
    _add_observer_(model, propagation_list, observer_non_leaf_module_list)
    return model


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    """Post-training static quantization in one call: ``prepare``, ``run_fn(model, run_args)`` to calibrate,
    ``convert``."""
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


def add_quant_dequant(module):
    """Not supported (QuantWrapper around every leaf)."""
    raise NotImplementedError("torch.ao.quantization.add_quant_dequant is not implemented in torchlike "
                              "(see docs/differences.md)")


def prepare_qat(model, mapping=None, inplace=False):
    """A copy of training-mode ``model`` (``inplace``: ``model``) for quantization-aware training: its modules
    swapped for QAT ones (weights fake-quantized) and fake quantizers on the outputs (the qconfig's activation)."""
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    if mapping is None:
        mapping = get_default_qat_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, None)
    convert(model, mapping=mapping, inplace=True, remove_qconfig=False)
    prepare(model, observer_non_leaf_module_list=set(mapping.values()), inplace=True)
    return model


def quantize_qat(model, run_fn, run_args, inplace=False):
    """Quantization-aware training in one call: ``prepare_qat``, ``run_fn(model, *run_args)`` (training),
    ``convert``."""
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, inplace=True)
    return model


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
