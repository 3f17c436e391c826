"""torch's backward-node structure for the tape's nodes: which inputs are ``next_functions`` edges.

A node's ``inputs`` hold, per argument of the op's JAX function, the edge ``(node, index)`` of a tensor
that requires grad, ``(None, 0)`` for a tensor that does not, and ``None`` for a non-tensor argument.
torch's ``next_functions`` list the tensor arguments of the ATen op; binary arithmetic also wraps a
Python number into a tensor (``x * 2`` has two edges, the second ``(None, 0)``).
"""
from __future__ import annotations

__all__ = ["edges", "WRAPS_SCALARS"]

_NONE = (None, 0)

# Nodes whose ATen op takes a Python number as a wrapped tensor argument (an edge (None, 0)).
WRAPS_SCALARS = frozenset({
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0", "RsubBackward0",
})


def edges(node):
    """``node.next_functions``: a tuple of (node or None, output index) pairs, as torch's."""
    ins = node.inputs
    if ins is None:
        return ()
    if node._name in WRAPS_SCALARS:
        return tuple(_NONE if e is None else e for e in ins)
    return tuple(e for e in ins if e is not None)
