"""The messages of torch's autograd checks on tensors (in-place writes to special views, .grad of a non-leaf),
word for word as torch 2.13 prints them; ``tensor`` raises and warns with them.
"""
from __future__ import annotations

__all__ = ["NOGRAD_VIEW_INPLACE", "FN_VIEW_INPLACE", "MULTI_VIEW_INPLACE", "NON_LEAF_GRAD"]

NOGRAD_VIEW_INPLACE = {mode: (
    f"A view was created in {mode} mode and is being modified inplace with grad mode enabled. Given that this use "
    f"case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and "
    f"the inplace either both inside the {mode} block (if you don't want the inplace to be tracked) or both "
    f"outside (if you want the inplace to be tracked).") for mode in ("no_grad", "inference")}
NOGRAD_VIEW_INPLACE["inference"] = NOGRAD_VIEW_INPLACE["inference"].replace(
    "with grad mode enabled", "in normal mode").replace("inside the inference block", "inside the inference_mode block")

# the view an autograd.Function returned (an input as-is, or a view of one made in forward) is wired to the
# Function's node: torch forbids rewriting it in place (CreationMeta::IN_CUSTOM_FUNCTION)
_FN_VIEW_TAIL = (
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, leading "
    "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
    "Function.")
FN_VIEW_INPLACE = "{} is a view and is being modified inplace." + _FN_VIEW_TAIL
# a view that split/chunk/unbind returned (or a view of one), made with grad mode on of a tensor that requires
# grad: torch refuses to rewrite it in place (CreationMeta::MULTI_OUTPUT_NODE); "Output k of Split"
MULTI_VIEW_INPLACE = (
    "Output {} of {} is a view and is being modified inplace. This view is the output of a function that returns "
    "multiple views. Such functions do not allow the output views to be modified inplace. You should replace the "
    "inplace operation by an out-of-place one.")

NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you "
    "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
