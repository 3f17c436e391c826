"""``torch.nn.utils._per_sample_grad.call_for_per_sample_grads``: a module's forward whose ``backward`` fills
each trainable parameter's ``grad_sample`` with per-sample gradients (through ExpandedWeight).

>>> import torchlike
>>> model = torchlike.nn.Linear(4, 3)
>>> call_for_per_sample_grads(model)(torchlike.randn(5, 4)).sum().backward()
>>> model.weight.grad_sample.shape, model.bias.grad_sample.shape, model.weight.grad is None
(torch.Size([5, 3, 4]), torch.Size([5, 3]), True)
"""
from __future__ import annotations

import functools

from ...func import functional_call
from ...tensor import Tensor
from ...utils import _pytree as pytree
from ..modules.module import Module
from ._expanded_weights import ExpandedWeight

__all__ = ["call_for_per_sample_grads"]


def call_for_per_sample_grads(module, *, batch_size=None, loss_reduction="sum", batch_first=True):
    """A forward function for ``module`` that, on backward, puts per-sample gradients in each trainable
    parameter's ``grad_sample`` (scaled by the batch size for ``loss_reduction="mean"``), as torch's.

    ``batch_size`` defaults to the size of the batch dimension of the tensor arguments (which must agree)."""

    def maybe_build_expanded_weight(og_tensor, batch_size):
        return ExpandedWeight(og_tensor, batch_size, loss_reduction) if og_tensor.requires_grad else og_tensor

    def compute_batch_size(*args, **kwargs):
        batch_size = None
        for arg in pytree.arg_tree_leaves(*args, **kwargs):
            if not isinstance(arg, Tensor):
                continue
            arg_batch_size = arg.shape[0] if batch_first else arg.shape[1]
            if batch_size is not None and batch_size != arg_batch_size:
                raise RuntimeError(
                    "When computing batch size, found at least one input with batch size "
                    f"{batch_size} and one with batch size {arg_batch_size}. Please specify it "
                    "explicitly using the batch size kwarg in call_for_per_sample_grads")
            batch_size = arg_batch_size
        if batch_size is None:
            raise RuntimeError(
                "Unable to find a tensor in the passed args and kwargs. They may not be pytree-able "
                "and so ExpandedWeights cannot compute the batch size from the inputs. Please specify it explicitly")
        return batch_size

    if loss_reduction not in ["sum", "mean"]:
        raise RuntimeError(f"Expected loss_reduction argument to be sum or mean, got {loss_reduction}")
    if not isinstance(module, Module):
        raise RuntimeError(f"Module passed must be nn.Module, got {type(module).__name__}")
    if not (batch_size is None or isinstance(batch_size, int)):
        raise RuntimeError(f"Batch size passed must be None or an integer, got {type(batch_size).__name__}")
    if batch_size is not None and batch_size < 1:
        raise RuntimeError(f"Batch size must be positive, got {batch_size}")
    for weight in module.parameters():
        if getattr(weight, "grad_sample", None) is not None:
            raise RuntimeError(
                "Current Expanded Weights accumulates the gradients, which will be incorrect for multiple "
                f"calls without clearing gradients. Please clear out the grad_sample parameter of {weight} or "
                "post an issue to pytorch/pytorch to prioritize correct behavior")

    @functools.wraps(module.forward)
    def wrapper(*args, **kwargs):
        wrapper_batch_size = batch_size if batch_size is not None else compute_batch_size(*args, **kwargs)
        params = {name: maybe_build_expanded_weight(value, wrapper_batch_size)
                  for (name, value) in module.named_parameters()}
        return functional_call(module, params, args, kwargs)

    return wrapper
