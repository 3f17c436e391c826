"""torch.autograd.grad_mode: the grad-mode switches.

They are defined in ``torchlike._grad_mode`` (layer 0, below Tensor and the dispatcher, which read the
mode on every op) and homed here, torch's path for them (``__module__``, pickles).

>>> import torchlike
>>> torchlike.autograd.grad_mode.no_grad.__module__
'torchlike.autograd.grad_mode'
"""
from __future__ import annotations

from .. import _grad_mode
from .._grad_mode import (_DecoratorContextManager, _NoParamDecorator, _state, enable_grad,  # noqa: F401
                          enforce_grad_layout_policy, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                          no_grad, set_grad_enabled, set_multithreading_enabled)
from .._torch_paths import home as _home

__all__ = list(_grad_mode.__all__)
_home(globals(), no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
      is_inference_mode_enabled, set_multithreading_enabled, enforce_grad_layout_policy,
      _DecoratorContextManager, _NoParamDecorator)
