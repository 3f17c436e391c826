"""torch's import paths for torchlike objects.

Pickles and ``safe_globals`` lists name classes by ``__module__.__qualname__``, so every public
class/function sits at torch's module path (``torchlike.nn.modules.activation.MultiheadAttention``
mirrors ``torch.nn.modules.activation.MultiheadAttention``) whatever file defines it.  ``home`` moves
objects into the module torch defines them in; ``mirror`` creates, for a package whose classes live in
a few files, the per-class modules torch has (``torch.distributions.normal``).

>>> import torchlike
>>> torchlike.nn.MultiheadAttention.__module__
'torchlike.nn.modules.activation'
>>> import torchlike.distributions.normal as m
>>> m.Normal is torchlike.distributions.Normal, m.Normal.__module__
(True, 'torchlike.distributions.normal')
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from ._missing import MissingAPI

__all__ = ["home", "mirror", "on_lazy_import", "lazy_import"]

# called (no arguments) after a torchlike module is loaded on first use (``torch.utils.data``,
# ``torch.distributions``); the drop-in runner names the new classes by torch's paths there
on_lazy_import: list = []


def lazy_import(name):
    """``importlib.import_module(name)`` for a module loaded on first attribute use, then the hooks."""
    mod = importlib.import_module(name)
    for hook in on_lazy_import:
        hook()
    return mod


def home(namespace, *objs):
    """Make ``namespace`` (a module's ``globals()``) the home of ``objs``: export them and set ``__module__``."""
    for obj in objs:
        obj.__module__ = namespace["__name__"]
        namespace[obj.__name__] = obj
        public = namespace.get("__all__")
        if isinstance(public, list) and obj.__name__ not in public and not obj.__name__.startswith("_"):
            public.append(obj.__name__)


def mirror(package, table):
    """Create ``package.<sub>`` modules holding ``table[sub]``'s objects (homed there), unless a file exists.

    ``package`` is the package module; ``table`` maps a submodule name to the objects torch defines in
    it.  Objects already homed elsewhere by a real file keep that home.
    """
    for sub, objs in table.items():
        full = f"{vars(package)['__name__']}.{sub}"  # (its own name: under the runner the attribute is torch's)
        mod = sys.modules.get(full)
        if mod is None and importlib.util.find_spec(full) is not None:
            mod = importlib.import_module(full)
        if mod is None:
            mod = types.ModuleType(full, f"torch's {full.replace('torchlike', 'torch', 1)} path (see "
                                         f"torchlike._torch_paths).")
            mod.__all__ = []
            mod.__package__ = vars(package)["__name__"]
            sys.modules[full] = mod
            setattr(package, sub, mod)
        home(vars(mod), *objs)


def _missing_message(torch_path, why):
    return f"{torch_path} is not implemented in torchlike ({why}); see docs/differences.md"


def missing_function(namespace, name, why):
    """A function ``name`` in ``namespace`` that raises torch-path-naming NotImplementedError when called."""
    torch_path = "torch" + namespace["__name__"][len("torchlike"):] + "." + name

    def missing(*args, **kwargs):
        raise MissingAPI(_missing_message(torch_path, why))
    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = f"Not implemented in torchlike ({why}): raises NotImplementedError; see docs/differences.md."
    home(namespace, missing)
    return missing


def missing_class(namespace, name, why, bases=(object,)):
    """A class ``name`` in ``namespace`` whose construction raises NotImplementedError (see ``missing_function``)."""
    torch_path = "torch" + namespace["__name__"][len("torchlike"):] + "." + name

    def __init__(self, *args, **kwargs):
        raise MissingAPI(_missing_message(torch_path, why))
    cls = type(name, bases, {"__init__": __init__, "__doc__": f"Not implemented in torchlike ({why}): "
                             "constructing it raises NotImplementedError; see docs/differences.md."})
    home(namespace, cls)
    return cls
