"""A class written in several files but shaped like torch's single class.

``nn.Module`` is long enough that its methods live in parts (hooks and ``__call__``, state dicts,
conversions), each a plain class in its own file.  Were the parts bases, they would show in
``Module.__mro__`` (torch's is ``(Module, object)``) and torch's own methods would be missing from
``vars(Module)`` (``Module.__dict__["__call__"]``).  ``built_from`` copies the parts' members into the class
instead, as if they had been written in its body.

>>> class _Greeting:
...     def hello(self):
...         return "hello"
>>> @built_from(_Greeting)
... class Thing:
...     pass
>>> Thing.__mro__ == (Thing, object), "hello" in vars(Thing), Thing.hello.__qualname__
(True, True, 'Thing.hello')
"""
from __future__ import annotations

import types

__all__ = ["built_from", "own_copies"]

# what every class has of its own: not members to copy
_CLASS_OWN = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__",
                        "__firstlineno__", "__static_attributes__", "__slots__"})


def _function_of(member):
    return member.__func__ if isinstance(member, (classmethod, staticmethod)) else member


def built_from(*parts):
    """Class decorator: copy the members of ``parts`` (earlier parts win, the class's own body wins over all)
    into the class, renaming functions to ``<class>.<name>`` in the class's module, as torch's are.  The parts must not use
    zero-argument ``super()`` (its cell names the part, which instances no longer derive from)."""
    def build(cls):
        for part in parts:
            for name, member in vars(part).items():
                if name in _CLASS_OWN or name in vars(cls):
                    continue
                funcs = ([member.fget, member.fset, member.fdel] if isinstance(member, property)
                         else [_function_of(member)])
                for func in funcs:
                    if not isinstance(func, types.FunctionType):
                        continue
                    if "__class__" in func.__code__.co_freevars:
                        raise TypeError(f"{part.__name__}.{name} uses zero-argument super(): it cannot be "
                                        f"copied into {cls.__name__}")
                    if func.__qualname__ == f"{part.__qualname__}.{name}":
                        func.__qualname__ = f"{cls.__qualname__}.{name}"
                        func.__module__ = cls.__module__
                        if hasattr(func.__code__, "co_qualname"):  # (Python's argument errors name the code's)
                            func.__code__ = func.__code__.replace(co_qualname=func.__qualname__)
                    elif func.__qualname__ == f"{cls.__qualname__}.{name}" and func.__module__ == part.__module__:
                        func.__module__ = cls.__module__  # (named for the class already: ``renamed``)
                setattr(cls, name, member)
        return cls
    return build


def own_copies(*names):
    """Class decorator: give the class its own copy of the inherited methods ``names``, named
    ``<class>.<name>`` in the class's module, where torch's class defines the method in its body and ours shares
    a private base's (``Conv2d.forward``: its ``__qualname__``, ``vars(Conv2d)`` and Python's argument errors,
    "Conv2d.forward() takes 2 positional arguments but 5 were given").  A user's subclass still inherits the
    copy, as it inherits torch's."""
    def build(cls):
        for name in names:
            func = getattr(cls, name)
            qualname = f"{cls.__qualname__}.{name}"
            code = func.__code__
            if hasattr(code, "co_qualname"):
                code = code.replace(co_qualname=qualname)
            own = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
            own.__kwdefaults__ = func.__kwdefaults__
            own.__dict__.update(func.__dict__)
            own.__doc__, own.__annotations__ = func.__doc__, dict(func.__annotations__)
            own.__qualname__, own.__module__ = qualname, cls.__module__
            setattr(cls, name, own)
        return cls
    return build
