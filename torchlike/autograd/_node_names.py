"""torch's backward-node structure for the tape's nodes: class names and ``next_functions`` edges.

A node's ``inputs`` hold, per argument of the op's JAX function, the edge ``(node, index)`` of a tensor
that requires grad, ``(None, 0)`` for a float tensor that does not, and ``None`` for anything else (a
Python number, an index tensor, an absent optional tensor).  torch's ``next_functions`` list the
differentiable tensor arguments of the ATen op, in its order: binary arithmetic wraps a Python number
into a tensor (``x * 2`` has two edges, the second ``(None, 0)``), absent optional weights/biases are
``(None, 0)`` edges, and ``linear`` is ``addmm(bias, input, weight.t())``.  Those shapes are rebuilt
here when ``next_functions`` is read, so recording a node costs nothing extra.
"""
from __future__ import annotations

import weakref

__all__ = ["edges", "torch_name", "relabel", "WRAPS_SCALARS", "TORCH_NAMES"]

_NONE = (None, 0)

# Nodes whose ATen op takes a Python number as a wrapped tensor argument (an edge (None, 0)).
WRAPS_SCALARS = frozenset({
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0", "DivBackward2",
})

# Names the ops record under that torch spells differently (torch.special's own ATen ops carry a
# ``Special`` prefix; aliases record their target's node; ``name:variant`` marks a node whose edges
# are rebuilt below).  Applied once, when a name's class is made.
TORCH_NAMES = {
    "I0EBackward0": "SpecialI0EBackward0", "I1Backward0": "SpecialI1Backward0", "I1EBackward0": "SpecialI1EBackward0",
    "Xlog1PyBackward0": "SpecialXlog1PyBackward0", "EntrBackward0": "SpecialEntrBackward0",
    "NdtriBackward0": "SpecialNdtriBackward0", "LogNdtrBackward0": "SpecialLogNdtrBackward0",
    "ErfcxBackward0": "SpecialErfcxBackward0", "ExpitBackward0": "SigmoidBackward0",
    "SquareBackward0": "PowBackward0", "CopyBackwards": "torch::autograd::CopyBackwards",
    "CopySlices": "torch::autograd::CopySlices",
    "AddmmBackward0:linear": "AddmmBackward0", "MmBackward0:linear": "MmBackward0",
}


def torch_name(name):
    """(class name, ``name()``) of the node recorded under ``name``."""
    full = TORCH_NAMES.get(name, name)
    return full.rsplit("::", 1)[-1], full


def _opt(n):
    """The first ``n`` arguments are tensor edges, absent ones ``(None, 0)`` (weight=None, bias=None)."""
    return lambda node, ins: tuple(_NONE if e is None else e for e in ins[:n])


_T_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _transposed(node, e):
    """The ``TBackward0`` node torch records for ``weight.t()`` inside linear (made when first walked)."""
    if e is None or e[0] is None:
        return _NONE
    t = _T_CACHE.get(node)
    if t is None:
        from .graph import node_class
        t = _T_CACHE[node] = node_class("TBackward0")(None, (), None, (e,), (0,), (0,), (), "TBackward0")
    return (t, 0)


_EDGES = {
    "RsubBackward0": lambda node, ins: (ins[1], ins[0]),
    "RsubBackward1": lambda node, ins: tuple(e for e in ins[::-1] if e is not None),
    "AddmmBackward0:linear": lambda node, ins: (_NONE if ins[2] is None else ins[2], ins[0] or _NONE,
                                                _transposed(node, ins[1])),
    "MmBackward0:linear": lambda node, ins: (ins[0] or _NONE, _transposed(node, ins[1])),
    "NativeLayerNormBackward0": _opt(3), "NativeBatchNormBackward0": _opt(3),
    "NativeGroupNormBackward0": _opt(3), "ConvolutionBackward0": _opt(3),
}


def edges(node):
    """``node.next_functions``: a tuple of (node or None, output index) pairs, as torch's."""
    ins = node.inputs
    if ins is None:
        return ()
    name = node._name
    spec = _EDGES.get(name)
    if spec is not None:
        return spec(node, ins)
    if name in WRAPS_SCALARS:
        return tuple(_NONE if e is None else e for e in ins)
    return tuple(e for e in ins if e is not None)


def relabel(result, name, only=None):
    """Give the node that produced ``result`` (a tensor or a tuple of them) torch's name ``name`` (a str,
    or a function of the node's current class name), for ops composed of others whose ATen op is one node
    (``t_copy`` -> ``TBackward0_copy``).  ``only``: relabel only nodes of that class name."""
    from .graph import node_class
    for t in (result if isinstance(result, tuple) else (result,)):
        node = getattr(t, "_grad_fn", None)
        if node is None or (only is not None and type(node).__name__ != only):
            continue
        new = name if isinstance(name, str) else name(type(node).__name__)
        node.__class__, node._name = node_class(new), new
    return result
