"""Write ``torchlike/_torch_module_names.py``: the module names of the installed torch (the oracle), which the
drop-in runner's import finder reads to tell a module torch has (torchlike's module, or a stub where torchlike
lacks it) from one torch does not have (ModuleNotFoundError, as under torch).

    python tools/torch_module_names.py   # with torch 2.13.0 installed

The names are the installed package's files (``*.py``, packages, compiled extensions), the modules
``import torch`` registers without a file (``torch._C._nn``, ``torch.ops``, ...), and what
``pkgutil.walk_packages`` finds below packages that are another package under a second name
(``torch.distributed._shard.checkpoint`` is ``torch.distributed.checkpoint``: those are ALIASES). The walk
imports torch's packages (not torch.testing._internal, torch's test suite).
"""
import collections
import os
import pkgutil
import sys
import textwrap

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "torchlike", "_torch_module_names.py")


def torch_module_names():
    root = os.path.dirname(torch.__file__)
    names = {"torch"}
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, os.path.dirname(root)).replace(os.sep, ".")
        if d != root and "__init__.py" not in files:  # not a package: nothing below it imports
            dirs[:] = []
            continue
        names.add(rel)
        for f in files:
            if f.endswith(".py") and f != "__init__.py":
                names.add(rel + "." + f[:-3])
            elif f.endswith((".so", ".pyd")):
                names.add(rel + "." + f.split(".")[0])
    packages = {n for n in names if os.path.isfile(os.path.join(os.path.dirname(root), *n.split("."),
                                                                   "__init__.py"))}
    for m in pkgutil.walk_packages(torch.__path__, "torch.", onerror=lambda name: None):
        if not m.name.startswith("torch.testing._internal"):
            names.add(m.name)
            if m.ispkg:
                packages.add(m.name)
    names |= {n for n in sys.modules if n.startswith("torch.")}
    packages |= {n for n in names if hasattr(sys.modules.get(n), "__path__")}
    aliases = {}
    for n in sorted(names):
        mod = sys.modules.get(n)
        own = getattr(mod, "__name__", n)
        if mod is not None and isinstance(own, str) and own != n and sys.modules.get(own) is mod:
            aliases[n] = own  # torch puts another module under this name
    return names, packages, aliases


def render(names, packages, aliases):
    children = collections.defaultdict(list)
    for n in sorted(names):
        if n != "torch":
            parent, _, child = n.rpartition(".")
            children[parent].append(child)
    for p in packages:
        children.setdefault(p, [])
    lines = []
    for parent in sorted(children):
        body = textwrap.wrap(" ".join(children[parent]), 116 - len(parent), break_on_hyphens=False) or [""]
        lines.append(f"{parent}: {body[0]}".rstrip())
        lines += [f"  {b}" for b in body[1:]]
    tree = "\n".join(lines)
    alias_lines = "".join(f"    {k!r}: {v!r},\n" for k, v in sorted(aliases.items()))
    return (f'"""The module names of torch {torch.__version__.split("+")[0]} ({len(names)}), written by '
            f'tools/torch_module_names.py from the\ninstalled torch: the drop-in runner\'s finder imports a '
            f'``torch.*`` name only if torch has it (see ``_runner``).\n\nEach line is a package, then its direct '
            f'submodules\n(every package has a line); an indented line continues the one above. ALIASES: names under '
            f'which torch puts\nanother of its modules.\n"""\n\n'
            f'TORCH_VERSION = "{torch.__version__.split("+")[0]}"\n\nALIASES = {{\n{alias_lines}}}\n\n'
            f'TREE = """\n{tree}\n"""\n')


if __name__ == "__main__":
    with open(OUT, "w") as f:
        f.write(render(*torch_module_names()))
    print(OUT)
