"""torchlike.compile: trace functions and modules into one XLA program each (``jax.jit``).

Parameters, buffers, optimizer and RNG state are lifted to program inputs and written back after
each call, so an unmodified training step compiles into one computation.

>>> import torchlike
>>> w = torchlike.ones(3)
>>> @torchlike.compile
... def f(x):
...     w.add_(x)          # a write to captured state is written back
...     return w.sum()
>>> f(torchlike.ones(3)).item(), w.tolist()
(6.0, [2.0, 2.0, 2.0])
"""
from __future__ import annotations

from .. import _trace_hooks
from ._compiled import CompiledFunction, InvalidBackend, Unsupported, config, set_logs
from ._errors import GraphBreak
from ._trace import is_tracing, lift_scalar

__all__ = ["compile", "GraphBreak", "Unsupported", "config", "set_logs", "is_compiling", "explain",
           "CompiledFunction"]


def is_compiling() -> bool:
    """True while torchlike.compile is tracing (torch.compiler.is_compiling)."""
    return is_tracing()


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """Same call shapes as ``torch.compile``: ``compile(fn)``, ``compile(module)``, ``@compile(...)``."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    _check_arguments(model, backend, mode, options)
    if not disable:
        _trace_hooks.note_compile_call()  # torch's first compile turns distributions' validation off
    kw = dict(fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options, disable=disable)
    try:
        from ..nn.modules.module import Module  # lazy: compile(fn) works without nn (imported after compile)
    except ImportError:
        Module = ()
    if isinstance(model, Module):
        return _compile_module(model, kw)
    return CompiledFunction(model, **kw)


_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# torch's registered backends, its debug and testing ones included (``list_backends(exclude_tags=())``): all of
# them compile to one XLA program here
_BACKENDS = frozenset({
    "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
    "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug", "eager_noexcept",
    "inductor", "invoke_subgraph", "openxla", "openxla_eval", "pre_dispatch_eager", "ts", "tvm"})


def _check_arguments(model, backend, mode, options):
    """torch.compile's argument errors, raised where torch raises them (when the function is given)."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if isinstance(backend, str) and backend == "inductor":
        if mode is not None and mode not in _MODES:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    elif isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")


def _compile_module(module, kw):
    """A module whose calls run the compiled forward (torch returns an OptimizedModule wrapper)."""
    from ._module import OptimizedModule  # lazy: it subclasses nn.Module (imported after compile)
    return OptimizedModule(module, CompiledFunction(module._call_impl if hasattr(module, "_call_impl")
                                                    else module.__call__, **kw))


class _Explain:
    def __init__(self, breaks, graphs):
        self.graph_break_count = len(breaks)
        self.break_reasons = breaks
        self.graph_count = graphs

    def __repr__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 "Break Reasons:"]
        lines += [f"  {i + 1}. {b}" for i, b in enumerate(self.break_reasons)]
        return "\n".join(lines)

    __str__ = __repr__


def explain(fn, *args, **kwargs):
    """Trace ``fn(*args)`` once and report graph breaks with file:line and reason."""
    import warnings
    cf = CompiledFunction(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf(*args, **kwargs)
    return _Explain(list(cf.breaks), cf.compile_count)


class _CallableModule(type(__import__("sys"))):
    """Lets ``torchlike.compile`` be both the function and the package (``torchlike.compile.explain``)."""

    def __call__(self, *args, **kwargs):
        return compile(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
