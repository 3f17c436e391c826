"""LazyModuleMixin: modules whose parameter shapes are only known at the first call.

A lazy module starts with ``UninitializedParameter`` / ``UninitializedBuffer`` placeholders. A forward
pre-hook calls ``initialize_parameters(*args, **kwargs)`` on the first input, then removes itself and
turns the module into its ``cls_to_become`` (LazyLinear -> Linear). Loading a state dict into a lazy
module materialises the placeholders with the checkpoint's shapes.

>>> import torchlike as torch
>>> m = torch.nn.LazyLinear(4)
>>> _ = m(torch.zeros(2, 3)); m
Linear(in_features=3, out_features=4, bias=True)
"""
from __future__ import annotations

from ...autograd import grad_mode
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


def _slots(module):
    """(name, tensor) for the module's own parameters then buffers, skipping None entries."""
    for table in (module._parameters, module._buffers):
        for name, value in table.items():
            if value is not None:
                yield name, value


class LazyModuleMixin:
    """Mix in before a Module class to infer parameter shapes from the first forward call.

    Subclasses implement ``initialize_parameters(*args, **kwargs)`` (materialise every placeholder from
    the inputs) and may set ``cls_to_become`` to the eager class the module becomes afterwards.
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # placeholders cannot be detached, so they are saved as they are
        skipped = self._non_persistent_buffers_set
        for name, value in _slots(self):
            if name in self._buffers and name in skipped:
                continue
            destination[prefix + name] = value if (keep_vars or is_lazy(value)) else value.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                     unexpected_keys, error_msgs):
        """Give each placeholder the shape of its checkpoint entry, so loading can then copy into it."""
        for name, value in _slots(self):
            incoming = state_dict.get(prefix + name)
            if incoming is not None and is_lazy(value) and not is_lazy(incoming):
                with grad_mode.no_grad():
                    value.materialize(incoming.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise the placeholders from the first call's inputs (subclasses implement it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self):
        """Whether any own parameter or buffer is still a placeholder."""
        return any(is_lazy(value) for _, value in _slots(self))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        # done for good: drop both hooks and become the eager class
        for attr in ("_initialize_hook", "_load_hook"):
            getattr(module, attr).remove()
            delattr(module, attr)
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
