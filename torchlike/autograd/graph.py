"""torch.autograd.graph: the graph's nodes (``grad_fn``) and its user API.

The node types are defined in ``torchlike._tape`` (layer 0, below Tensor and the dispatcher, which
record them) and homed here, torch's path for them; the user API (``get_gradient_edge``, the saved-tensor
context managers, ...) comes from ``_graph_api`` (see autograd/__init__.py).

>>> import torchlike
>>> torchlike.autograd.graph.Node.__module__
'torchlike.autograd.graph'
"""
from __future__ import annotations

from .._tape import (_NODE_CLASSES, AccumulateGrad, Node, node_class, pullback_fn,  # noqa: F401
                     pullback_impl)
from .._torch_paths import home as _home

__all__ = ["Node", "AccumulateGrad", "pullback_fn", "node_class"]
_home(globals(), Node, AccumulateGrad, node_class, pullback_fn, pullback_impl)
