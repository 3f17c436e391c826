"""The user-facing parts of torch.autograd.graph beyond Node (homed into ``torchlike.autograd.graph``).

torchlike's backward saves JAX values, which are immutable and live on the device they were computed
on: saved-tensor *mutation* is always allowed and *offloading* is a no-op, so those context managers
are real; ``saved_tensors_hooks`` runs the user's pack/unpack hooks on the tensors each op saves.

>>> import torchlike as torch
>>> x = torch.ones(2, requires_grad=True)
>>> torch.autograd.graph.get_gradient_edge(x * 2).node.name()
'MulBackward0'
"""
from __future__ import annotations

import contextlib
from typing import NamedTuple

from .._tape import SAVED_HOOKS, SAVED_HOOKS_DISABLED
from ..tensor import Tensor

__all__ = ["GradientEdge", "get_gradient_edge", "increment_version", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "region_activation_memory_budget",
           "set_warn_on_accumulate_grad_stream_mismatch", "allow_mutation_on_saved_tensors"]


class GradientEdge(NamedTuple):
    """A (node, output_nr) edge of the autograd graph (what ``get_gradient_edge`` returns)."""

    node: object
    output_nr: int
    ownership_token: object = None


def get_gradient_edge(tensor):
    """The edge through which ``tensor``'s gradient flows: its grad_fn (or AccumulateGrad for a leaf)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    if tensor.grad_fn is None:
        return GradientEdge(tensor._accumulator_strong(), 0)
    return GradientEdge(tensor.grad_fn, getattr(tensor, "_oi", 0))


def increment_version(tensor):
    """Mark ``tensor`` (or each tensor of an iterable) as modified in place (bumps ``_version``)."""
    for t in ([tensor] if isinstance(tensor, Tensor) else tensor):
        t._ver[0] += 1


class saved_tensors_hooks:
    """Pack/unpack hooks for the tensors an op saves for backward, as torch's: ``pack_hook(tensor)`` runs when
    the op is recorded, ``unpack_hook(packed)`` when backward (or ``ctx.saved_tensors``) needs the tensor,
    and the pullback reads the unpacked value (offloading, compression, or just inspection).

    >>> import torchlike as torch
    >>> seen = []
    >>> x = torch.ones(3, requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.shape) or t, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad, len(seen) > 0
    (tensor([2., 2., 2.]), True)
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if SAVED_HOOKS_DISABLED:
            raise RuntimeError(SAVED_HOOKS_DISABLED[-1])
        SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        SAVED_HOOKS.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Store saved tensors on the CPU during the block; torchlike's saved values stay where XLA keeps
    them, which on a CPU run is the CPU, so this changes nothing there (a no-op, as the values match)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        self.pin_memory, self.device_type = pin_memory, device_type

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside the block, entering ``saved_tensors_hooks`` raises RuntimeError(``error_message``)."""
    SAVED_HOOKS_DISABLED.append(error_message)
    try:
        yield
    finally:
        SAVED_HOOKS_DISABLED.pop()


@contextlib.contextmanager
def region_activation_memory_budget(budget):
    """An activation-memory budget for torch.compile's partitioner; torchlike's compiler ignores it."""
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"budget must be in [0, 1], got {budget}")
    yield


def set_warn_on_accumulate_grad_stream_mismatch(enabled):
    """CUDA-stream mismatch warnings for AccumulateGrad; torchlike has no streams, so nothing to warn about."""
    global _warn_stream_mismatch
    _warn_stream_mismatch = bool(enabled)


_warn_stream_mismatch = True


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Allow in-place changes to tensors saved for backward: torchlike always saves immutable values."""
    yield None
