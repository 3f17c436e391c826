"""torchlike.fx: the names of torch.fx that libraries reference (type checks, ``wrap``).

torchlike captures programs with its own tracer (``torchlike.compile``/``torchlike.export``), so FX graph
capture (``symbolic_trace``) is not available; the classes exist so that ``isinstance(x, torch.fx.Proxy)``
checks and ``torch.fx.wrap(...)`` registrations in library code work.

>>> import torchlike
>>> isinstance(torchlike.ones(1), torchlike.fx.Proxy)
False
>>> torchlike.fx.wrap(len) is len
True
"""
from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["Graph", "GraphModule", "Node", "Proxy", "Tracer", "Interpreter", "Transformer", "symbolic_trace",
           "wrap", "map_arg", "has_side_effect", "replace_pattern"]

_DOC = "see docs/differences.md (torchlike captures graphs with torchlike.compile / torchlike.export)"


class Node:
    """A node of an FX graph (FX graphs are never built by torchlike)."""


class Proxy:
    """An FX tracing proxy (torchlike does not trace with proxies)."""

    def __init__(self, node, tracer=None):
        self.node, self.tracer = node, tracer


class Graph:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.fx.Graph is not implemented in torchlike; {_DOC}")


class GraphModule(Module):
    """An ``nn.Module`` running an FX graph, as in torch (``issubclass(torch.fx.GraphModule, torch.nn.Module)``:
    e3nn's ``compile_mode`` checks it when decorating its GraphModule subclasses at import time)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.fx.GraphModule is not implemented in torchlike; {_DOC}")


class Tracer:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.fx.Tracer is not implemented in torchlike; {_DOC}")


class Interpreter:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.fx.Interpreter is not implemented in torchlike; {_DOC}")


class Transformer(Interpreter):
    pass


def symbolic_trace(root, concrete_args=None):
    raise NotImplementedError(f"torch.fx.symbolic_trace is not implemented in torchlike; {_DOC}")


def replace_pattern(gm, pattern, replacement):
    raise NotImplementedError(f"torch.fx.replace_pattern is not implemented in torchlike; {_DOC}")


def wrap(fn_or_name):
    """Marks a function as a leaf for FX tracing; returns its argument."""
    return fn_or_name


def has_side_effect(fn):
    return fn


def map_arg(a, fn):
    """Apply ``fn`` to every Node in the nested structure ``a`` (there are none outside FX graphs)."""
    if isinstance(a, (tuple, list)):
        return type(a)(map_arg(x, fn) for x in a)
    if isinstance(a, dict):
        return {k: map_arg(v, fn) for k, v in a.items()}
    return fn(a) if isinstance(a, Node) else a
