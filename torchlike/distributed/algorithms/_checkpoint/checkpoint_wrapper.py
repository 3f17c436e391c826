"""Activation checkpointing wrappers (``torch.distributed.algorithms._checkpoint.checkpoint_wrapper``), as the
FSDP tutorials apply them: ``apply_activation_checkpointing(model, checkpoint_wrapper_fn=..., check_fn=...)``
wraps the chosen submodules in a :class:`CheckpointWrapper` whose forward runs under
``torch.utils.checkpoint.checkpoint`` (activations recomputed in backward). The wrapper holds the module as
``_checkpoint_wrapped_module``; state dicts use the original names (the prefix is removed on save and added on
load, as torch's hooks do).

>>> import torchlike
>>> from torchlike.distributed.algorithms._checkpoint.checkpoint_wrapper import (
...     apply_activation_checkpointing, checkpoint_wrapper)
>>> net = torchlike.nn.Sequential(torchlike.nn.Linear(2, 2), torchlike.nn.Tanh())
>>> apply_activation_checkpointing(net, checkpoint_wrapper_fn=checkpoint_wrapper,
...                                check_fn=lambda m: isinstance(m, torchlike.nn.Linear))
>>> type(net[0]).__name__, list(net.state_dict())
('CheckpointWrapper', ['0.weight', '0.bias'])
"""
from __future__ import annotations

import enum
import functools

from ....nn import Module
from ....utils import checkpoint as _checkpoint

__all__ = ["ActivationWrapper", "CheckpointImpl", "CheckpointWrapper", "OffloadWrapper",
           "apply_activation_checkpointing", "checkpoint_wrapper", "offload_wrapper"]

_CHECKPOINT_WRAPPED_MODULE = "_checkpoint_wrapped_module"
_CHECKPOINT_PREFIX = _CHECKPOINT_WRAPPED_MODULE + "."


class CheckpointImpl(enum.Enum):
    """Reentrant (``use_reentrant=True``) or non-reentrant activation checkpointing."""
    REENTRANT = enum.auto()
    NO_REENTRANT = enum.auto()


class ActivationWrapper(Module):
    """Base of the wrappers: holds ``module`` as ``_checkpoint_wrapped_module``; state dicts without the prefix."""

    def __init__(self, mod):
        super().__init__()
        self._checkpoint_wrapped_module = mod
        self._register_state_dict_hook(ActivationWrapper._post_state_dict_hook)
        self._register_load_state_dict_pre_hook(ActivationWrapper._pre_load_state_dict_hook, with_module=True)

    def forward(self, *args, **kwargs):
        raise ValueError("Subclasses should implement forward().")

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules[_CHECKPOINT_WRAPPED_MODULE], name)

    def __getitem__(self, key):
        return self._checkpoint_wrapped_module.__getitem__(key)

    @staticmethod
    def _post_state_dict_hook(module, state_dict, prefix, *args):
        for key in [k for k in state_dict if k.startswith(prefix + _CHECKPOINT_PREFIX)]:
            state_dict[prefix + key[len(prefix + _CHECKPOINT_PREFIX):]] = state_dict.pop(key)
        return state_dict

    @staticmethod
    def _pre_load_state_dict_hook(module, state_dict, prefix, *args):
        for key in [k for k in state_dict if k.startswith(prefix) and not k.startswith(prefix + _CHECKPOINT_PREFIX)]:
            state_dict[prefix + _CHECKPOINT_PREFIX + key[len(prefix):]] = state_dict.pop(key)


class CheckpointWrapper(ActivationWrapper):
    """Run the wrapped module under activation checkpointing (its activations are recomputed in backward)."""

    def __init__(self, mod, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None, **checkpoint_fn_kwargs):
        super().__init__(mod)
        self.checkpoint_impl = checkpoint_impl
        if checkpoint_fn is None:
            self.checkpoint_fn = functools.partial(_checkpoint.checkpoint,
                                                   use_reentrant=checkpoint_impl == CheckpointImpl.REENTRANT,
                                                   **checkpoint_fn_kwargs)
        else:
            self.checkpoint_fn = functools.partial(checkpoint_fn, **checkpoint_fn_kwargs)

    def forward(self, *args, **kwargs):
        return self.checkpoint_fn(self._checkpoint_wrapped_module, *args, **kwargs)


class OffloadWrapper(ActivationWrapper):
    """Offload saved activations to the host: torchlike's CPU tensors are there already, so it runs the module."""

    def forward(self, *args, **kwargs):
        return self._checkpoint_wrapped_module(*args, **kwargs)


def offload_wrapper(module):
    """Wrap ``module`` in an :class:`OffloadWrapper`."""
    return OffloadWrapper(module)


def checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT, checkpoint_fn=None,
                       **checkpoint_fn_kwargs):
    """Wrap ``module`` in a :class:`CheckpointWrapper`."""
    return CheckpointWrapper(module, checkpoint_impl, checkpoint_fn, **checkpoint_fn_kwargs)


def apply_activation_checkpointing(model, checkpoint_wrapper_fn=checkpoint_wrapper, check_fn=lambda _: True,
                                   auto_wrap_policy=None):
    """Replace, in place, every submodule of ``model`` for which ``check_fn`` is true (or that
    ``auto_wrap_policy`` picks) by ``checkpoint_wrapper_fn(submodule)``; ``model`` itself is not wrapped."""
    def wrap(parent):
        for name, child in list(parent.named_children()):
            if isinstance(child, ActivationWrapper):
                continue
            wrap(child)  # children first, as torch's recursive wrap
            if auto_wrap_policy is not None:
                pick = bool(auto_wrap_policy(module=child, recurse=False, nonwrapped_numel=sum(
                    p.numel() for p in child.parameters())))
            else:
                pick = bool(check_fn(child))
            if pick:
                setattr(parent, name, checkpoint_wrapper_fn(child))
    wrap(model)
