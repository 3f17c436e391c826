"""The rest of torch.autograd's public surface: settings torchlike honours trivially (multithreading,
view replay, grad layout policy), ``__torch_function__`` helpers, the profiler enums, ``register_multi_grad_hook``
of ``torch.autograd.graph`` (the rest of graph's API is in ``_graph_api``) and legacy ``NestedIOFunction``.

>>> import torchlike
>>> from torchlike.autograd.graph import get_gradient_edge
>>> x = torchlike.ones(2, requires_grad=True)
>>> e = get_gradient_edge(x * 2)
>>> type(e.node).__name__, e.output_nr
('MulBackward0', 0)
"""
from __future__ import annotations

import threading

from .._grad_mode import _state as _grad_state, enforce_grad_layout_policy
from .._hooks import RemovableHandle
from ..tensor import Tensor
from .._pybind_enum import PybindEnum
from .._torch_function import handle_torch_function, has_torch_function  # noqa: F401 (torch.autograd's)
from .function import Function

__all__ = ["is_multithreading_enabled", "is_view_replay_enabled",
           "enforce_grad_layout_policy", "kineto_available", "has_torch_function", "handle_torch_function",
           "is_tensor_like", "DeviceType", "ProfilerActivity", "ProfilerState", "ProfilerConfig", "ProfilerEvent",
           "SavedTensor", "NestedIOFunction", "register_multi_grad_hook", "RemovableHandle"]


def is_multithreading_enabled():
    """Whether the backward pass may use several threads (the setting of ``set_multithreading_enabled``;
    True by default, as torch's)."""
    return getattr(_grad_state, "multithreading", True)


def is_view_replay_enabled():
    """Whether views are replayed instead of as_strided in backward (False, torch's default)."""
    return _settings.view_replay


class _Settings(threading.local):
    view_replay = False


_settings = _Settings()


class _Setting:
    """A context manager (also usable as a plain call) that sets one flag and restores it on exit."""
    _attr = ""

    def __init__(self, mode):
        self.prev = getattr(_settings, self._attr)
        setattr(_settings, self._attr, bool(mode))

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        setattr(_settings, self._attr, self.prev)

    def clone(self):
        return type(self)(getattr(_settings, self._attr))


class _set_view_replay_enabled(_Setting):
    _attr = "view_replay"


def kineto_available():
    """Whether the Kineto profiler is built in (never, in torchlike)."""
    return False


def is_tensor_like(inp):
    """True for Tensors and objects whose type defines ``__torch_function__``."""
    return type(inp) is Tensor or isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


class DeviceType(PybindEnum):
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class ProfilerActivity(PybindEnum):
    CPU = 0  # torch's values, in torch's order
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5


class ProfilerState(PybindEnum):
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_PRIVATEUSE1 = 9


class ProfilerConfig:
    """Profiler configuration record (accepted; torchlike has no autograd profiler)."""

    def __init__(self, state=ProfilerState.Disabled, report_input_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False, experimental_config=None, trace_id=""):
        self.state, self.report_input_shapes, self.profile_memory = state, report_input_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.experimental_config, self.trace_id = experimental_config, trace_id


class ProfilerEvent:
    """A profiler event record (none are produced by torchlike)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("No constructor defined")


class SavedTensor:
    """A tensor saved for backward (torch exposes them as ``grad_fn._saved_*``; torchlike keeps the input
    arrays of each node instead, see docs/differences.md)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("torch._C._autograd.SavedTensor: No constructor defined")


class NestedIOFunction(Function):
    """Legacy autograd Function with nested inputs/outputs (torch keeps it for old code).

    Subclasses define ``forward_extended`` / ``backward_extended``."""

    def _do_forward(self, *input):
        return self.forward_extended(*input)

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError

    def save_for_backward(self, *args):
        self.to_save = tuple(args)

    @property
    def saved_tensors(self):
        return self.to_save

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = tuple(args)

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = tuple(args)


class _MultiHandle(RemovableHandle):
    """The handle ``register_multi_grad_hook`` returns (torch.autograd.graph._MultiHandle): removes every
    per-tensor hook it holds."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


_MultiHandle.__module__ = "torchlike.autograd.graph"


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Run ``fn`` once the gradients of ``tensors`` are computed: with ``mode='all'`` once per backward
    with the list of gradients (None for those not computed), with ``mode='any'`` on the first one."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = {"grads": [None] * len(tensors), "seen": 0, "fired": False}
    need = sum(1 for t in tensors if t.requires_grad)

    def make(i):
        def hook(g):
            if mode == "any":
                if not state["fired"]:
                    state["fired"] = True
                    fn(g)
                return None
            state["grads"][i] = g
            state["seen"] += 1
            if state["seen"] == need:
                grads, state["grads"], state["seen"] = state["grads"], [None] * len(tensors), 0
                fn(grads)
            return None
        return hook

    return _MultiHandle(tuple(t.register_hook(make(i)) for i, t in enumerate(tensors) if t.requires_grad))
