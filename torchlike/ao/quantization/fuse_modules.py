"""``fuse_modules``: replace runs of a model's modules (Conv/BatchNorm/ReLU, Linear/ReLU, ...) by one fused
module and ``nn.Identity`` placeholders, as torch's eager-mode quantization prepares a model. In eval mode a
BatchNorm is folded into the preceding Conv/Linear's weights, so the fused model computes the same function
with fewer ops (the float speed-up users take it for).

>>> import torchlike
>>> from torchlike.ao.quantization import fuse_modules
>>> m = torchlike.nn.Sequential(torchlike.nn.Conv2d(1, 2, 3), torchlike.nn.BatchNorm2d(2), torchlike.nn.ReLU())
>>> fused = fuse_modules(m.eval(), [["0", "1", "2"]])
>>> type(fused[0]).__name__, type(fused[1]).__name__
('ConvReLU2d', 'Identity')
"""
from __future__ import annotations

import copy

from ... import nn
from ..._config_module import _get as _get_module, _set as _set_module  # (dotted getattr / setattr)
from ...nn.utils.parametrize import type_before_parametrizations
from .fuser_method_mappings import get_fuser_method

__all__ = ["fuse_known_modules", "fuse_modules", "fuse_modules_qat"]


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    """The fused replacement of ``mod_list``: the fused module first, then ``nn.Identity`` for each other one.
    The first module's forward pre-hooks and the last one's forward hooks move to the fused module."""
    kinds = tuple(type_before_parametrizations(m) for m in mod_list)
    fuser = get_fuser_method(kinds, additional_fuser_method_mapping)
    fused = fuser(is_qat, *mod_list)
    for hook in mod_list[0]._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    mod_list[0]._forward_pre_hooks.clear()
    for hook in mod_list[-1]._forward_hooks.values():
        fused.register_forward_hook(hook)
    mod_list[-1]._forward_hooks.clear()
    out = [fused]
    for _ in mod_list[1:]:
        identity = nn.Identity()
        identity.training = mod_list[0].training
        out.append(identity)
    return out


def _fuse(model, modules_to_fuse, is_qat, inplace, fuser_func, fuse_custom_config_dict):
    if not inplace:
        model = copy.deepcopy(model)
    if all(isinstance(name, str) for name in modules_to_fuse):  # one group given flat
        modules_to_fuse = [modules_to_fuse]
    extra = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping", {})
    for group in modules_to_fuse:
        mods = [_get_module(model, name) for name in group]
        new = fuser_func(mods, is_qat, extra)
        for name, module in zip(group, new):
            _set_module(model, name, module)
    return model


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    """Fuse each list of module names in ``modules_to_fuse`` (eval mode: BatchNorm folded into the weights).
    A copy unless ``inplace``."""
    return _fuse(model, modules_to_fuse, False, inplace, fuser_func, fuse_custom_config_dict)


def fuse_modules_qat(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                     fuse_custom_config_dict=None):
    """``fuse_modules`` for quantization-aware training: Conv/Linear + BatchNorm stay separate modules in a
    ``ConvBn*d``/``LinearBn1d`` container (train mode)."""
    return _fuse(model, modules_to_fuse, True, inplace, fuser_func, fuse_custom_config_dict)
