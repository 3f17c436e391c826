"""Star-import helper for the nn packages: ``torchlike.nn.modules`` and ``torchlike.nn.functional`` list
their family files and re-export each one's public names.

A family that fails to import fails ``import torchlike`` with the real error (an import cycle or a bad
name is found at once, not as missing classes later); a name in the list with no file is an error too.
"""
from __future__ import annotations

import importlib

__all__ = ["star_import"]


def star_import(package: str, names: list, namespace: dict, all_list: list, skip=None):
    """``from .<name> import *`` for each name in ``names`` into ``namespace`` (a package's globals); a name
    for which ``skip(name)`` is true goes in ``all_list`` only (the op table's install puts it in the package).

    >>> ns, names = {}, []
    >>> star_import("torchlike.nn.modules", ["flatten"], ns, names)
    >>> names
    ['Flatten', 'Unflatten']
    """
    for modname in names:
        mod = importlib.import_module(f"{package}.{modname}")  # raises the family's own ImportError
        public = getattr(mod, "__all__", None)
        if public is None:
            public = [n for n in vars(mod) if not n.startswith("_")]
        for n in public:
            if skip is None or not skip(n):
                namespace[n] = getattr(mod, n)
            if n not in all_list:
                all_list.append(n)
