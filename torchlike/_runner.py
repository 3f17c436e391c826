"""The drop-in runner: run an unmodified PyTorch script with ``torch`` resolving to torchlike.

    python -m torchlike run train.py --epochs 3
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import runpy
import sys
import types

from . import _torch_extensions, _torch_module_names, _torch_paths
from ._distributed_compat import fill
from ._missing import module_getattr

__all__ = ["install", "run", "run_module"]

_TORCH_MODULES = set()  # torch's module names (filled on first use from _torch_module_names)
_TORCH_PACKAGES = set()  # those of them that are packages


def torch_has(name):
    """Whether torch (2.13) has a module named ``name`` (``torch.nn.modules.linear``: True; ``torch.nn.nope``,
    ``torch.demo``: False)."""
    if not _TORCH_MODULES:
        _TORCH_MODULES.add("torch")
        parent = None
        for line in _torch_module_names.TREE.splitlines():
            if not line.strip():
                continue
            if not line.startswith(" "):
                parent, _, line = line.partition(":")
                _TORCH_PACKAGES.add(parent)
            _TORCH_MODULES.update(f"{parent}.{child}" for child in line.split())
    return name in _TORCH_MODULES


def _torchlike_caller(depth):
    """Whether the code ``depth`` frames up (past the import system's frames) is torchlike's own: the import
    system names a submodule by its package's ``__name__`` (``from . import _loader`` imports
    ``<package.__name__>._loader``), which torchlike's code must see as torchlike's."""
    f = sys._getframe(depth + 1)
    while f is not None and (f.f_code.co_filename.startswith("<frozen importlib") or
                             f.f_globals.get("__name__") == "importlib"):
        f = f.f_back
    return f is not None and str(f.f_globals.get("__name__", "")).startswith("torchlike")


# torch submodule -> torchlike module, where the names differ
_RENAMES = {"torch.nn.parallel": "torchlike.nn.parallel", "torch.cuda.amp": "torchlike.cuda.amp"}


class _Alias(importlib.abc.Loader):
    """Loads torch module ``public`` (one torch has: ``torch_has``) as torchlike's ``target``, or as a stub whose
    attributes raise NotImplementedError where torchlike lacks it."""

    def __init__(self, target, public):
        self.target, self.public = target, public
        self._spec = None

    def create_module(self, spec):
        mod = None
        if self.target is not None:
            try:
                mod = importlib.import_module(self.target)
            except ModuleNotFoundError as e:
                # torchlike lacks the module (or a package above it): a stub that names what is missing;
                # a dependency torchlike's module imports stays the ImportError it is
                if e.name != self.target and not self.target.startswith(f"{e.name}."):
                    raise
        if mod is None:
            mod = types.ModuleType(self.public)
            mod.__getattr__ = module_getattr(self.public)
            if self.public in _TORCH_PACKAGES:
                mod.__path__ = []
        else:
            self._spec = getattr(mod, "__spec__", None)
            _as_package(self.public, mod)
        if self.public.startswith("torch.distributed") and self.target.startswith("torchlike"):
            fill(self.public, mod)
        if self.public == "torch":
            # torch.__name__ is "torch": pyro checks that its patch targets ("torch.distributions....") start
            # with it. Only the top-level module's dict: submodules keep torchlike's names there, which
            # torchlike's own frame checks read (their attribute ``__name__`` is torch's: ``_ModuleByName``)
            mod.__name__ = "torch"
            self._spec = None
            _register_loaded_submodules()
        _name_classes_as_torch()  # (again for what this import loaded)
        return mod

    def exec_module(self, module):
        if self._spec is not None:
            # the import system gave torchlike's module this alias's spec: its own goes back, so its relative
            # imports see ``__spec__.parent == __package__`` (else ImportWarning) and find_spec answers for it
            module.__spec__ = self._spec


_ORIGINAL_FINDER = importlib.machinery.PathFinder


class _NoSuchModule(importlib.abc.Loader):
    """A torchlike module torch does not have (``torch.demo``): its torch name fails as under torch."""

    def __init__(self, name):
        self.name = name

    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {self.name!r}", name=self.name)

    def exec_module(self, module):
        pass


def _register_loaded_submodules():
    """Enter the public torchlike modules ``import torchlike`` loaded in ``sys.modules`` under their torch names,
    as ``import torch`` leaves ``torch.nn.init``, ``torch.nn.modules.activation``, ... there: libraries patch
    ``sys.modules["torch.nn.init"]`` (transformers guards the init functions while ``from_pretrained`` loads,
    and skips a name that is not there). ``torch.distributed`` modules stay with the finder, which fills them."""
    renamed = {v: k for k, v in _RENAMES.items()}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("torchlike.") or any(part.startswith("_") for part in name.split(".")):
            continue
        public = renamed.get(name, "torch" + name[len("torchlike"):])
        if not public.startswith("torch.distributed") and isinstance(mod, types.ModuleType) and torch_has(public):
            _as_package(public, mod)
            sys.modules.setdefault(public, mod)


def _as_package(public, mod):
    """Where torch's module ``public`` is a package and torchlike's is a file (torch.masked, torch.cuda.amp),
    make it a package: its submodules then import as torch's do (a stub, or ModuleNotFoundError)."""
    if public in _TORCH_PACKAGES and not hasattr(mod, "__path__"):
        mod.__path__ = []


# classes torch defines in its C extension or top level, shown at torch's path ({torchlike module: torch module})
_TORCH_HOMES = {"torchlike.tensor": "torch", "torchlike._dtype": "torch", "torchlike._device": "torch",
                "torchlike._errors": "torch", "torchlike._layout": "torch", "torchlike._memory_format": "torch",
                "torchlike._random": "torch._C", "torchlike._dynamo.exc": "torch._dynamo.exc",
                "torchlike._C": "torch._C"}
_NAMED = set()  # torchlike modules whose classes _name_classes_as_torch has seen (each is read once)


def _name_classes_as_torch():
    """Under the runner ``torch`` is torchlike, so its classes answer to torch's names: ``type(x)`` prints
    ``<class 'torch.Tensor'>`` and ``<class 'torch.nn.modules.linear.Linear'>`` as under torch, and pickles
    made here name torch's paths. So do the functions a public module defines (``torch.nn.init.normal_``:
    Lightning's ``_EmptyInit`` recognises init functions by ``__module__``). A class is renamed only where that name resolves to it in this process
    (the torch module of that name is the module holding the class), so pickling by reference keeps working.
    Called after every torch import and lazy load; a module's classes are read the first time it is seen."""
    for name, mod in list(sys.modules.items()):
        if name in _NAMED or not (name == "torchlike" or name.startswith("torchlike.")) \
                or not isinstance(mod, types.ModuleType):
            continue
        _NAMED.add(name)
        _pickle_by_name(mod)
        home = _TORCH_HOMES.get(name)
        if home is None:
            if any(part.startswith("_") for part in name.split(".")) or name.startswith("torchlike.distributed"):
                continue  # private modules keep torchlike's names (torch.distributed: _distributed_compat's)
            home = "torch" + name[len("torchlike"):]
            if not torch_has(home):
                continue  # a module torch does not have (torch.demo): pickles must name an importable path
        # the torchlike module ``import home`` gives under the runner (``torch._C`` -> torchlike._C)
        target = sys.modules.get("torchlike" + home[len("torch"):])
        for obj in list(vars(mod).values()):
            if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == name \
                    and "." not in obj.__qualname__ and getattr(target, obj.__qualname__, None) is obj:
                try:
                    obj.__module__ = home
                except (TypeError, AttributeError):  # a C type
                    pass


class _ModuleByName(types.ModuleType):
    """The class of torchlike's modules under the runner: a pickler that records a module (dill, which datasets'
    fingerprints use, for a function's globals) records it by name, as dill does an installed torch's modules
    (under ``sys.prefix``), never by value (torchlike's whole tree: slow, then RecursionError).

    What a user sees of the module names torch's module, as under torch: ``m.__name__`` (so ``from torch.nn
    import nope`` says "cannot import name 'nope' from 'torch.nn'"), ``repr(m)`` and the AttributeError of a
    missing attribute. The module's own globals keep torchlike's ``__name__`` (what its functions and
    classes record as ``__module__`` and its relative imports read), and so does the import system when
    torchlike's code imports a submodule (``from . import _loader``: torch has no ``torch.nn._loader``)."""

    @property
    def __name__(self):
        own = _own_name(self)
        if not isinstance(own, str) or (sys._getframe(1).f_code.co_filename.startswith("<frozen importlib")
                                        and _torchlike_caller(1)):
            return own  # the import system, importing a submodule for torchlike's own code
        return _torch_name(own)

    @__name__.setter
    def __name__(self, value):
        vars(self)["__name__"] = value

    def __repr__(self):
        where = vars(self).get("__file__")
        name = _torch_name(_own_name(self))
        return f"<module {name!r} from {where!r}>" if where else f"<module {name!r}>"

    def __getattr__(self, name):
        hook = vars(self).get("__getattr__")
        if hook is not None:  # the module's own (lazy loads, NotImplementedError for what torchlike lacks)
            try:
                return hook(name)
            except AttributeError as e:
                if type(e) is not AttributeError:
                    raise
        raise AttributeError(f"module {_torch_name(_own_name(self))!r} has no attribute {name!r}")

    def __reduce_ex__(self, protocol):
        return importlib.import_module, (_torch_name(_own_name(self)),)


def _own_name(mod):
    """torchlike's name of module ``mod`` (its globals' ``__name__``; the facade's says "torch")."""
    own = vars(mod).get("__name__")
    return "torchlike" if own == "torch" and mod is sys.modules.get("torchlike") else own


def _torch_name(name):
    """The torch name of torchlike module ``name`` where torch has that module (else ``name``)."""
    if name.startswith("torchlike.") or name == "torchlike":
        public = {v: k for k, v in _RENAMES.items()}.get(name, "torch" + name[len("torchlike"):])
        if torch_has(public):
            return public
    return name


# named as the class it stands for: ``type(torch.nn).__name__`` is "module" under torch (lazy importers print and
# compare it); only ``type(m) is types.ModuleType`` tells them apart
_ModuleByName.__name__ = _ModuleByName.__qualname__ = "module"
_BY_NAME = {types.ModuleType: _ModuleByName}  # a module's class -> the same class pickled by name


def _pickle_by_name(mod):
    """Give torchlike module ``mod`` the class of its own class that pickles it by name (``_ModuleByName``)."""
    cls = type(mod)
    if not issubclass(cls, _ModuleByName):
        if cls not in _BY_NAME:
            _BY_NAME[cls] = type(cls.__name__, (cls, _ModuleByName), {"__module__": cls.__module__})
        mod.__class__ = _BY_NAME[cls]


# the version an installed torch reports through its package metadata (``importlib.metadata.version``)
TORCH_VERSION = "2.13.0"


class _TorchDistribution(importlib.metadata.Distribution):
    """The package metadata of the ``torch`` that torchlike stands in for: libraries (transformers,
    accelerate, ...) ask ``importlib.metadata.version("torch")`` before they use torch."""

    _FILES = {"METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {TORCH_VERSION}\n"
                          "Summary: torchlike (PyTorch's programming model on JAX) standing in for torch\n",
              "top_level.txt": "torch\n", "INSTALLER": "torchlike\n"}

    def read_text(self, filename):
        return self._FILES.get(filename)

    def locate_file(self, path):
        import pathlib
        return pathlib.Path(__file__).parent / path


class TorchFinder(importlib.abc.MetaPathFinder):
    """Resolves ``torch`` and ``torch.*`` imports to torchlike (a stub raising NotImplementedError when
    torchlike has no such module), and answers ``importlib.metadata`` queries for the ``torch`` package."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        if fullname in _torch_module_names.ALIASES:  # another torch module under this name, as torch has it
            return importlib.machinery.ModuleSpec(fullname, _Alias(_torch_module_names.ALIASES[fullname], fullname))
        parent = fullname.rpartition(".")[0]
        if torch_has(parent) and parent not in _TORCH_PACKAGES and not _torchlike_caller(1):
            raise ModuleNotFoundError(f"No module named {fullname!r}; {parent!r} is not a package", name=fullname)
        if not torch_has(fullname) and not _torchlike_caller(1):
            # as under torch: ModuleNotFoundError (find_spec answers None), also where torchlike has a module of
            # that name (torch.demo, torch.nn._loader: found through the package's __path__, torchlike's folder)
            if _ORIGINAL_FINDER.find_spec(fullname, path) is None:
                return None
            return importlib.machinery.ModuleSpec(fullname, _NoSuchModule(fullname))
        tgt = _RENAMES.get(fullname, "torchlike" + fullname[len("torch"):])
        spec = importlib.machinery.ModuleSpec(fullname, _Alias(tgt, fullname), is_package=True)
        if fullname == "torch":  # where an installed torch's spec points (libraries read spec.origin)
            import os
            spec.origin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__init__.py")
            spec.has_location = True
        return spec

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        name = getattr(context, "name", None)
        if name is None or name.lower().replace("-", "_").replace(".", "_") == "torch":
            yield _TorchDistribution()


def install():
    """Make ``import torch`` import torchlike in this process."""
    if _name_classes_as_torch not in _torch_paths.on_lazy_import:
        _torch_paths.on_lazy_import.append(_name_classes_as_torch)
    if not any(isinstance(f, TorchFinder) for f in sys.meta_path):
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, TorchFinder())
    _torch_extensions.install()  # a compiled torch extension fails to import, as with a torch it doesn't fit


def _alias_children():
    """Child processes (spawned DataLoader workers, multiprocessing, launched ranks) resolve torch the same way."""
    import os
    site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_runner_site")
    os.environ["TORCHLIKE_AS_TORCH"] = "1"
    os.environ["PYTHONPATH"] = site + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")


def run_module(name, args):
    """``python -m torchlike run -m torch.distributed.run ...``: run module ``name`` (``torch.*`` names mean
    torchlike's module) as ``__main__`` with torch -> torchlike."""
    install()
    _alias_children()
    given = name
    if name == "torch" or name.startswith("torch."):
        name = "torchlike" + name[len("torch"):]
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    if not found:  # (python -m's own words and status, not runpy's traceback)
        sys.stderr.write(f"{sys.executable}: No module named {given}\n")
        raise SystemExit(1)
    sys.argv = [name] + list(args)
    _as_python_would(lambda: runpy.run_module(name, run_name="__main__", alter_sys=True), None)


def run(script, args):
    """Run ``script`` as ``__main__`` with ``sys.argv = [script, *args]`` and torch -> torchlike."""
    import os
    path = os.path.abspath(script)
    if not os.path.exists(path) or os.path.isdir(path) and not os.path.exists(os.path.join(path, "__main__.py")):
        # (python's own words and status for a script it cannot open, not runpy's traceback)
        why = "[Errno 2] No such file or directory" if not os.path.exists(path) else \
            "can't find '__main__' module in"
        sys.stderr.write(f"{sys.orig_argv[0]}: can't open file {path!r}: {why}\n" if not os.path.exists(path) else
                         f"{sys.executable}: {why} {path!r}\n")
        raise SystemExit(2 if not os.path.exists(path) else 1)
    install()
    _alias_children()
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    sys.argv = [script] + list(args)  # (python names the script's code by its absolute path, as __file__)
    _as_python_would(lambda: _run_path_keeping_argv0(path), path)


def _run_path_keeping_argv0(path):
    """``runpy.run_path(path)`` with ``sys.argv[0]`` left as given (python's, e.g. ``train.py``): runpy writes the
    path it runs there, here the absolute one, which python keeps for ``__file__`` only."""
    switch = getattr(runpy, "_ModifiedArgv0", None)
    if switch is None:
        return runpy.run_path(path, run_name="__main__")
    first = [True]

    class _KeepArgv0(switch):
        def __enter__(self):
            if first[0]:  # (runpy's own call for the script; a run_path of the script's own keeps runpy's rule)
                first[0] = False
                self.value = sys.argv[0]
            return super().__enter__()

    runpy._ModifiedArgv0 = _KeepArgv0
    try:
        return runpy.run_path(path, run_name="__main__")
    finally:
        runpy._ModifiedArgv0 = switch


def run_code(source, filename, args):
    """``python -m torchlike run -c CODE [ARGS...]`` and ``... run - [ARGS...]`` (the program read from standard
    input): as ``python -c`` / ``python -``, with torch -> torchlike (``sys.argv[0]`` is ``-c`` / ``-``, the
    current directory first on ``sys.path``)."""
    import types
    install()
    _alias_children()
    sys.path.insert(0, "")
    sys.argv = ["-c" if filename == "<string>" else "-"] + list(args)
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    code = compile(source, filename, "exec")
    _as_python_would(lambda: exec(code, main.__dict__), None)


def _as_python_would(run_main, script):
    """Run ``run_main``; an exception it lets out is reported as ``python script.py`` would report it: the
    traceback starts at the script's own frame (not in the runner and runpy), then exit status 1."""
    import os
    try:
        run_main()
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:
        tb = e.__traceback__
        t = tb
        while t is not None:
            f = t.tb_frame.f_code.co_filename
            if (script is not None and os.path.abspath(f) == script) or \
                    (script is None and t.tb_frame.f_globals.get("__name__") == "__main__"):
                tb = t
                break
            t = t.tb_next
        if not os.environ.get("TORCHLIKE_FULL_TRACEBACK"):
            _drop_library_tail(tb)
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        raise SystemExit(1) from None


def _drop_library_tail(tb):
    """Cut the traceback after the last frame outside torchlike and JAX: where torch's op would fail in
    C++ (no frames), the user sees their own line last, never torchlike's or JAX's internals
    (``TORCHLIKE_FULL_TRACEBACK=1`` keeps them)."""
    import os
    lib = (os.path.dirname(os.path.abspath(__file__)) + os.sep,)
    try:
        import jax  # lazy: only to name its directory
        lib += (os.path.dirname(os.path.abspath(jax.__file__)) + os.sep, )
    except Exception:
        pass
    last, t = None, tb
    while t is not None:
        if not os.path.abspath(t.tb_frame.f_code.co_filename).startswith(lib):
            last = t
        t = t.tb_next
    if last is not None:
        last.tb_next = None
