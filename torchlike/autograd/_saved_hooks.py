"""Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, save_on_cpu).

torchlike's backward closes over XLA buffers, not Tensor objects, so there are no per-tensor pack/unpack
points: the context managers are accepted and nest like torch's, the hooks themselves are not called
(docs/differences.md).  ``save_on_cpu`` has nothing to move on a CPU backend either way.

>>> import torchlike
>>> from torchlike.autograd.graph import save_on_cpu
>>> x = torchlike.ones(2, requires_grad=True)
>>> with save_on_cpu(pin_memory=False):
...     y = (x * x).sum()
>>> y.backward(); x.grad
tensor([2., 2.])
"""
from __future__ import annotations

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

_stack: list = []


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` (hooks recorded, not called: see module doc)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        _stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep tensors saved for backward in CPU memory (they are already there on a CPU backend)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:
    """Context manager under which entering ``saved_tensors_hooks`` raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _stack.append(None)
        return self

    def __exit__(self, *exc):
        _stack.pop()
        return False
