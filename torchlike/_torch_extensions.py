"""Compiled PyTorch extensions (Python extension modules linked against libtorch, such as ``torchopt._C`` or
``torch_scatter._scatter_cpu``) under the drop-in runner: importing one fails with ImportError, as it does with
torch when the extension is missing or was built for another torch, so a library takes its pure-Python
fallback. Without the guard the dynamic loader would map the real libtorch into the process, and an extension
that did load would then be handed torchlike tensors it cannot read.

Only ELF shared objects are inspected (their DT_NEEDED entries); ``importlib.util.find_spec`` still finds such a
module, as with torch; loading it raises.

>>> import sys
>>> from torchlike._torch_extensions import torch_libraries_needed
>>> torch_libraries_needed(sys.executable)
()
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import struct
import sys

__all__ = ["TorchExtensionGuard", "install", "torch_libraries_needed"]

_TORCH_LIBRARY_PREFIXES = ("libtorch", "libc10", "libshm")
_PT_LOAD, _PT_DYNAMIC, _DT_NEEDED, _DT_STRTAB = 1, 2, 1, 5


def _needed(path):
    """The DT_NEEDED names of a 64-bit little-endian ELF file (empty for anything else)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return ()
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        loads, dynamic = [], None
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
            if p_type == _PT_LOAD:
                loads.append((p_vaddr, p_filesz, p_offset))
            elif p_type == _PT_DYNAMIC:
                dynamic = (p_offset, p_filesz)
        if dynamic is None:
            return ()
        f.seek(dynamic[0])
        raw = f.read(dynamic[1])
        entries = [struct.unpack_from("<qQ", raw, k) for k in range(0, len(raw) - 15, 16)]
        strtab = next((v for tag, v in entries if tag == _DT_STRTAB), None)
        # DT_STRTAB is an address: the loadable segment holding it gives its place in the file
        base = None if strtab is None else next(
            (strtab - vaddr + off for vaddr, size, off in loads if vaddr <= strtab < vaddr + size), None)
        if base is None:
            return ()
        names = []
        for tag, v in entries:
            if tag == _DT_NEEDED:
                f.seek(base + v)
                names.append(f.read(256).split(b"\0", 1)[0].decode("utf-8", "replace"))
        return tuple(names)


def torch_libraries_needed(path) -> tuple:
    """The PyTorch shared libraries (libtorch*, libc10*, libshm) the shared object at ``path`` links against."""
    try:
        return tuple(n for n in _needed(path) if n.startswith(_TORCH_LIBRARY_PREFIXES))
    except (OSError, struct.error):
        return ()


class _RefusedExtension(importlib.abc.Loader):
    """Loader of a compiled PyTorch extension: loading it raises ImportError (the module is not created)."""

    def __init__(self, fullname, path, libraries):
        self.fullname, self.path, self.libraries = fullname, path, libraries

    def create_module(self, spec):
        raise ImportError(f"{self.path}: a compiled PyTorch extension (it links {', '.join(self.libraries)}) "
                          "cannot be loaded under torchlike", name=self.fullname, path=self.path)

    def exec_module(self, module):
        pass


class TorchExtensionGuard(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does (it sits just before it in ``sys.meta_path`` and returns its spec),
    giving a compiled PyTorch extension a loader that raises ImportError."""

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            libraries = torch_libraries_needed(spec.origin)
            if libraries:
                spec.loader = _RefusedExtension(fullname, spec.origin, libraries)
        return spec

    def invalidate_caches(self):
        pass


def install():
    """Put the guard just before ``importlib.machinery.PathFinder`` in ``sys.meta_path`` (once)."""
    if any(isinstance(f, TorchExtensionGuard) for f in sys.meta_path):
        return
    at = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, TorchExtensionGuard())
