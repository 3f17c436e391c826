"""Activation checkpointing (``torch.utils.checkpoint``).

``use_reentrant=True`` (torch's default when the argument is omitted, with torch's warning) is torch's
reentrant algorithm: the forward runs without recording, and the backward re-runs it with the CPU RNG state
and autocast state of the forward restored, then back-propagates through the recomputation (one ``CheckpointFunctionBackward``
node; incompatible with ``autograd.grad`` as in torch). ``use_reentrant=False`` gives the same values and
gradients with the ops' own nodes, and runs the function again when the backward reaches it, as torch's
recomputation does, so module state it changes (BatchNorm running statistics) changes twice as in torch.

Inside ``torchlike.compile``, a checkpointed Module (or a bound method of one) becomes one op whose gradient
is taken through ``jax.checkpoint``: XLA recomputes its activations in the backward pass instead of keeping
them (real rematerialization). Eagerly, the reentrant form keeps no activations of the region either.

>>> import torchlike
>>> from torchlike.utils.checkpoint import checkpoint
>>> lin = torchlike.nn.Linear(3, 3)
>>> x = torchlike.ones(2, 3, requires_grad=True)
>>> y = checkpoint(lin, x, use_reentrant=True)
>>> type(y.grad_fn).__name__
'CheckpointFunctionBackward'
>>> y.sum().backward(); x.grad.shape
torch.Size([2, 3])
"""
from __future__ import annotations

import contextlib
import enum
import warnings

import jax

from .. import _random
from .._dispatch import dispatch
from ..autograd import _is_checkpoint_valid, backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..tensor import Tensor
from ..nn.modules.module import Module
from ..func import to_jax
from ..func._common import flatten_arrays, unflatten
from ..compile import is_compiling
from ..nn.modules.container import Sequential
from .. import amp
from ..amp.autocast_mode import get_autocast_dtype, is_autocast_enabled
from . import _pytree

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "noop_context_fn", "detach_variable",
           "check_backward_validity", "CheckpointError"]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
_SEQUENTIAL_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, "
    "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for "
    "more details on the differences between the two variants.")
_INVALID = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
            "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
            ".backward() without passing the `inputs` argument.")


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not match the forward (torch's type)."""


def noop_context_fn():
    """The default ``context_fn``: no context around the forward and the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Detached copies of the tensors in ``inputs`` keeping their ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x for x in inputs)


def check_backward_validity(inputs):
    """Warn, as torch, when no input requires grad."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


class CheckpointFunction(Function):
    """torch's reentrant checkpoint: forward without recording, recompute and backpropagate in backward."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function, ctx.preserve_rng_state = run_function, preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _random.get_rng_state()
        ctx.autocast = {d: (is_autocast_enabled(d), get_autocast_dtype(d)) for d in ("cpu", "cuda")}
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(_INVALID)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with _random.fork_rng(enabled=ctx.preserve_rng_state, devices=[]):
            if ctx.preserve_rng_state:
                _random.set_rng_state(ctx.fwd_cpu_state)
            with enable_grad(), _autocast_as(ctx.autocast):
                outputs = ctx.run_function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


@contextlib.contextmanager
def _autocast_as(states):
    """The autocast state of the forward (``{device_type: (enabled, dtype)}``), for its recomputation."""
    with contextlib.ExitStack() as stack:
        for device_type, (enabled, dtype) in states.items():
            stack.enter_context(amp.autocast(device_type=device_type, dtype=dtype, enabled=enabled))
        yield


def _owner_module(function):
    if isinstance(function, Module):
        return function
    owner = getattr(function, "__self__", None)
    return owner if isinstance(owner, Module) else None


def _remat(module, function, args, kwargs):
    """``function(*args)`` of ``module`` as one op differentiated through ``jax.checkpoint``, or None."""
    if kwargs or not all(isinstance(a, Tensor) for a in args):
        return None
    apply_fn, params = to_jax(module)
    names = list(params)
    n = len(names)
    structure = {}

    def flat(*arrays):
        leaves, structure["tree"] = flatten_arrays(apply_fn(dict(zip(names, arrays[:n])), *arrays[n:]))
        return tuple(leaves)

    fn = jax.checkpoint(flat)
    named = dict(module.named_parameters())
    outs = dispatch(fn, tuple(named[k] for k in names) + tuple(args), name="CheckpointFunctionBackward")
    outs = outs if isinstance(outs, tuple) else (outs,)
    return unflatten(structure["tree"], list(outs))


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run ``function(*args)`` keeping no activations for backward; they are recomputed (see module doc)."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    module = _owner_module(function)
    whole = module is not None and (function is module or getattr(function, "__name__", "") in ("__call__", "forward"))
    if is_compiling() and whole:
        out = _remat(module, function, args, kwargs)
        if out is not None:
            return out
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    forward_ctx, recompute_ctx = context_fn()
    if not is_grad_enabled() or is_compiling():  # (traced: no tensor hooks; the compiled graph is the region)
        with forward_ctx:
            return function(*args, **kwargs)
    rng_state = _random.get_rng_state() if preserve else None
    autocast = {d: (is_autocast_enabled(d), get_autocast_dtype(d)) for d in ("cpu", "cuda")}
    with forward_ctx:
        out = function(*args, **kwargs)
    _recompute_in_backward(out, function, args, kwargs, rng_state, autocast, recompute_ctx)
    return out


def _recompute_in_backward(out, function, args, kwargs, rng_state, autocast, recompute_ctx):
    """torch's non-reentrant checkpoint runs ``function`` again when the backward first reaches the region
    (its saved tensors are recomputed), with the forward's CPU RNG state and autocast state: module state the
    forward changes (BatchNorm's running statistics and ``num_batches_tracked``, counters, forward hooks) changes
    a second time. torchlike keeps the forward's activations, so the gradients come from them; the forward is
    run again, without recording, for those effects, when the gradient of the region's first output arrives
    (once per backward pass; torch's early stop would skip the code after the region's last saving op)."""
    outs = [t for t in _pytree.tree_leaves(out) if isinstance(t, Tensor) and t.requires_grad]
    fired = set()

    def rerun():
        with _random.fork_rng(enabled=rng_state is not None, devices=[]):
            if rng_state is not None:
                _random.set_rng_state(rng_state)
            with _autocast_as(autocast), recompute_ctx, no_grad():
                function(*args, **kwargs)

    def make_hook(i):
        def hook(grad):
            if not fired or i in fired:  # the first gradient into the region in this backward pass
                fired.clear()
                rerun()
            fired.add(i)
        return hook

    for i, t in enumerate(outs):
        t.register_hook(make_hook(i))


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: save it, or recompute it in backward."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """The ``ctx`` a selective-checkpoint policy function receives."""

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


class _SelectiveCheckpointMode:
    """The forward (caching) and recompute (cached) contexts of ``create_selective_checkpoint_contexts``.

    torchlike's non-reentrant checkpoint keeps the forward's activations (the gradients come from them; the
    function runs again in backward only for its side effects, see docs/differences.md), so neither context has
    ops to save or replay."""

    def __init__(self, policy_fn, storage):
        self.policy_fn, self.storage = policy_fn, storage

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _CachingTorchDispatchMode(_SelectiveCheckpointMode):
    pass


class _CachedTorchDispatchMode(_SelectiveCheckpointMode):
    pass


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """``context_fn`` for ``checkpoint(..., use_reentrant=False)`` choosing per op (a policy function of
    ``(ctx, op, *args, **kwargs)`` returning a ``CheckpointPolicy``, or a list of ops to save).

    >>> import functools
    >>> import torchlike as torch
    >>> from torchlike.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    >>> ctx_fn = functools.partial(create_selective_checkpoint_contexts, [torch.ops.aten.mm.default])
    >>> x = torch.ones(2, 2, requires_grad=True)
    >>> checkpoint(lambda t: (t @ t).sin(), x, use_reentrant=False, context_fn=ctx_fn).shape
    torch.Size([2, 2])
    """
    if isinstance(policy_fn_or_list, list):
        ops = policy_fn_or_list

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = {}
    return _CachingTorchDispatchMode(policy_fn, storage), _CachedTorchDispatchMode(policy_fn, storage)


__all__ += ["CheckpointPolicy", "SelectiveCheckpointContext", "create_selective_checkpoint_contexts"]


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequence of modules in ``segments`` chunks (the last chunk runs normally)."""
    if use_reentrant is None:
        warnings.warn(_SEQUENTIAL_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    size = len(functions) // segments
    end = -1

    def run(start, stop):
        def forward(x):
            for j in range(start, stop + 1):
                x = functions[j](x)
            return x
        return forward
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


__all__ += ["get_device_states", "set_device_states"]


def _accelerator_module(device_type):
    import torchlike  # lazy: the device modules (torchlike.cuda, ...) sit above this one
    return getattr(torchlike, device_type)


def get_device_states(*args):
    """The accelerator devices the tensors among ``args`` live on (indices, sorted) and each one's RNG state
    (CPU tensors contribute nothing), for :func:`set_device_states` to restore.

    >>> import torchlike
    >>> from torchlike.utils.checkpoint import get_device_states
    >>> get_device_states(torchlike.ones(2), 3)
    ([], [])
    """
    tensors = [a for a in args if isinstance(a, Tensor) and a.device.type not in ("cpu", "meta")]
    if not tensors:
        return [], []
    device_type = tensors[0].device.type
    mod = _accelerator_module(device_type)
    ids = sorted({t.get_device() for t in tensors if t.device.type == device_type})
    return ids, [mod.get_rng_state(f"{device_type}:{i}") for i in ids]


def set_device_states(devices, states, *, device_type=None) -> None:
    """Restore the RNG states ``get_device_states`` returned on their devices."""
    if not devices:
        return
    device_type = device_type or "cuda"
    mod = _accelerator_module(device_type)
    for index, state in zip(devices, states):
        mod.set_rng_state(state, f"{device_type}:{index}")
