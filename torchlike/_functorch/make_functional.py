"""torch._functorch.make_functional: functorch's (deprecated) ``make_functional`` API on ``torch.func.functional_call``.

>>> import torchlike as torch
>>> fmodel, params = make_functional(torch.nn.Linear(1, 1))
>>> fmodel((torch.ones(1, 1), torch.zeros(1)), torch.tensor([[3.0]]))
tensor([[3.]])
"""
from __future__ import annotations

import copy
import warnings

from ..nn.modules.module import Module
from ..nn.utils.stateless import functional_call

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "make_functional", "make_functional_with_buffers"]


class FunctionalModule(Module):
    """A copy of a module called as ``fmodel(params, *args)``: ``params`` replace its parameters, in order."""

    def __init__(self, stateless_model, param_names, names_map=None):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.names_map = names_map

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        names, params = zip(*model_copy.named_parameters()) if any(True for _ in model_copy.parameters()) else ((), ())
        if disable_autograd_tracking:
            for p in params:
                p.requires_grad_(False)
        return FunctionalModule(model_copy, names), tuple(params)

    def forward(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """As :class:`FunctionalModule`, called as ``fmodel(params, buffers, *args)``."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map=None, buffer_names_map=None):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    @staticmethod
    def _create_from(model, disable_autograd_tracking=False):
        model_copy = copy.deepcopy(model)
        named_p = list(model_copy.named_parameters())
        named_b = list(model_copy.named_buffers())
        if disable_autograd_tracking:
            for _, p in named_p:
                p.requires_grad_(False)
        return (FunctionalModuleWithBuffers(model_copy, [n for n, _ in named_p], [n for n, _ in named_b]),
                tuple(p for _, p in named_p), tuple(b for _, b in named_b))

    def forward(self, params, buffers, *args, **kwargs):
        tensors = dict(zip(self.param_names, params))
        tensors.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, tensors, args, kwargs)


def _deprecated(name):
    # torch._functorch.deprecated's warning, word for word
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{name}` "
                  "is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please "
                  "use `torch.func.functional_call` instead; see the PyTorch 2.0 release notes and/or the "
                  "`torch.func` migration guide for more details https://pytorch.org/docs/main/func.migrating.html",
                  FutureWarning, stacklevel=3)


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)``: a functional copy of ``model`` and its parameters (functorch's ``make_functional``)."""
    _deprecated("make_functional")
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    return FunctionalModule._create_from(model, disable_autograd_tracking=disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)`` for a module with buffers (functorch's ``make_functional_with_buffers``)."""
    _deprecated("make_functional_with_buffers")
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking=disable_autograd_tracking)
