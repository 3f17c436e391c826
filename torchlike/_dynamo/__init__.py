"""torchlike._dynamo: the parts of torch._dynamo that libraries call (markers and switches).

torchlike.compile traces Python functions into XLA programs itself; dynamo's markers are accepted and
``is_compiling`` reports whether that tracer is running.

>>> import torchlike
>>> import torchlike._dynamo as dynamo
>>> x = torchlike.zeros(2)
>>> dynamo.mark_static_address(x) is None, dynamo.is_compiling()
(True, False)
"""
from __future__ import annotations

from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling, list_backends, reset  # noqa
from ..compiler import substitute_in_graph  # noqa: F401
from . import config, exc  # noqa: F401
from . import eval_frame  # noqa: F401
from . import utils  # noqa: F401  (torch._dynamo.utils is loaded with the package, as in torch)
from .. import compile as _compile

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "list_backends", "reset",
           "disallow_in_graph", "forbid_in_graph", "graph_break", "mark_dynamic", "maybe_mark_dynamic",
           "mark_static", "mark_static_address", "config", "exc", "optimize", "is_dynamo_supported",
           "OptimizedModule", "eval_frame", "explain"]


def disallow_in_graph(fn):
    """Returns ``fn`` (torchlike has no op allowlist to remove it from)."""
    return fn


forbid_in_graph = disallow_in_graph


def graph_break(msg: str = ""):
    """A no-op: torchlike breaks graphs only where tracing cannot continue."""


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):  # noqa: A002 - torch's names
    """Accepted; torchlike decides dynamic dimensions itself (``compile(dynamic=...)``)."""


def maybe_mark_dynamic(t, index):
    """Accepted (see :func:`mark_dynamic`)."""


def mark_static(t, index=None):
    """Accepted; shapes are static unless compiled with ``dynamic=True``."""


def mark_static_address(t, guard=True):
    """Accepted: XLA buffers have no addresses to keep static (used by static KV caches)."""


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None, disable=False,
             dynamic=None):
    """``torch._dynamo.optimize(...)(fn)``: compile ``fn`` with torchlike.compile."""
    return lambda fn: fn if disable else _compile.compile(fn, fullgraph=nopython, dynamic=dynamic)


def is_dynamo_supported() -> bool:
    return True


def __getattr__(name):
    if name == "OptimizedModule":   # torch.compile's module wrapper, without importing compile here
        return eval_frame.OptimizedModule
    raise AttributeError(f"module 'torch._dynamo' has no attribute '{name}'")


def explain(f, *extra_args, **extra_kwargs):
    """torch._dynamo.explain: see ``torchlike._dynamo._explain.explain`` (loaded on first use)."""
    from ._explain import explain as _explain  # lazy: its dispatch mode (utils._python_dispatch) sits on the facade, which imports this package
    return _explain(f, *extra_args, **extra_kwargs)
