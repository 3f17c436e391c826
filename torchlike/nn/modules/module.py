"""``nn.Module``: the base class of every layer.

A module keeps its state in three ordered tables that torch code habitually reads directly:
``_parameters`` (Parameters or None), ``_buffers`` (tensors or None) and ``_modules`` (children or None).
Attribute assignment routes values into the right table (see ``__setattr__``), ``state_dict`` walks the
tree to build dotted keys, and calling the module runs forward wrapped in its hooks. The observable
behaviour -- key order, reprs, error messages, hook signatures and order -- follows torch.

>>> import torchlike as torch
>>> class Net(torch.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = torch.nn.Linear(2, 1)
...     def forward(self, x):
...         return self.fc(x)
>>> list(Net().state_dict())
['fc.weight', 'fc.bias']
"""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype
from ..._device import canonical
from ...autograd import grad_mode
from ...tensor import Tensor
from ..parameter import Buffer, Parameter, is_lazy
from ._hooks import BackwardHook, RemovableHandle

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
_ISSUE_URL = "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match, either way."""

    __slots__ = ()

    def __repr__(self):
        if self.missing_keys or self.unexpected_keys:
            return super().__repr__()
        return "<All keys matched successfully>"

    __str__ = __repr__


def _addindent(s_, numSpaces):
    """Indent all lines after the first by ``numSpaces`` (whitespace-only lines become empty)."""
    head, *rest = s_.split("\n")
    if not rest:
        return s_
    pad = " " * numSpaces
    return "\n".join([head] + [pad + line if line.strip() else "" for line in rest])


def _typename(obj):
    """torch.typename: 'torch.FloatTensor' for tensors, 'module.QualName' for anything else."""
    if isinstance(obj, Tensor):
        return obj.type()
    owner = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        owner = type(obj).__module__ or ""
        name = type(obj).__qualname__
    return name if owner in ("", "builtins") else f"{owner}.{name}"


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


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from the many call forms of ``Module.to``."""
    found = {"device": None, "dtype": None, "non_blocking": False, "memory_format": None, "tensor": None}
    for key in list(kwargs):
        if key in found:
            found[key] = kwargs.pop(key)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected keyword "
                        f"{next(iter(kwargs))!r}")
    for arg in args:
        if arg is None:
            continue
        slot = ("tensor" if isinstance(arg, Tensor) else "dtype" if isinstance(arg, _dtype.dtype)
                else "non_blocking" if isinstance(arg, bool) else "device")
        found[slot] = arg
    like = found["tensor"]
    if like is not None:
        found["device"], found["dtype"] = like.device, like.dtype
    device = None if found["device"] is None else canonical(found["device"])
    return device, found["dtype"], found["non_blocking"], found["memory_format"]


def _evict(name, *tables):
    """Forget ``name`` in each dict or set given (an attribute changing kind)."""
    for table in tables:
        if name in table:
            if isinstance(table, set):
                table.discard(name)
            else:
                del table[name]


def _float_only(method):
    """Casts that leave integer/bool tensors alone (Module.float/double/half/bfloat16)."""
    return lambda t: getattr(t, method)() if t.is_floating_point() else t


# names of the per-instance hook tables, all OrderedDicts; ``__setstate__`` restores missing ones
_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")


class Module:
    """Base class for all neural network modules (torch.nn.Module).

    Subclasses assign Parameters, buffers and child modules as attributes in ``__init__`` (after
    ``super().__init__()``) and define ``forward``.
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs):
        if not self.call_super_init:
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            if args:
                raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                                f"{len(args) + 1} were given")
        # written straight into __dict__: our __setattr__ needs these tables to exist first
        state = self.__dict__
        state["training"] = True
        state["_parameters"] = {}
        state["_buffers"] = {}
        state["_non_persistent_buffers_set"] = set()
        for table in _HOOK_TABLES:
            state[table] = OrderedDict()
        state["_is_full_backward_hook"] = None
        state["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ---- registration ---------------------------------------------------------------------------
    def _check_slot_name(self, kind, name, table):
        """The name checks shared by register_buffer and register_parameter (torch's messages)."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if name not in table and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer: state saved with the module but not trained (e.g. running statistics).

        Non-persistent buffers are left out of ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_slot_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _run_registration_hooks(_GLOBAL.buffer_registration, self, name, tensor)
        (self._non_persistent_buffers_set.discard if persistent else self._non_persistent_buffers_set.add)(name)

    def register_parameter(self, name, param):
        """Add a parameter (a Parameter, or None for an absent one) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_slot_name("parameter", name, self._parameters)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                                "(torch.nn.Parameter or None required)")
            if param.grad_fn:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                                 f"created explicitly. To express '{name}' as a function of another Tensor, "
                                 "compute the value in the forward() method.")
            param = _run_registration_hooks(_GLOBAL.parameter_registration, self, name, param)
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``; it is then also an attribute."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if name not in self._modules and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _run_registration_hooks(_GLOBAL.module_registration, self, name, module)

    def register_module(self, name, module):
        """Same as :meth:`add_module`."""
        self.add_module(name, module)

    # ---- lookup by dotted path ------------------------------------------------------------------
    def get_submodule(self, target):
        """The descendant at dotted path ``target`` (``""`` is self).

        >>> import torchlike as torch
        >>> net = torch.nn.Sequential(torch.nn.Sequential(torch.nn.ReLU()))
        >>> net.get_submodule("0.0")
        ReLU()
        """
        node = self
        if target == "":
            return node
        for part in target.split("."):
            if not hasattr(node, part):
                raise AttributeError(node._get_name() + " has no attribute `" + part + "`")
            node = getattr(node, part)
            if not isinstance(node, Module):
                raise AttributeError("`" + part + "` is not an nn.Module")
        return node

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at dotted path ``target``; with ``strict`` the slot must already exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent_path, _, leaf = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        present = hasattr(parent, leaf)
        if strict and not present:
            raise AttributeError(parent._get_name() + " has no attribute `" + leaf + "`")
        if present and not isinstance(getattr(parent, leaf), Module):
            raise AttributeError("`" + leaf + "` is not an nn.Module")
        setattr(parent, leaf, module)

    def _owner_and_member(self, target):
        path, _, leaf = target.rpartition(".")
        owner = self.get_submodule(path)
        if not hasattr(owner, leaf):
            raise AttributeError(owner._get_name() + " has no attribute `" + leaf + "`")
        return owner, leaf, getattr(owner, leaf)

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (e.g. ``"fc.weight"``)."""
        _, leaf, found = self._owner_and_member(target)
        if not isinstance(found, Parameter):
            raise AttributeError("`" + leaf + "` is not an nn.Parameter")
        return found

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` (e.g. ``"bn.running_mean"``)."""
        owner, leaf, found = self._owner_and_member(target)
        if leaf not in owner._buffers:
            raise AttributeError("`" + leaf + "` is not a buffer")
        return found

    def get_extra_state(self):
        """Override (with :meth:`set_extra_state`) to save extra picklable state in ``state_dict``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. "
                           f"Please file an issue at {_ISSUE_URL} to report this bug.")

    def set_extra_state(self, state):
        """Override (with :meth:`get_extra_state`) to restore extra state from ``load_state_dict``."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. "
                           f"Please file an issue at {_ISSUE_URL} to report this bug.")

    def _has_extra_state(self, which):
        return getattr(type(self), which, None) is not getattr(Module, which)

    # ---- conversions ----------------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter, gradient and buffer ``t`` by ``fn(t)``.

        Parameters and their gradients keep their identity (optimizers hold them): the converted value
        is written into the existing object. Buffers are simply replaced.
        """
        if recurse:
            for child in self.children():
                child._apply(fn)
        for param in self._parameters.values():
            if param is not None:
                self._convert_parameter(param, fn)
        for name, buf in list(self._buffers.items()):
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    @staticmethod
    def _convert_parameter(param, fn):
        grad = param.grad
        with grad_mode.no_grad():
            converted = fn(param)
        if converted is not param:
            if is_lazy(param):
                # an uninitialised parameter has no data to replace: move its placeholder instead
                param._x, param._dev = converted._value, converted._dev
            else:
                param.data = converted
        if grad is None:
            return
        with grad_mode.no_grad():
            new_grad = fn(grad)
        if new_grad is not grad:
            param._grad = None
            grad.data = new_grad
            param._grad = grad

    def apply(self, fn):
        """Call ``fn`` on every descendant (children before parents) and then on self; returns self.

        >>> import torchlike as torch
        >>> seen = []
        >>> _ = torch.nn.Sequential(torch.nn.ReLU()).apply(lambda m: seen.append(type(m).__name__))
        >>> seen
        ['ReLU', 'Sequential']
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device=None):
        return self._apply(lambda t: t.to("xpu" if device is None else f"xpu:{device}"))

    def ipu(self, device=None):
        return self

    def mtia(self, device=None):
        return self

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(_float_only("float"))

    def double(self):
        return self._apply(_float_only("double"))

    def half(self):
        return self._apply(_float_only("half"))

    def bfloat16(self):
        return self._apply(_float_only("bfloat16"))

    def to_empty(self, *, device, recurse=True):
        """Move to ``device`` without copying values (the new storage is uninitialised)."""
        from ..._creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``...

        Only floating/complex tensors change dtype; integer buffers keep theirs.

        >>> import torchlike as torch
        >>> torch.nn.Linear(2, 2).to(torch.float64).weight.dtype
        torch.float64
        """
        device, dtype, _, _ = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design may change, "
                    "and some modules might not work as expected when using complex tensors as parameters or "
                    f"buffers. Please file an issue at {_ISSUE_URL} if a complex module does not work as "
                    "expected.", stacklevel=2)

        def move(t):
            keeps_dtype = not (t.is_floating_point() or t.is_complex())
            return t.to(device, None if keeps_dtype else dtype)
        return self._apply(move)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # ---- hook registration ----------------------------------------------------------------------
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

    def _attach_non_full_backward_hooks(self, result, hooks):
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
                self._attach_non_full_backward_hooks(result, non_full)
            return result
        except Exception:
            self._apply_always_hooks_after_error(args, kwargs, result, done)
            raise

    __call__ = _wrapped_call_impl

    # ---- pickling -------------------------------------------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled by older code may lack the newer tables
        for table in _HOOK_TABLES:
            self.__dict__.setdefault(table, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ---- attribute protocol ---------------------------------------------------------------------
    def __getattr__(self, name):
        # only reached when normal lookup failed: look in the three tables
        state = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            entries = state.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        state = self.__dict__
        params, children, buffers = state.get("_parameters"), state.get("_modules"), state.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _evict(name, state, buffers, children, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if children is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _evict(name, state, params, buffers, self._non_persistent_buffers_set)
            children[name] = _run_registration_hooks(_GLOBAL.module_registration, self, name, value)
        elif children is not None and name in children:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            children[name] = value
        elif isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            keep = value.persistent if isinstance(value, Buffer) else name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, keep)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = {*dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers}
        # positional children ("0", "1", ...) are not valid attribute names
        return sorted(n for n in names if not n[0].isdigit())

    # ---- state_dict -----------------------------------------------------------------------------
    def _register_state_dict_hook(self, hook):
        """Private post-hook: may return a new state dict (torch's legacy protocol)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        return _add_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after state_dict; must return None."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before state_dict."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Write this module's own (non-child) entries into ``destination``."""
        def entry(t):
            return t if keep_vars else t.detach()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = entry(param)
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = entry(buf)
        if self._has_extra_state("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of parameters and persistent buffers under dotted names, in registration order.

        Tensors are detached unless ``keep_vars``. ``_metadata`` holds each submodule's ``_version``.
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to https://pytorch.org"
                          "/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
                          FutureWarning, stacklevel=2)
            # the old positional order was (destination, prefix, keep_vars); explicit keywords win
            legacy = list(args) + [None] * (3 - len(args))
            destination = legacy[0] if destination is None else destination
            prefix = legacy[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = legacy[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        my_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = my_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            returned = hook(self, destination, prefix, my_metadata)
            if getattr(hook, "_from_public_api", False):
                if returned is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif returned is not None:
                destination = returned
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """Private pre-hook ``hook([module,] state_dict, prefix, local_metadata, strict, missing, unexpected,
        error_msgs)``, run before this module loads its own entries."""
        return _add_hook(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, error_msgs)``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after load_state_dict; may edit the key lists in place."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def _load_one(self, name, current, incoming, key, assign, error_msgs):
        """Copy (or with ``assign``, install) ``incoming`` as this module's ``name``; problems go to
        ``error_msgs``."""
        if not isinstance(incoming, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(incoming)}")
            return
        lazy = is_lazy(current)
        if not lazy:
            # a one-element vector may be loaded into a scalar (old checkpoints)
            if current.ndim == 0 and incoming.ndim == 1 and incoming.shape[0] == 1:
                incoming = incoming[0]
            if incoming.shape != current.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {incoming.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
                return
        try:
            with grad_mode.no_grad():
                if assign:
                    if isinstance(current, Parameter):
                        if isinstance(incoming, Parameter):
                            incoming.requires_grad_(current.requires_grad)
                        else:
                            incoming = Parameter(incoming, requires_grad=current.requires_grad)
                    setattr(self, name, incoming)
                    return
                if lazy:
                    if is_lazy(incoming):
                        return  # nothing known yet on either side (torch's copy_ of two empties)
                    current.materialize(incoming.shape, dtype=incoming.dtype)
                current.copy_(incoming)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{current.size()} and whose dimensions in the checkpoint are {incoming.size()}, "
                              f"an exception occurred : {ex.args}.")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Load this module's own entries (not its children's) from ``state_dict``."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        own = {name: t for name, t in self._parameters.items() if t is not None}
        own.update((name, t) for name, t in self._buffers.items()
                   if t is not None and name not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in own.items():
            key = prefix + name
            if key in state_dict:
                self._load_one(name, current, state_dict[key], key, assign, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._has_extra_state("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if not strict:
            return
        for key in state_dict:
            if not key.startswith(prefix) or key == extra_key:
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            known = self._modules if dot else own
            if head not in known:
                unexpected_keys.append(key)

    def _load_tree(self, state_dict, prefix, metadata, assign, found):
        """Load self then each child (with the entries under its prefix); post-hooks run bottom-up."""
        missing, unexpected, errors = found
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        self._load_from_state_dict(state_dict, prefix, local_metadata, True, missing, unexpected, errors)
        for name, child in self._modules.items():
            if child is None:
                continue
            child_prefix = f"{prefix}{name}."
            subset = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            child._load_tree(subset, child_prefix, metadata, assign, found)
        report = _IncompatibleKeys(missing, unexpected)
        for hook in self._load_state_dict_post_hooks.values():
            if hook(self, report) is not None:
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                     "expected to return new values, if incompatible_keys need to be modified, "
                                     "it should be done inplace.")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module, in place.

        With ``strict`` missing or unexpected keys raise; returns ``(missing_keys, unexpected_keys)``.
        ``assign=True`` installs the given tensors instead of copying into the existing ones.

        >>> import torchlike as torch
        >>> a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        entries = OrderedDict(state_dict)
        if metadata is not None:
            entries._metadata = metadata
        missing, unexpected, errors = [], [], []
        self._load_tree(entries, "", metadata, assign, (missing, unexpected, errors))
        if strict:
            # these lead the message, missing keys first
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- iteration ------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, member) over self (and descendants when ``recurse``); None members skipped and
        shared members reported once unless ``remove_duplicate`` is False."""
        seen = set()
        owners = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse
                  else [(prefix, self)])
        for owner_name, owner in owners:
            for name, member in get_members_fn(owner):
                if member is None or id(member) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(member))
                yield (f"{owner_name}.{name}" if owner_name else name), member

    def parameters(self, recurse=True):
        """Iterator over parameters (a shared parameter once)."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over (dotted name, parameter)."""
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """Iterator over buffers (persistent or not)."""
        return (b for _, b in self.named_buffers(recurse=recurse))

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over (dotted name, buffer)."""
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def children(self):
        """Iterator over the direct children (each once)."""
        return (m for _, m in self.named_children())

    def named_children(self):
        """Iterator over (name, direct child), each child once."""
        seen = set()
        for name, child in self._modules.items():
            if child is None or id(child) in seen:
                continue
            seen.add(id(child))
            yield name, child

    def modules(self, remove_duplicate=True):
        """Iterator over self and every descendant, pre-order."""
        return (m for _, m in self.named_modules(remove_duplicate=remove_duplicate))

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterator over (dotted name, module) for self and every descendant, pre-order."""
        memo = set() if memo is None else memo
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    # ---- modes and gradients --------------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (``mode=False``: evaluation) here and in every descendant; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self):
        """Same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Switch gradient tracking of every parameter; returns self."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset parameter gradients: to None (default, as torch >= 2.0) or to zeros in place."""
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
                continue
            if grad.grad_fn is None:
                grad.requires_grad_(False)
            else:
                grad.detach_()
            grad.zero_()

    # ---- repr -----------------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """Extra text inside this module's repr; override in layers (e.g. ``in_features=2, ...``)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(child), 2) for name, child in self._modules.items()]
        if not extra_lines and not child_lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        body = "\n  ".join(extra_lines + child_lines)
        return f"{self._get_name()}(\n  {body}\n)"

    def _replicate_for_data_parallel(self):
        """A shallow copy sharing buffers and children, with an empty parameter table (DataParallel)."""
        replica = type(self).__new__(type(self))
        replica.__dict__ = dict(self.__dict__)
        replica._parameters = {}
        replica._buffers = dict(replica._buffers)
        replica._modules = dict(replica._modules)
        replica._is_replica = True
        return replica

    def compile(self, *args, **kwargs):
        """Compile this module's call with ``torchlike.compile`` (a no-op if it is unavailable)."""
        import torchlike
        compiler = getattr(torchlike, "compile", None)
        if callable(compiler):
            self._compiled_call_impl = compiler(self._call_impl, *args, **kwargs)
