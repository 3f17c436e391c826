"""torchlike.autograd: define-by-run reverse-mode differentiation over a tape of JAX ops.

>>> import torchlike
>>> x = torchlike.tensor(3.0, requires_grad=True)
>>> (g,) = torchlike.autograd.grad(x ** 2, x, create_graph=True)
>>> torchlike.autograd.grad(g, x)[0]
tensor(2.)
"""
from __future__ import annotations

from .. import _creation, _profiler_state as _prof
from .._errors import warn_at_caller
from ..tensor import Tensor
from .._ops.registry import register
from .._ops.shape import stack

from . import graph
from ._graph_api import GradientEdge
from .engine import run_backward
from . import grad_mode
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .function import Function, FunctionCtx, once_differentiable
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from . import functional
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "functional", "gradcheck",
           "gradgradcheck", "detect_anomaly", "set_detect_anomaly", "Variable", "graph", "once_differentiable"]


def _seq(x):
    if x is None:
        return None
    return (x,) if isinstance(x, (Tensor, GradientEdge)) else tuple(x)


def _inputs_tuple(inputs, fn):
    """The ``inputs`` of ``grad``/``backward`` (named ``fn``) as torch reads them: a Tensor or GradientEdge, the
    values of a plain dict, or the items of any other iterable but a Mapping; never empty."""
    if type(inputs) is dict:
        inputs = tuple(inputs.values())
    elif isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    inputs = _seq(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{fn}()` cannot be empty.")
    return inputs


_SEEDS: dict = {}  # (shape, dtype, device) -> the array of ones an implicit ``backward()`` starts from


def _ones_seed(o):
    """The array of ones an implicit ``backward()`` of plain tensor ``o`` starts from, outside tracing and JAX
    transforms: made once per shape, dtype and device (``ones_like(o)``'s, moved to the device) and reused
    (arrays are immutable; one a compiled program donated is made again).  A tiny training step made a host
    tensor of ones and moved it to the device on every step (~9 us).  None where it must be made as usual."""
    if not _creation._hostable(o._dev):
        return None
    key = (tuple(o.shape), o.dtype, o._dev)
    a = _SEEDS.get(key)
    if a is None or a.is_deleted():
        if len(_SEEDS) >= 64:
            _SEEDS.clear()
        a = _SEEDS[key] = _creation.ones_like(o)._value
    return a


def _make_grads(outputs, grad_outputs, create_graph):
    out = []
    for i, (o, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if not o.requires_grad:  # torch: no implicit grad; the engine then names the element
                out.append(None)
                continue
            if o.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (o.dtype.is_floating_point or o.dtype.is_complex):
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{o.dtype}")
            if not create_graph and type(o) is Tensor and not _prof.MODES:
                a = _ones_seed(o)
                if a is not None:
                    out.append(a)
                    continue
            g = _creation.ones_like(o) if type(o) not in _prof.SUBCLASSES else \
                _creation.ones(tuple(o.shape), dtype=o.dtype, device=o.device)  # (a subclass gets aten.ones_like below)
            if _prof.MODES and _prof.MODE_BACKWARD[0] is not None:   # torch's engine makes it with aten.ones_like
                g = _prof.MODE_BACKWARD[0].ones_like(o, g)
        elif not isinstance(g, Tensor):  # (torch's _make_grads: no conversion)
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                               f"has a shape of {o.shape}.")
        if g.dtype is not o.dtype:
            g = g.to(o.dtype)
        out.append(g if create_graph or type(g) in _prof.SUBCLASSES else g._value)
    if len(out) < len(outputs):  # (fewer gradients than outputs: the engine's check; extra ones are dropped)
        raise RuntimeError(f"got {len(outputs)} tensors and {len(out)} gradients")
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    if _prof.SUBCLASSES and _prof.SUBCLASS_HANDLER[0].backward_needs(tensors):  # __torch_dispatch__ subclasses
        return _prof.SUBCLASS_HANDLER[0].around_backward(backward, tensors, grad_tensors, retain_graph, create_graph,
                                                         grad_variables, inputs)
    tensors = _seq(tensors)
    grad_tensors = _seq(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
    grads = _make_grads(tensors, grad_tensors, create_graph)
    if create_graph and not _CREATE_GRAPH_WARNED:
        _warn_create_graph_cycle()
    prev = _is_checkpoint_valid()
    grad_mode._state.checkpoint_valid = inputs is None   # reentrant checkpoints need a plain backward()
    try:
        run_backward(tensors, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)
    finally:
        grad_mode._state.checkpoint_valid = prev


_CREATE_GRAPH_WARNED = False


def _warn_create_graph_cycle():
    """torch's engine warns once per process when backward() accumulates with create_graph=True."""
    global _CREATE_GRAPH_WARNED
    _CREATE_GRAPH_WARNED = True
    warn_at_caller("Using backward() with create_graph=True will create a reference cycle between the parameter and "
                   "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
                   "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
                   "your parameters to None after use to break the cycle and avoid the leak.")


@register("backward", namespaces=())
def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate gradients of this tensor into the ``.grad`` of the leaves it depends on."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
_tensor_backward.__code__ = _tensor_backward.__code__.replace(co_name="backward", co_qualname="Tensor.backward")


def _is_checkpoint_valid():
    """Whether the running backward pass may re-enter the engine (not autograd.grad, no ``inputs=``)."""
    return getattr(grad_mode._state, "checkpoint_valid", True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` with respect to ``inputs`` (returned, not accumulated); for a dict of inputs
    (``dict(model.named_parameters())``) a dict of gradients under the same keys.

    >>> import torchlike as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> torch.autograd.grad((w * w).sum(), {"w": w})
    {'w': tensor([2., 4.])}
    """
    if _prof.SUBCLASSES and _prof.SUBCLASS_HANDLER[0].backward_needs(outputs):  # __torch_dispatch__ subclasses
        return _prof.SUBCLASS_HANDLER[0].around_backward(grad, outputs, inputs, grad_outputs, retain_graph,
                                                         create_graph, only_inputs, allow_unused,
                                                         is_grads_batched, materialize_grads)
    if type(inputs) is dict:
        res = grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph, only_inputs,
                   allow_unused, is_grads_batched, materialize_grads)
        return dict(zip(inputs.keys(), res))
    outputs = _seq(outputs)
    inputs = _inputs_tuple(inputs, "grad")
    grad_outputs = _seq(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    grads = _make_grads(outputs, grad_outputs, create_graph)
    prev = _is_checkpoint_valid()
    grad_mode._state.checkpoint_valid = False
    try:
        res = run_backward(outputs, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                           capture=True, allow_unused=allow_unused, accumulate=False)
    finally:
        grad_mode._state.checkpoint_valid = prev
    if materialize_grads:
        res = tuple(_creation.zeros_like(i) if r is None else r for r, i in zip(res, inputs))
    return res


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad(..., is_grads_batched=True)``: dim 0 of each grad_output indexes independent vector-Jacobian
    products, stacked along dim 0 of each result. torch vmaps one backward; here one backward runs per row on
    the retained graph (same values; with ``create_graph`` the stack is differentiable)."""
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(g, Tensor) and tuple(g.shape[1:]) != tuple(out.shape):
            # (torch's message drops the batch dimension twice: it names grad_output[i][0].shape[1:])
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                f"{g.shape[2:]} and output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
    batch = next(g.shape[0] for g in grad_outputs if isinstance(g, Tensor))
    rows = [grad(outputs, inputs, [g[b] if isinstance(g, Tensor) else g for g in grad_outputs],
                 retain_graph=retain_graph or b < batch - 1, create_graph=create_graph, allow_unused=allow_unused)
            for b in range(batch)]
    res = tuple(None if col[0] is None else stack(col) for col in zip(*rows))
    if materialize_grads:
        res = tuple(_creation.zeros_like(i) if r is None else r for r, i in zip(res, inputs))
    return res


from .variable import Variable  # noqa: E402


def variable(*args, **kwargs):
    """Removed in torch: raises torch's RuntimeError (use ``torch.tensor``)."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")

from . import _graph_api  # noqa: E402
from .._torch_paths import home as _home, missing_function as _missing_function  # noqa: E402

# torch.autograd.graph's user API lives in _graph_api (graph.py holds the engine's Node)
_home(vars(graph), *[getattr(_graph_api, _n) for _n in _graph_api.__all__])
_missing_function(vars(graph), "set_override_stale_capture_stream", "CUDA graph capture streams")
from . import forward_ad, profiler, profiler_util  # noqa: E402,F401  (attributes of torch.autograd too)
from .grad_mode import set_multithreading_enabled  # noqa: E402,F401

# the rest of torch.autograd's public names (extras.py)
from typing import Mapping, Sequence, cast, overload  # noqa: E402,F401  (torch.autograd re-exports them)
from .extras import (DeviceType, NestedIOFunction, ProfilerActivity, ProfilerConfig, ProfilerEvent,  # noqa: E402,F401
                     ProfilerState, SavedTensor, enforce_grad_layout_policy, handle_torch_function,
                     has_torch_function, is_multithreading_enabled, is_tensor_like, is_view_replay_enabled,
                     kineto_available, register_multi_grad_hook, _MultiHandle)
from . import function as _function  # noqa: E402
_home(vars(_function), NestedIOFunction)
_home(vars(graph), register_multi_grad_hook, _MultiHandle)
