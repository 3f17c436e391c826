"""Hook plumbing for nn.Module: removable handles and module-level ("full") backward hooks.

Full backward hooks work by routing a module's tensor inputs and outputs through an identity
autograd Function (``BackwardHookFunction``). During backward the output-side tap sees ``grad_output`` first and
runs the backward pre-hooks; the input-side tap then sees ``grad_input`` and runs the backward hooks,
which may replace it.
"""
from __future__ import annotations

from ..._errors import warn_at_caller
from ...autograd import grad_mode
from ...autograd.function import Function
from ..._hooks import RemovableHandle
from ...tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHook"]


class BackwardHookFunction(Function):
    """Identity on tensors; in backward, passes their gradients through ``callback`` (which may change them)."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        ctx.mark_non_differentiable(*(t for t in tensors if not t.requires_grad))
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.callback(grads))


def _spread(slots, values, width):
    """A ``width``-tuple with ``values`` at positions ``slots`` and None elsewhere."""
    full = [None] * width
    for slot, value in zip(slots, values):
        full[slot] = value
    return tuple(full)


def _tap(callback, items):
    """Route the tensors among ``items`` through a BackwardHookFunction. Returns (new items, tensor positions), or
    (items, None) when nothing needs a gradient."""
    slots = [n for n, item in enumerate(items) if isinstance(item, Tensor)]
    if not grad_mode.is_grad_enabled() or not any(items[n].requires_grad for n in slots):
        return items, None
    tapped = BackwardHookFunction.apply(callback, *(items[n] for n in slots))
    if not tapped:
        raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
    rebuilt = list(items)
    for slot, value in zip(slots, tapped):
        rebuilt[slot] = value
    # keep the container type (plain tuple or a namedtuple)
    return (tuple(rebuilt) if type(items) is tuple else type(items)(*rebuilt)), slots


class BackwardHook:
    """Runs one module call's full backward hooks and backward pre-hooks.

    ``setup_input_hook`` taps the positional inputs and ``setup_output_hook`` the outputs; gradients
    are reported per argument position (None for non-tensor or non-differentiable ones).
    """

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.hooks = user_hooks
        self.pre_hooks = user_pre_hooks
        self.pending_grad_output = None  # set by the output side, consumed by the input side
        self.input_count = self.output_count = -1
        self.input_slots = self.output_slots = None

    def _on_input_grads(self, grads):
        if self.pending_grad_output is None:
            return grads
        grad_input = _spread(self.input_slots, grads, self.input_count)
        for hook in self.hooks:
            replaced = hook(self.module, grad_input, self.pending_grad_output)
            if replaced is None:
                continue
            if len(replaced) != len(grad_input):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(replaced)}, but expected {len(grad_input)}")
            grad_input = replaced
        self.pending_grad_output = None
        out = tuple(grad_input[n] for n in self.input_slots)
        for was, now in zip(grads, out):  # torch's check of its function hook (named 'hook') result
            if was is not None and now is not None and hasattr(now, "shape"):
                if now.type() != was.type():
                    raise RuntimeError(f"hook 'hook' has changed the type of value (was {was.type()} got "
                                       f"{now.type()})")
                if tuple(now.shape) != tuple(was.shape):
                    raise RuntimeError("hook 'hook' has changed the size of value")
        return out

    def _on_output_grads(self, grads):
        grad_output = _spread(self.output_slots, grads, self.output_count)
        for pre in self.pre_hooks:
            replaced = pre(self.module, grad_output)
            if replaced is None:
                continue
            if len(replaced) != len(grad_output):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(replaced)}, but expected {len(grad_output)}")
            grad_output = replaced
        self.pending_grad_output = grad_output
        if self.input_slots is None:
            # no input needs a gradient, so the input side never fires: call the hooks now
            self._fire_without_inputs(grad_output)
        return tuple(grad_output[n] for n in self.output_slots)

    def _fire_without_inputs(self, grad_output):
        warn_at_caller("Full backward hook is firing when gradients are computed with respect to module outputs "
                       "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                       "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
        nothing = (None,) * self.input_count
        for hook in self.hooks:
            replaced = hook(self.module, nothing, grad_output)
            if replaced is not None and not (isinstance(replaced, tuple) and all(g is None for g in replaced)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                   "return None or None for all gradients.")
        self.pending_grad_output = None

    def setup_input_hook(self, args):
        tapped, self.input_slots = _tap(self._on_input_grads, args)
        self.input_count = len(args)
        return tapped

    def setup_output_hook(self, outputs):
        single = not isinstance(outputs, tuple)
        items = (outputs,) if single else outputs
        tapped, self.output_slots = _tap(self._on_output_grads, items)
        self.output_count = len(items)
        return tapped[0] if single else tapped
