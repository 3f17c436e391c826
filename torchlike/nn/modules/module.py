"""``nn.Module``: the base class of every layer.

A module keeps its state in three ordered tables that torch code habitually reads directly:
``_parameters`` (Parameters or None), ``_buffers`` (tensors or None) and ``_modules`` (children or None).
Attribute assignment routes values into the right table (see ``__setattr__``), ``state_dict`` walks the
tree to build dotted keys, and calling the module runs forward wrapped in its hooks. The observable
behaviour -- key order, reprs, error messages, hook signatures and order -- follows torch.

``Module`` is one class (torch's ``torch.nn.modules.module.Module``); its methods are grouped by subject:
this file holds construction, registration, lookup, attribute protocol, iteration, modes and repr;
hooks and the call path come from ``_module_hooks``, ``state_dict``/``load_state_dict`` from
``_module_state``, ``to``/``cuda``/``float``... from ``_module_convert`` (private bases of Module).

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

from collections import OrderedDict

from ..._class_parts import built_from
from ..._torch_paths import home
from ...tensor import Tensor
from ..parameter import Buffer, Parameter
from ._module_convert import _ModuleConversions
from ._module_hooks import (_GLOBAL, _ModuleHooks, _run_registration_hooks, _WrappedHook,
                            register_module_backward_hook, register_module_buffer_registration_hook,
                            register_module_forward_hook, register_module_forward_pre_hook,
                            register_module_full_backward_hook, register_module_full_backward_pre_hook,
                            register_module_module_registration_hook,
                            register_module_parameter_registration_hook)
from ._module_state import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys, _ModuleState  # noqa: F401  (torch's name)

# torch's module-level global hook tables, under torch's names (libraries read them): _GLOBAL's own dicts
_global_forward_pre_hooks = _GLOBAL.forward_pre
_global_forward_hooks = _GLOBAL.forward
_global_forward_hooks_with_kwargs = _GLOBAL.forward_with_kwargs
_global_forward_hooks_always_called = _GLOBAL.forward_always_called
_global_backward_pre_hooks = _GLOBAL.backward_pre
_global_backward_hooks = _GLOBAL.backward
_global_buffer_registration_hooks = _GLOBAL.buffer_registration
_global_module_registration_hooks = _GLOBAL.module_registration
_global_parameter_registration_hooks = _GLOBAL.parameter_registration

# callables (module, name) -> value, raising AttributeError when they have none, asked by Module.__getattr__ after
# the three tables: torch.jit gives the modules it traced or scripted their TorchScript methods (``save``)
attribute_fallbacks = []

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]


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


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _evict(name, *tables):
    """Forget ``name`` in each dict or set given (an attribute changing kind)."""
    for table in tables:
        if name in table:
            if isinstance(table, set):
                table.discard(name)
            else:
                del table[name]


# names of the per-instance hook tables, all OrderedDicts; ``__setstate__`` restores missing ones
_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")


@built_from(_ModuleHooks, _ModuleState, _ModuleConversions)
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
        for fallback in attribute_fallbacks:
            try:
                return fallback(self, name)
            except AttributeError:
                pass
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
                yield owner_name + ("." if owner_name else "") + name, member  # (torch's +: a bad prefix's TypeError)

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
                yield from child.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

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


# defined in the private files above, homed here as in torch (pickles name them by this path)
home(globals(), _IncompatibleKeys, _WrappedHook, register_module_backward_hook,
     register_module_buffer_registration_hook, register_module_forward_hook, register_module_forward_pre_hook,
     register_module_full_backward_hook, register_module_full_backward_pre_hook,
     register_module_module_registration_hook, register_module_parameter_registration_hook)
