"""torchlike.fx: torch.fx's program capture and transformation toolkit on torchlike.

``symbolic_trace`` runs a module on Proxies and records a ``Graph`` of ``Node``; a ``GraphModule`` runs the
Python code generated from the graph; ``Interpreter``/``Transformer`` walk it; ``replace_pattern`` rewrites
subgraphs.  torchlike functions record call_function nodes through the ``__torch_function__`` protocol.

>>> import torchlike
>>> gm = torchlike.fx.symbolic_trace(torchlike.nn.Sequential(torchlike.nn.Linear(2, 2), torchlike.nn.ReLU()))
>>> print(gm.graph)
graph():
    %input_1 : [num_users=1] = placeholder[target=input]
    %_0 : [num_users=1] = call_module[target=0](args = (%input_1,), kwargs = {})
    %_1 : [num_users=1] = call_module[target=1](args = (%_0,), kwargs = {})
    return _1
"""
from __future__ import annotations

from ._symbolic_trace import PH, Tracer, rebuild_graph_module, symbolic_trace, wrap  # noqa: F401 (pickles name it)
from .graph import CodeGen, Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Attribute, Proxy, TraceError
from .subgraph_rewriter import replace_pattern

__all__ = ["Graph", "GraphModule", "Node", "Proxy", "Tracer", "Interpreter", "Transformer", "symbolic_trace",
           "wrap", "map_arg", "has_side_effect", "replace_pattern", "CodeGen", "PythonCode", "Attribute",
           "TraceError", "PH"]


def has_side_effect(fn):
    """Mark ``fn`` as having side effects (its nodes are kept by dead code elimination); returns ``fn``."""
    return fn
