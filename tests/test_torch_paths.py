"""Every public class/function of torch's nn.modules.*, nn.utils.*, optim.*, utils.data.*,
distributions.*, autograd.* and amp.* modules exists in torchlike at the mirrored path
(``torch.X.Y.Name`` -> ``torchlike.X.Y.Name``) with the mirrored ``__module__`` and torch's
``__qualname__`` — pickles and ``safe_globals`` lists name objects that way.

The oracle's module tree is walked (public modules, names defined there: ``obj.__module__ == modname``).
``EXCLUDED`` lists what torchlike deliberately does not mirror, with the reason; ``NOT_YET`` lists the
names still missing, as strict xfails (implementing one makes its xfail fail until it is removed).
``test_report`` prints the per-module counts.
"""
import collections
import importlib
import inspect
import pkgutil
import re
import types
import typing

import pytest
import torch  # (the oracle whose tree is walked)
import torchlike

ROOTS = ["torch.nn.modules", "torch.nn.utils", "torch.optim", "torch.utils.data", "torch.distributions",
         "torch.autograd", "torch.amp"]

# module prefixes (and single names) torchlike does not mirror, and why
EXCLUDED_MODULES = {
    "torch.utils.data.datapipes": "DataPipes are deprecated in torch (torchdata) and torchlike has none",
    "torch.utils.data.graph": "walks DataPipe graphs only (no DataPipes in torchlike)",
    "torch.utils.data.graph_settings": "configures DataPipe graphs only (no DataPipes in torchlike)",
}
EXCLUDED = {
    "torch.autograd.profiler.emit_nvtx": "NVIDIA NVTX ranges (CUDA tooling)",
    "torch.autograd.profiler.emit_itt": "Intel ITT ranges (VTune tooling)",
    "torch.autograd.profiler.load_nvprof": "reads nvprof (CUDA profiler) traces",
    "torch.autograd.profiler.parse_nvprof_trace": "reads nvprof (CUDA profiler) traces",
}

# still missing in torchlike (reported; see the final report of issue 9)
NOT_YET = {}  # every name the walk covers exists at torch's path (was 31 missing: distributions)


def _excluded_module(modname):
    return any(modname == m or modname.startswith(m + ".") for m in EXCLUDED_MODULES)


def _walked_modules():
    """The public, mirrored torch modules under ROOTS."""
    for root in ROOTS:
        pkg = importlib.import_module(root)
        for modname in [root] + [m.name for m in pkgutil.walk_packages(pkg.__path__, root + ".")]:
            if not (any(p.startswith("_") for p in modname.split(".")) or _excluded_module(modname)):
                yield modname


def _torch_names():
    """{torch module name: [(name, qualname)]} for the public classes/functions each defines."""
    out = collections.OrderedDict()
    for modname in _walked_modules():
        mod = importlib.import_module(modname)
        names = [(n, o.__qualname__) for n, o in vars(mod).items()
                 if not n.startswith("_") and (inspect.isclass(o) or inspect.isfunction(o))
                 and getattr(o, "__module__", None) == modname and f"{modname}.{n}" not in EXCLUDED]
        if names:
            out[modname] = names
    return out


TORCH_NAMES = _torch_names()


def _problems(modname):
    """What is missing or misnamed in torchlike for torch module ``modname``."""
    mirrored = "torchlike" + modname[len("torch"):]
    try:
        mod = importlib.import_module(mirrored)
    except ImportError:
        return [f"{mirrored}.{name}: missing (no module {mirrored})" for name, _ in TORCH_NAMES[modname]]
    out = []
    for name, qual in TORCH_NAMES[modname]:
        obj = getattr(mod, name, None)
        if obj is None:
            out.append(f"{mirrored}.{name}: missing")
        elif getattr(obj, "__module__", None) != mirrored or getattr(obj, "__qualname__", None) != qual:
            out.append(f"{mirrored}.{name}: __module__/__qualname__ is {getattr(obj, '__module__', None)}."
                       f"{getattr(obj, '__qualname__', None)}, torch's is {modname}.{qual}")
    return out


def _params():
    for modname in TORCH_NAMES:
        marks = []
        if modname in NOT_YET:
            marks = [pytest.mark.xfail(strict=True, reason=f"not implemented yet: {', '.join(NOT_YET[modname])}")]
        yield pytest.param(modname, marks=marks, id=modname)


@pytest.mark.parametrize("modname", list(_params()))
def test_torch_path_mirrored(modname):
    problems = _problems(modname)
    assert problems == [], "\n".join(problems)


def test_not_yet_lists_exactly_the_missing_names():
    for modname, names in NOT_YET.items():
        missing = sorted(p.split(": ")[0].rsplit(".", 1)[1] for p in _problems(modname))
        assert missing == sorted(names), modname


def test_report(capsys):
    total = sum(len(v) for v in TORCH_NAMES.values())
    bad = {m: _problems(m) for m in TORCH_NAMES}
    n_bad = sum(len(v) for v in bad.values())
    with capsys.disabled():
        print(f"\ntorch paths: {total - n_bad}/{total} public names mirrored; excluded {len(EXCLUDED)} names and "
              f"{len(EXCLUDED_MODULES)} module trees")
        for m, v in bad.items():
            for p in v:
                print("  ", p)
    assert n_bad == sum(len(v) for v in NOT_YET.values())


def _is_type_alias(obj):
    """A typing alias such as ``Union[...]``, ``dict[str, Any]`` or ``int | float`` (TypeVars left out: they
    only parametrize torch's own signatures)."""
    return (isinstance(obj, (typing._GenericAlias, types.GenericAlias, types.UnionType))
            and not isinstance(obj, typing.TypeVar))


def _torch_type_aliases():
    """{torch module: the public type aliases it defines (assigns at top level, not imports)}."""
    out = {}
    for modname in ["torch.serialization", "torch.hub", "torch.types"] + list(_walked_modules()):
        mod = importlib.import_module(modname)
        source = inspect.getsource(mod)
        names = sorted(n for n, o in vars(mod).items() if not n.startswith("_") and n[:1].isupper()
                       and _is_type_alias(o) and re.search(rf"^{n}(: TypeAlias)? =", source, re.M))
        if names:
            out[modname] = names
    return out


@pytest.mark.parametrize("modname, names", sorted(_torch_type_aliases().items()))
def test_type_aliases_at_torchs_paths(modname, names):
    # libraries import torch's annotation aliases at import time: pyro ``from torch.serialization import
    # MAP_LOCATION``, optimizer packages ``from torch.optim.optimizer import ParamsT``
    mod = importlib.import_module("torchlike" + modname[len("torch"):])
    assert [n for n in names if not hasattr(mod, n)] == []


def _shadowed_torch_modules():
    """torch modules ``torch.P.M`` whose package P binds the name M to something else, a function or object
    (``torch.multiprocessing.spawn``, ``torch._higher_order_ops.scan``, ``torch.cuda.nvtx``): when torchlike's P
    binds M too, a program's ``from torch.P.M import X`` needs torchlike's P.M to be a module all the same."""
    import os
    root = os.path.dirname(torch.__file__)
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if "__pycache__" in rel or rel.split(os.sep)[0] in ("testing", "include", "lib", "share", "bin"):
            continue
        package = "torchlike" + ("" if rel == "." else "." + rel.replace(os.sep, "."))
        try:
            mod = importlib.import_module(package)
        except Exception:  # a package torchlike does not have: the mirrored-path tests' business
            continue
        subs = [f[:-3] for f in filenames if f.endswith(".py") and f != "__init__.py"]
        subs += [d for d in dirnames if d != "__pycache__"]
        for sub in subs:
            if sub in vars(mod) and not isinstance(vars(mod)[sub], types.ModuleType):
                yield f"{package}.{sub}"


def test_a_module_shadowed_by_a_name_in_its_package_is_still_a_module():
    # transformers' Mamba imports ``from torch._higher_order_ops.associative_scan import associative_scan``;
    # torchlike had the function but no such module (an ImportError under the runner)
    shadowed = list(_shadowed_torch_modules())
    assert {"torchlike._higher_order_ops.associative_scan", "torchlike.multiprocessing.spawn",
            "torchlike.quantization.quantize"} <= set(shadowed), shadowed
    not_modules = []
    for name in shadowed:
        assert isinstance(importlib.import_module("torch" + name[len("torchlike"):]), types.ModuleType)
        try:
            importlib.import_module(name)
        except ImportError:
            not_modules.append(name)
    assert not_modules == []
    assert isinstance(torchlike.cuda.nvtx, types.ModuleType) and isinstance(torch.cuda.nvtx, types.ModuleType)
    from torchlike._higher_order_ops.associative_scan import associative_scan
    from torchlike.multiprocessing.spawn import ProcessRaisedException
    assert associative_scan is torchlike._higher_order_ops.associative_scan
    assert ProcessRaisedException.__module__ == "torchlike.multiprocessing.spawn"
