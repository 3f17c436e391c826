"""Star-import helper for the nn packages: several files are written independently, so a missing
submodule is skipped (and a broken one only warns) instead of breaking ``import torchlike``."""
from __future__ import annotations

import importlib
import warnings


def star_import(package: str, names: list, namespace: dict, all_list: list):
    """``from .<name> import *`` for each name in ``names`` into ``namespace`` (a package's globals)."""
    for modname in names:
        full = f"{package}.{modname}"
        try:
            mod = importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name == full:
                continue
            warnings.warn(f"torchlike: could not import {full}: {e!r}", ImportWarning)
            continue
        except ImportError as e:
            warnings.warn(f"torchlike: could not import {full}: {e!r}", ImportWarning)
            continue
        public = getattr(mod, "__all__", None)
        if public is None:
            public = [n for n in vars(mod) if not n.startswith("_")]
        for n in public:
            namespace[n] = getattr(mod, n)
            if n not in all_list:
                all_list.append(n)
