"""torch.jit on torchlike: ``script``/``trace`` keep the module as it is (use ``torchlike.compile`` for speed),
and ``jit.save``/``jit.load`` round-trip it — a traced module as an exported StableHLO program (loading needs
no model code, other input batch sizes work), a scripted one as a whole-module pickle. A TorchScript archive
written by real torch cannot run here: ``jit.load`` says so and names the alternatives.

>>> import os, tempfile, torchlike
>>> m = torchlike.jit.trace(torchlike.nn.Linear(3, 2), torchlike.ones(4, 3))
>>> path = os.path.join(tempfile.mkdtemp(), "m.pt")
>>> torchlike.jit.save(m, path)
>>> loaded = torchlike.jit.load(path)
>>> bool((loaded(torchlike.ones(5, 3)) == m(torchlike.ones(5, 3))).all())
True
"""
from __future__ import annotations

import inspect
import io
import json
import os
import warnings
import weakref
import zipfile

from .. import _errors
from .. import export as _export
from .. import serialization
from ..export._program_module import ProgramModule
from ..futures import Future
from ..nn.modules import module as _module
from ..nn.modules.module import Module
from . import annotations  # noqa: F401 - torch.jit.annotations is an attribute of torch.jit
from . import _eager_api
from ._archive import MARK as _MARK, write as _write, write_to_buffer
from ._traced_function import TracedFunction
from ._eager_api import (Attribute, ScriptFunction, ScriptWarning, TracerWarning, TracingCheckError, enable_onednn_fusion, fuser, interface,
                         onednn_fusion_enabled, optimized_execution, script_if_tracing, script_method,
                         set_fusion_strategy, strict_fusion)

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "Final", "save", "load",
           "ScriptModule", "freeze", "optimize_for_inference", "trace_module", "annotate", "fork", "wait", "Error",
           "annotations", "Attribute", "isinstance", "interface", "script_if_tracing", "script_method",
           "optimized_execution", "fuser", "strict_fusion", "set_fusion_strategy", "enable_onednn_fusion",
           "onednn_fusion_enabled", "TracerWarning", "ScriptWarning", "TracingCheckError", "RecursiveScriptModule",
           "TracedModule", "TopLevelTracedModule", "ScriptFunction"]

_TORCHSCRIPT_HINT = (
    "{what} is a TorchScript archive written by torch.jit.save; TorchScript programs cannot run on torchlike. "
    "Export the model with torch.export.save(torch.export.export(model, args), path) and load it with "
    "torchlike.export.load(path), or save model.state_dict() with torch.save and load it into the torchlike "
    "module with load_state_dict (see docs/differences.md).")


def _deprecated(name, instead="`torch.compile` or `torch.export`"):
    warnings.warn(f"`torch.jit.{name}` is deprecated. Please switch to {instead}.", DeprecationWarning)


def script(obj, *args, **kwargs):
    """Return ``obj`` unchanged (TorchScript compilation has no meaning on JAX; see ``torchlike.compile``); its
    code (a module's ``forward``) is remembered so notes that only torch's Python bindings give stay silent in it.

    >>> import warnings, torchlike
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f = torchlike.jit.script(lambda x: x + 1)
    >>> f(torchlike.ones(2))
    tensor([2., 2.])
    """
    _deprecated("script")
    if isinstance(obj, Module):
        _compiled.add(obj)
    fn = obj.forward if isinstance(obj, Module) else obj
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is not None:
        _errors.SCRIPTED_CODE.add(code)
    return obj


def trace(func, example_inputs=None, *args, example_kwarg_inputs=None, **kwargs):
    """Return a module ``func`` unchanged, remembering ``example_inputs`` so ``jit.save`` can export it; a plain
    function comes back as a ``ScriptFunction`` that calls it and has torch's ``save``."""
    _deprecated("trace")
    if example_inputs is not None:
        inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
        if inspect.isfunction(func):
            return TracedFunction(func, inputs)
    if isinstance(func, Module):
        _compiled.add(func)
        try:
            func._torchlike_example_inputs = inputs
        except (AttributeError, TypeError):   # builtins and the like: nothing to remember
            pass
    return func


_compiled = weakref.WeakSet()  # the modules trace or script returned, which have torch's ScriptModule.save


def _script_module_methods(m, name):
    """``save``/``save_to_buffer`` of a module ``trace`` or ``script`` returned (no deprecation warning, as
    torch's ``ScriptModule.save``), through ``Module.__getattr__``'s fallbacks."""
    if name not in ("save", "save_to_buffer") or m not in _compiled:
        raise AttributeError(name)
    if name == "save":
        return lambda f, _extra_files=None: _write(m, f, _extra_files)
    return lambda _extra_files=None: write_to_buffer(m, _extra_files)


_module.attribute_fallbacks.append(_script_module_methods)


def _get_trace_graph(f, args=(), kwargs=None, strict=True, _force_outplace=False, return_inputs=False,
                     _return_inputs_states=False):
    """torch.jit._get_trace_graph: torchlike has no TorchScript tracer, so there is no graph to return; trace-based
    analyses (fvcore's ``FlopCountAnalysis``, ``ActivationCountAnalysis``) raise this NotImplementedError.

    >>> import torchlike
    >>> torchlike.jit._get_trace_graph(torchlike.nn.Linear(2, 2), (torchlike.ones(1, 2),))
    Traceback (most recent call last):
    ...
    NotImplementedError: torch.jit._get_trace_graph: torchlike has no TorchScript tracer, so no TorchScript graph ...
    """
    raise NotImplementedError(
        "torch.jit._get_trace_graph: torchlike has no TorchScript tracer, so no TorchScript graph can be built "
        "(count flops with torch.utils.flop_counter.FlopCounterMode; see docs/differences.md)")


def trace_module(mod, inputs, *args, **kwargs):
    """``trace`` of ``mod.forward`` with ``inputs["forward"]``."""
    return trace(mod, inputs.get("forward") if isinstance(inputs, dict) else inputs)


def ignore(fn=None, **kw):
    return fn if fn is not None else (lambda f: f)


unused = ignore
export = ignore


def _overload_method(func):
    """Marks an overload declaration of a method for TorchScript; torchlike runs the method as Python."""
    return func


def _overload(func):
    return func


_script_if_tracing = script_if_tracing


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def annotate(the_type, the_value):
    return the_value


def fork(func, *args, **kwargs):
    """Run ``func`` now and return a completed ``torch.Future`` holding its result (eager torch runs the
    forked call inline too); ``wait(fut)`` or ``fut.wait()`` returns it.

    >>> import torchlike
    >>> fut = torchlike.jit.fork(lambda x: x + 1, 2)
    >>> fut.wait(), torchlike.jit.wait(fut)
    (3, 3)
    """
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The result of a ``fork``'s future."""
    return future.wait()


class Error(Exception):
    """torch.jit.Error (``torch.JITException``): what a TorchScript program raises."""


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    warnings.warn("`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.", DeprecationWarning)
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


from typing import Final  # noqa: E402 - torch.jit.Final is typing.Final


class ScriptModule(ProgramModule):
    """What ``jit.load`` returns for a traced module: a Module whose parameters and buffers are the saved state
    (``parameters()``, ``state_dict()``, ``load_state_dict``, optimizers and backward work as on torch's
    ``RecursiveScriptModule``) and whose forward runs the saved program (no model code needed)."""

    def __init__(self, program, params=(), training=False):
        super().__init__(program, params)
        self.train(training)

    def _get_name(self):
        return "RecursiveScriptModule"


class RecursiveScriptModule(ScriptModule):
    """A module compiled by ``torch.jit.script`` (never built here: ``script`` keeps the module)."""


class TracedModule(ScriptModule):
    """A module produced by ``torch.jit.trace`` (never built here: ``trace`` keeps the module)."""


class TopLevelTracedModule(TracedModule):
    """The top-level traced module (never built here)."""


def save(m, f, _extra_files=None):
    """Save a traced (or scripted) module or traced function for ``jit.load`` (atomically when ``f`` is a path)."""
    _deprecated("save", "`torch.export`")
    _write(m.as_module() if isinstance(m, TracedFunction) else m, f, _extra_files)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Load what ``jit.save`` wrote; a real TorchScript archive raises NotImplementedError naming the
    alternatives."""
    _deprecated("load", "`torch.export`")
    what = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {os.fspath(f)} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {os.fspath(f)} is a directory")
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise serialization.zip_read_error(len(data)) from None
    with zf:
        names = zf.namelist()
        if _MARK not in names:
            if any(n.endswith("constants.pkl") or "/code/" in n for n in names):
                raise NotImplementedError(_TORCHSCRIPT_HINT.format(what=what))
            raise RuntimeError(f"{what} is not a torch.jit archive (no TorchScript program or torchlike export in it)")
        meta = json.loads(zf.read(_MARK))
        kind = meta["kind"]
        if _extra_files is not None:
            for name in list(_extra_files):
                if f"extra/{name}" in names:
                    _extra_files[name] = zf.read(f"extra/{name}")
        if kind == "exported":
            return ScriptModule(_export.ExportedProgram.deserialize(zf.read("program.zip")), meta.get("params", ()),
                                meta.get("training", False))
        return serialization.load(io.BytesIO(zf.read("module.pt")), weights_only=False)


def __getattr__(name):
    # torch.jit.isinstance, served here so this module's own isinstance() stays the builtin
    if name == "isinstance":
        return _eager_api.isinstance
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
