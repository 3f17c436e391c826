"""``state_dict`` and ``load_state_dict`` of ``nn.Module`` (torch.nn.modules.module), with their hooks.

``state_dict`` walks the module tree and collects parameters and persistent buffers under dotted
keys, in registration order; ``load_state_dict`` copies (or with ``assign`` installs) them back and
reports the keys it could not match.  ``nn.Module`` takes these methods from :class:`_ModuleState`.

>>> import torchlike as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(2, 1))
>>> list(net.state_dict())
['0.weight', '0.bias']
>>> net.load_state_dict({"0.weight": torch.ones(1, 2)}, strict=False)
_IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=[])
"""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ...autograd import grad_mode
from ...tensor import Tensor
from ..parameter import Parameter, is_lazy
from ._module_hooks import _add_hook, _WrappedHook

__all__: list = []

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


class _ModuleState:
    """The state-dict methods of ``nn.Module`` (copied into Module by ``built_from``)."""

    def get_extra_state(self):
        """Override (with :meth:`set_extra_state`) to save extra picklable state in ``state_dict``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. "
                           f"Please file an issue at {_ISSUE_URL} to report this bug.")

    def set_extra_state(self, state):
        """Override (with :meth:`get_extra_state`) to restore extra state from ``load_state_dict``."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. "
                           f"Please file an issue at {_ISSUE_URL} to report this bug.")

    def _has_extra_state(self, which):
        return getattr(type(self), which, None) is not getattr(_ModuleState, which)

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
