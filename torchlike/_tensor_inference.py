"""The Tensor's own part of torch's rules for inference tensors (a mixin of ``Tensor``; imports layer 0 only).

An inference tensor is one made while inference mode is on; its version counter (``_ver``, shared with its views)
is an ``InferenceVersion``. Outside inference mode torch refuses to write one in place or to make one require
grad, and it keeps no version count for them. The autograd side (saved tensors, ops left unrecorded) is
``_inference.py``'s.

>>> import torchlike
>>> with torchlike.inference_mode():
...     t = torchlike.ones(2)
>>> t.requires_grad_()
Traceback (most recent call last):
...
RuntimeError: Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.
"""
from __future__ import annotations

from ._grad_mode import _state
from ._views import HOST_CHAIN

__all__ = ["TensorInference", "INPLACE_ERROR", "SAVED_ERROR"]

INPLACE_ERROR = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to "
                 "get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for "
                 "more details.")

SAVED_ERROR = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
               "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
               "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


class TensorInference:
    """Checks ``Tensor`` runs for an inference tensor (only once ``type(t._ver) is InferenceVersion``)."""
    __slots__ = ()

    def _own_version_counter(self):
        """An inference tensor's ``detach()`` or ``.data``: torch gives it a version counter of its own, whose
        in-place writes it allows (a view of it is refused again)."""
        chain = self._chain
        return chain is not None and chain is not HOST_CHAIN and chain[-1][0] == "alias"

    def _inference_write_check(self):
        """torch's error for an in-place write to this inference tensor, unless inference mode is on."""
        if _state.inference or self._own_version_counter():
            return
        if _state.enabled:
            self._check_inplace_leaf()  # (torch's leaf check comes first)
        raise RuntimeError(INPLACE_ERROR)

    def _inference_version_check(self):
        if not self._own_version_counter():
            raise RuntimeError("Inference tensors do not track version counter.")

    def _inference_requires_grad_check(self):
        if not _state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                               "allowed.")
