"""The ``set_flags`` / ``flags`` pair every ``torch.backends.<lib>`` module has, over that module's globals, and
torch's global-flags freeze (``torch.backends.disable_global_flags``: bare assignment to a flag then raises)."""
import sys
import types
from contextlib import contextmanager

_state = {"allow_mutation": True}


def flags_frozen():
    """Whether ``disable_global_flags`` forbids bare assignment to the backend flags, as in torch."""
    return not _state["allow_mutation"]


def disable_global_flags():
    """Forbid bare assignment to ``torch.backends.<lib>`` flags (their ``flags()`` context managers still work)."""
    _state["allow_mutation"] = False


@contextmanager
def allow_nonbracketed_mutation():
    """Allow bare flag assignment for a ``with`` block (torch's ``torch.backends.__allow_nonbracketed_mutation``)."""
    old = _state["allow_mutation"]
    _state["allow_mutation"] = True
    try:
        yield
    finally:
        _state["allow_mutation"] = old


class _FlagModule(types.ModuleType):
    """A backend module whose flags, like torch's ``ContextProp`` ones, refuse bare assignment once frozen."""

    _flag_names = ()

    def __setattr__(self, name, value):
        if name in self._flag_names and flags_frozen():
            shown = self.__name__.replace("torchlike", "torch", 1)
            raise RuntimeError(f"not allowed to set {shown} flags after disable_global_flags; "
                               "please use flags() context manager instead")
        super().__setattr__(name, value)


def flag_functions(namespace, flags_defaults, ignored=()):
    """``(set_flags, flags)`` for the module whose globals are ``namespace``.

    ``set_flags(*values)`` sets the globals named by ``flags_defaults`` in order (a None value leaves one as it
    is, and so does one in ``ignored``: torch's cudnn ``benchmark_limit`` without CUDA) and returns their
    previous values; ``flags(**values)`` sets them for a ``with`` block, an omitted one taking torch's default
    in ``flags_defaults``.

    >>> from torchlike.backends import cudnn
    >>> with cudnn.flags(enabled=False):
    ...     cudnn.enabled
    False
    >>> cudnn.enabled
    True
    """
    names = tuple(flags_defaults)
    module = sys.modules.get(namespace["__name__"])
    if module is not None and type(module) is types.ModuleType:
        module.__class__ = type("FlagModule", (_FlagModule,), {"_flag_names": names})

    def set_flags(*values):
        orig = tuple(namespace[n] for n in names)
        for name, value in zip(names, values):
            if value is not None and name not in ignored:
                namespace[name] = value
        return orig

    def flags(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"flags() takes from 0 to {len(names)} positional arguments but {len(args)} were given")
        values = dict(flags_defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"flags() got an unexpected keyword argument '{key}'")
            values[key] = value
        return _flags_context(set_flags, [values[n] for n in names])

    return set_flags, flags


@contextmanager
def _flags_context(set_flags, values):
    orig = set_flags(*values)
    try:
        yield
    finally:
        set_flags(*orig)
