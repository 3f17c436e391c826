"""torch._jit_internal's helpers that code outside TorchScript calls: ``boolean_dispatch``, which picks one of two
functions by a boolean argument (``F.max_pool2d``'s ``return_indices`` in torch), and its registry;
``is_scripting`` (never, here) and ``_copy_to_script_wrapper`` (pyro's modules decorate with it; it only records
the function).  Its other names raise NotImplementedError.

>>> from torchlike._jit_internal import boolean_dispatch
>>> f = boolean_dispatch("twice", 1, False, lambda x, twice=True: 2 * x, lambda x, twice=False: x, None, "f")
>>> f(3), f(3, True), f(3, twice=True)
(3, 6, 6)
"""
from __future__ import annotations

from ._missing import module_getattr

__all__ = ["boolean_dispatch", "boolean_dispatched", "is_scripting"]

boolean_dispatched: dict = {}  # the dispatching function -> what it dispatches between


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls ``if_true`` or ``if_false`` by the argument ``arg_name`` (keyword) or at position
    ``arg_index`` (``default`` when absent); its docstring is whichever of the two has one."""
    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    docs = (if_true.__doc__, if_false.__doc__)
    if None not in docs:
        raise RuntimeError("only one function can have a docstring")
    doc = docs[0] if docs[0] is not None else docs[1]
    if_true.__doc__ = if_false.__doc__ = doc
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}
    return fn


def is_scripting() -> bool:
    """False: nothing runs under TorchScript's compiler here."""
    return False


_copy_to_script_wrapper_fns: dict = {}


def _copy_to_script_wrapper(fn):
    """Record ``fn`` (a method TorchScript would copy to a script module's wrapper) and return it unchanged."""
    _copy_to_script_wrapper_fns[fn] = None
    return fn


__getattr__ = module_getattr("torch._jit_internal")
