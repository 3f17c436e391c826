"""FSDP1's auto-wrap policies (``torch.distributed.fsdp.wrap``): which submodules become their own
``FullyShardedDataParallel`` unit. A policy is called as ``policy(module=, recurse=, nonwrapped_numel=)``:
with ``recurse=True`` it says whether to look inside ``module``, with ``recurse=False`` whether to wrap it.

>>> import functools, torchlike
>>> from torchlike.distributed.fsdp.wrap import transformer_auto_wrap_policy, size_based_auto_wrap_policy
>>> pol = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={torchlike.nn.Linear})
>>> pol(module=torchlike.nn.Linear(2, 2), recurse=False, nonwrapped_numel=6)
True
>>> size_based_auto_wrap_policy(torchlike.nn.Linear(2, 2), recurse=False, nonwrapped_numel=6, min_num_params=10)
False
"""
from __future__ import annotations

import contextlib

from ...nn import ModuleDict, ModuleList, MultiheadAttention

__all__ = ["CustomPolicy", "ModuleWrapPolicy", "always_wrap_policy", "enable_wrap", "lambda_auto_wrap_policy",
           "size_based_auto_wrap_policy", "transformer_auto_wrap_policy", "wrap"]


def always_wrap_policy(*args, **kwargs) -> bool:
    """Wrap every submodule."""
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn) -> bool:
    """Wrap the modules for which ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls) -> bool:
    """Wrap every instance of the ``transformer_layer_cls`` classes (a set of module classes)."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None) -> bool:
    """Wrap a module once the parameters not yet wrapped below it number at least ``min_num_params``."""
    force_leaf = tuple(force_leaf_modules or size_based_auto_wrap_policy.FORCE_LEAF_MODULES)
    exclude = tuple(exclude_wrap_modules or size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES)
    big = nonwrapped_numel >= min_num_params
    if recurse:
        return big and not isinstance(module, force_leaf)
    return big and not isinstance(module, exclude)


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {ModuleList, ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {MultiheadAttention}


class ModuleWrapPolicy:
    """Wrap every instance of the given module classes.

    >>> import torchlike
    >>> ModuleWrapPolicy({torchlike.nn.Linear})(torchlike.nn.ReLU(), recurse=False)
    False
    """

    def __init__(self, module_classes):
        self._module_classes = set(module_classes)

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else isinstance(module, tuple(self._module_classes))

    def __repr__(self):
        return f"{type(self).__name__}({self._module_classes})"


class CustomPolicy:
    """Wrap the modules for which ``lambda_fn(module)`` is truthy (a dict result gives that unit's kwargs)."""

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else self._lambda_fn(module)


_WRAP_CONFIG = {}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside this context ``wrap(module)`` wraps with ``wrapper_cls(module, **wrapper_kwargs)``."""
    prev = dict(_WRAP_CONFIG)
    _WRAP_CONFIG.clear()
    _WRAP_CONFIG.update(wrapper_cls=wrapper_cls, kwargs=wrapper_kwargs)
    try:
        yield
    finally:
        _WRAP_CONFIG.clear()
        _WRAP_CONFIG.update(prev)


def wrap(module, **wrap_overrides):
    """Wrap ``module`` inside ``enable_wrap`` (outside it, return ``module`` unchanged)."""
    if not _WRAP_CONFIG:
        return module
    return _WRAP_CONFIG["wrapper_cls"](module, **{**_WRAP_CONFIG["kwargs"], **wrap_overrides})
