"""torch's backward-node structure for the tape's nodes: which inputs are ``next_functions`` edges.

A node's ``inputs`` hold, per argument of the op's JAX function, the edge ``(node, index)`` of a tensor
that requires grad, ``(None, 0)`` for a tensor that does not, and ``None`` for a non-tensor argument.
torch's ``next_functions`` list the tensor arguments of the ATen op; binary arithmetic also wraps a
Python number into a tensor (``x * 2`` has two edges, the second ``(None, 0)``).
"""
from __future__ import annotations

__all__ = ["edges", "torch_name", "WRAPS_SCALARS", "TORCH_NAMES"]

_NONE = (None, 0)

# Nodes whose ATen op takes a Python number as a wrapped tensor argument (an edge (None, 0)).
WRAPS_SCALARS = frozenset({
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0", "RsubBackward0",
})


# Names the ops record under that torch spells differently (torch.special's own ATen ops carry a
# ``Special`` prefix; aliases record their target's node).  Applied once, when a name's class is made.
TORCH_NAMES = {
    "I0EBackward0": "SpecialI0EBackward0", "I1Backward0": "SpecialI1Backward0", "I1EBackward0": "SpecialI1EBackward0",
    "Xlog1PyBackward0": "SpecialXlog1PyBackward0", "EntrBackward0": "SpecialEntrBackward0",
    "NdtriBackward0": "SpecialNdtriBackward0", "LogNdtrBackward0": "SpecialLogNdtrBackward0",
    "ErfcxBackward0": "SpecialErfcxBackward0", "ExpitBackward0": "SigmoidBackward0",
    "SquareBackward0": "PowBackward0", "CopyBackwards": "torch::autograd::CopyBackwards",
    "CopySlices": "torch::autograd::CopySlices",
}


def torch_name(name):
    """(class name, ``name()``) of the node recorded under ``name``."""
    full = TORCH_NAMES.get(name, name)
    return full.rsplit("::", 1)[-1], full


def edges(node):
    """``node.next_functions``: a tuple of (node or None, output index) pairs, as torch's."""
    ins = node.inputs
    if ins is None:
        return ()
    if node._name in WRAPS_SCALARS:
        return tuple(_NONE if e is None else e for e in ins)
    return tuple(e for e in ins if e is not None)
