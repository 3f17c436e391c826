"""Module hooks and the call path of ``nn.Module`` (torch.nn.modules.module).

The process-wide hook tables (``register_module_forward_hook`` and friends), the per-module hook
registration methods and ``Module.__call__``: forward pre-hooks, forward, forward hooks (``always_call``
ones even when forward raised) and the backward hooks attached to the inputs and outputs.
``nn.Module`` takes these methods from :class:`_ModuleHooks`; the public names are re-exported by
``torchlike.nn.modules.module``, their home.

>>> import torchlike as torch
>>> seen = []
>>> lin = torch.nn.Linear(2, 2)
>>> _ = lin.register_forward_hook(lambda m, args, out: seen.append(tuple(out.shape)))
>>> _ = lin(torch.ones(3, 2))
>>> seen
[(3, 2)]
"""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from ...tensor import Tensor
from ._hooks import BackwardHook, RemovableHandle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]


class _WrappedHook:
    """A hook that optionally gets its module (held weakly) as first argument; picklable."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def _owner(self, when):
        owner = self.module()
        if owner is None:
            raise RuntimeError(f"You are trying to {when} the hook of a dead Module!")
        return owner

    def __call__(self, *args, **kwargs):
        if self.with_module:
            args = (self._owner("call"),) + args
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook, self.with_module = state["hook"], state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ---- hooks shared by every module (torch.nn.modules.module.register_module_*) --------------------
class _GlobalHooks:
    """The process-wide hook tables; one instance, ``_GLOBAL``."""

    def __init__(self):
        self.forward_pre = OrderedDict()
        self.forward = OrderedDict()
        self.forward_with_kwargs = OrderedDict()
        self.forward_always_called = OrderedDict()
        self.backward_pre = OrderedDict()
        self.backward = OrderedDict()
        self.backward_is_full = None  # None until the first backward hook decides the kind
        self.buffer_registration = OrderedDict()
        self.module_registration = OrderedDict()
        self.parameter_registration = OrderedDict()

    def any_call_hooks(self):
        return bool(self.forward_pre or self.forward or self.backward_pre or self.backward)


_GLOBAL = _GlobalHooks()


def _add_hook(table, hook, *, prepend=False, flags=()):
    """Store ``hook`` in ``table`` under a fresh handle id; ``flags`` are (dict, enabled) side tables
    that mark the hook (with_kwargs, always_call) and are cleaned when the handle is removed."""
    side = [d for d, _ in flags]
    handle = RemovableHandle(table, extra_dict=side or None)
    table[handle.id] = hook
    for marks, enabled in flags:
        if enabled:
            marks[handle.id] = True
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def _run_registration_hooks(table, module, name, value):
    for hook in table.values():
        replaced = hook(module, name, value)
        if replaced is not None:
            value = replaced
    return value


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs whenever any module registers a buffer; may replace it."""
    return _add_hook(_GLOBAL.buffer_registration, hook)


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs whenever any module registers a child; may replace it."""
    return _add_hook(_GLOBAL.module_registration, hook)


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs whenever any module registers a parameter; may replace it."""
    return _add_hook(_GLOBAL.parameter_registration, hook)


def register_module_forward_pre_hook(hook):
    """A forward pre-hook run for every module, before the module's own."""
    return _add_hook(_GLOBAL.forward_pre, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook run for every module, before the module's own."""
    return _add_hook(_GLOBAL.forward, hook, flags=[(_GLOBAL.forward_always_called, always_call),
                                                   (_GLOBAL.forward_with_kwargs, with_kwargs)])


def _claim_global_backward_kind(full):
    if _GLOBAL.backward_is_full is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _GLOBAL.backward_is_full = full


def register_module_backward_hook(hook):
    """A (deprecated, non-full) backward hook run for every module."""
    _claim_global_backward_kind(False)
    return _add_hook(_GLOBAL.backward, hook)


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` run for every module once its output gradients are known."""
    return _add_hook(_GLOBAL.backward_pre, hook)


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` run for every module once its input gradients are known."""
    _claim_global_backward_kind(True)
    return _add_hook(_GLOBAL.backward, hook)


_NON_FULL = ("Using non-full backward hooks on a Module that does not {} is deprecated and will be removed in future "
             "versions. This hook will be missing some of the {}. Please use register_full_backward_hook to get the "
             "documented behavior.")
_NON_FULL_NODES = ("Using a non-full backward hook when {} is deprecated and will be removed in future versions. This "
                   "hook will be missing some {}.")
_FULL_ADVICE = " Please use register_full_backward_hook to get the documented behavior."


def _warn_non_full_backward_hook(inputs, result, grad_fn):
    """torch's FutureWarning where a non-full backward hook will miss gradients (Module's
    ``_maybe_warn_non_full_backward_hook``): a result or inputs that are no Tensor or tuple of Tensors, outputs
    nested or from several nodes, or a forward of more than one node (the node's inputs not the inputs' nodes)."""
    def tensors(v, what, missing):
        if isinstance(v, Tensor):
            return (v,)
        if isinstance(v, tuple) and all(isinstance(x, Tensor) for x in v):
            return v
        warnings.warn(_NON_FULL.format(what, missing), FutureWarning, stacklevel=4)
        return None
    result = tensors(result, "return a single Tensor or a tuple of Tensors", "grad_output")
    if result is None:
        return
    inputs = tensors(inputs, "take as input a single Tensor or a tuple of Tensors", "grad_input")
    if inputs is None:
        return
    out_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and grad_fn not in out_nodes):
        warnings.warn(_NON_FULL_NODES.format("outputs are nested in python data structure", "grad_output"),
                      FutureWarning, stacklevel=3)
    elif len(out_nodes) > 1:
        warnings.warn(_NON_FULL_NODES.format("outputs are generated by different autograd Nodes", "grad_output")
                      + _FULL_ADVICE, FutureWarning, stacklevel=3)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {n[0] for n in grad_fn.next_functions}:
        warnings.warn(_NON_FULL_NODES.format("the forward contains multiple autograd Nodes", "grad_input")
                      + _FULL_ADVICE, FutureWarning, stacklevel=3)


class _ModuleHooks:
    """The hook registration methods and the call path of ``nn.Module`` (copied into Module by ``built_from``)."""

    def _claim_backward_kind(self, full):
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = full

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output) -> new grad_output or None`` runs once output gradients are known."""
        return _add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook):
        """Deprecated non-full backward hook, attached to the grad_fn of the module's output."""
        self._claim_backward_kind(False)
        return _add_hook(self._backward_hooks, hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output) -> new grad_input or None`` runs once input gradients
        are known."""
        self._claim_backward_kind(True)
        return _add_hook(self._backward_hooks, hook, prepend=prepend)

    def _get_backward_hooks(self):
        """(full hooks, non-full hooks), global ones first."""
        kinds = {True: [], False: []}
        for is_full, table in ((_GLOBAL.backward_is_full, _GLOBAL.backward),
                               (self._is_full_backward_hook, self._backward_hooks)):
            if is_full is not None:
                kinds[is_full].extend(table.values())
        return kinds[True], kinds[False]

    def _get_backward_pre_hooks(self):
        return [*_GLOBAL.backward_pre.values(), *self._backward_pre_hooks.values()]

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` -- or ``hook(module, args, kwargs)`` with ``with_kwargs`` -- runs before
        forward and may return replacement inputs."""
        return _add_hook(self._forward_pre_hooks, hook, prepend=prepend,
                         flags=[(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` -- or ``(module, args, kwargs, output)`` -- runs after forward and
        may return a replacement output. ``always_call`` runs it even when forward raised."""
        return _add_hook(self._forward_hooks, hook, prepend=prepend,
                         flags=[(self._forward_hooks_with_kwargs, with_kwargs),
                                (self._forward_hooks_always_called, always_call)])

    # ---- calling --------------------------------------------------------------------------------
    def _wrapped_call_impl(self, *args, **kwargs):
        compiled = self._compiled_call_impl
        if compiled is not None:
            return compiled(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    def _has_call_hooks(self):
        return bool(self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks
                    or self._backward_hooks or _GLOBAL.any_call_hooks())

    def _apply_forward_pre_hooks(self, args, kwargs):
        for hook_id, hook in (*_GLOBAL.forward_pre.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                replaced = hook(self, args, kwargs)
                if replaced is None:
                    continue
                if not (isinstance(replaced, tuple) and len(replaced) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {replaced}.")
                args, kwargs = replaced
            else:
                replaced = hook(self, args)
                if replaced is not None:
                    args = replaced if isinstance(replaced, tuple) else (replaced,)
        return args, kwargs

    def _forward_hook_entries(self):
        """(hook id, hook, takes kwargs, always called) for the global hooks, then this module's."""
        kwarg_marks = (self._forward_hooks_with_kwargs, _GLOBAL.forward_with_kwargs)
        always_marks = (self._forward_hooks_always_called, _GLOBAL.forward_always_called)
        for hook_id, hook in (*_GLOBAL.forward.items(), *self._forward_hooks.items()):
            yield (hook_id, hook, any(hook_id in m for m in kwarg_marks), any(hook_id in m for m in always_marks))

    def _apply_forward_hooks(self, args, kwargs, result, done):
        for hook_id, hook, takes_kwargs, always in self._forward_hook_entries():
            if always:
                done.add(hook_id)
            replaced = hook(self, args, kwargs, result) if takes_kwargs else hook(self, args, result)
            if replaced is not None:
                result = replaced
        return result

    def _apply_always_hooks_after_error(self, args, kwargs, result, done):
        """Forward raised: still run the ``always_call`` hooks that have not run; their own errors only warn."""
        pending = [(hook, hook_id in self._forward_hooks_with_kwargs)
                   for hook_id, hook in _GLOBAL.forward.items()
                   if hook_id in _GLOBAL.forward_always_called and hook_id not in done]
        pending += [(hook, hook_id in self._forward_hooks_with_kwargs)
                    for hook_id, hook in self._forward_hooks.items()
                    if hook_id in self._forward_hooks_always_called and hook_id not in done]
        for hook, takes_kwargs in pending:
            try:
                replaced = hook(self, args, kwargs, result) if takes_kwargs else hook(self, args, result)
            except Exception as err:
                warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                              f"silenced as another error was raised in forward: {err}", stacklevel=2)
                continue
            if replaced is not None:
                result = replaced

    def _attach_non_full_backward_hooks(self, args, result, hooks):
        first = result
        while not isinstance(first, Tensor):
            if isinstance(first, dict):
                first = next(v for v in first.values() if isinstance(v, Tensor))
            else:
                first = first[0]
        node = first.grad_fn
        if node is not None:
            for hook in hooks:
                node.register_hook(_WrappedHook(hook, self))
            _warn_non_full_backward_hook(args, result, node)

    def _call_impl(self, *args, **kwargs):
        if not self._has_call_hooks():
            return self.forward(*args, **kwargs)
        forward = self.forward
        result = None
        done = set()  # always_call hooks that already ran
        try:
            pre_hooks = self._get_backward_pre_hooks() if (self._backward_pre_hooks or _GLOBAL.backward_pre) else []
            full, non_full = self._get_backward_hooks() if (self._backward_hooks or _GLOBAL.backward) else ([], [])
            args, kwargs = self._apply_forward_pre_hooks(args, kwargs)
            catcher = None
            if full or pre_hooks:
                catcher = BackwardHook(self, full, pre_hooks)
                args = catcher.setup_input_hook(args)
            result = forward(*args, **kwargs)
            result = self._apply_forward_hooks(args, kwargs, result, done)
            if catcher is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                                  f"of Tensors but received {type(result)}", stacklevel=2)
                result = catcher.setup_output_hook(result)
            if non_full:
                self._attach_non_full_backward_hooks(args, result, non_full)
            return result
        except Exception:
            self._apply_always_hooks_after_error(args, kwargs, result, done)
            raise

    __call__ = _wrapped_call_impl

    def compile(self, *args, **kwargs):
        """Compile this module's call with ``torchlike.compile`` (a no-op if it is unavailable)."""
        import torchlike  # lazy: the top package (and its ``compile``) is still importing when nn loads
        compiler = getattr(torchlike, "compile", None)
        if callable(compiler):
            self._compiled_call_impl = compiler(self._call_impl, *args, **kwargs)
