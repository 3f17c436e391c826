"""Hook plumbing for nn.Module: removable handles and full (module-level) backward hooks.

Full backward hooks wrap a module's tensor inputs and outputs in identity autograd Functions (as
torch's ``BackwardHook`` does): the output-side node sees ``grad_output`` and runs backward
pre-hooks; the input-side node sees ``grad_input`` and runs the backward hooks.
"""
from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict

from ...autograd import grad_mode
from ...autograd.function import Function
from ...tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHook"]


class RemovableHandle:
    """A handle that removes a hook from its dict(s) (torch.utils.hooks.RemovableHandle).

    >>> import torchlike as torch
    >>> m = torch.nn.Identity()
    >>> h = m.register_forward_hook(lambda mod, i, o: None); h.remove(); len(m._forward_hooks)
    0
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = () if len(state) < 3 or state[2] is None else tuple(
            weakref.ref(d) for d in state[2])

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


class _BackwardHookFunction(Function):
    """Identity on tensors; its backward hands the incoming gradients to a callback."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        res = ctx.callback(grads)
        return (None,) + tuple(res)


class BackwardHook:
    """Collects grad_output at a module's outputs and grad_input at its inputs, then calls hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _apply_on_tensors(self, callback, args):
        idx, tensors, rg = [], [], False
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                idx.append(i)
                tensors.append(a)
                rg |= a.requires_grad
        if not (rg and grad_mode.is_grad_enabled()):
            return args, None
        new = _BackwardHookFunction.apply(callback, *tensors)
        if len(new) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        out = list(args)
        for i, v in zip(idx, new):
            out[i] = v
        return (tuple(out) if type(args) is tuple else type(args)(*out)), idx

    def _input_callback(self, grads):
        if self.grad_outputs is None:
            return grads
        res = self._pack_with_none(self.input_tensors_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)

    def _output_callback(self, grads):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grads, self.n_outputs)
        if self.user_pre_hooks:
            expected = len(self.grad_outputs)
            for pre in self.user_pre_hooks:
                r = pre(self.module, self.grad_outputs)
                if r is None:
                    continue
                if len(r) != expected:
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                       f"got {len(r)}, but expected {expected}")
                self.grad_outputs = r
        local = self.grad_outputs
        if self.input_tensors_index is None:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                          "outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                          "register_full_backward_hook for more details.", stacklevel=5)
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for hook in self.user_hooks:
                r = hook(self.module, grad_inputs, self.grad_outputs)
                if r is not None and not (isinstance(r, tuple) and all(el is None for el in r)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)

    def setup_input_hook(self, args):
        res, idx = self._apply_on_tensors(self._input_callback, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, idx = self._apply_on_tensors(self._output_callback, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res if is_tuple else res[0]


_ids = itertools.count()
