"""DTensor placements: how a tensor lies on one mesh dimension (``Shard(dim)``, ``Replicate()``,
``Partial(reduce_op)``).

>>> from torchlike.distributed.tensor.placement_types import Shard, Replicate, Partial
>>> Shard(0), Replicate(), Partial()
(Shard(dim=0), Replicate(), Partial(sum))
>>> str(Shard(1)), str(Partial("max"))
('S(1)', 'P(max)')
"""
from __future__ import annotations

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """Base class of the placements."""

    def is_shard(self, dim=None):
        return isinstance(self, Shard) and (dim is None or self.dim == dim)

    def is_replicate(self):
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op=None):
        return isinstance(self, Partial) and (reduce_op is None or self.reduce_op == reduce_op)


class Shard(Placement):
    """Split tensor dim ``dim`` evenly (``torch.chunk`` style) over the mesh dimension."""

    __slots__ = ("dim",)

    def __init__(self, dim):
        self.dim = dim

    def __eq__(self, other):
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self):
        return hash(("Shard", self.dim))

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor."""

    def __eq__(self, other):
        return type(other) is Replicate

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


class Partial(Placement):
    """Each rank holds a partial value; the tensor is their reduction (``reduce_op``: sum, avg, max, min)."""

    __slots__ = ("reduce_op",)

    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op

    def __eq__(self, other):
        return type(other) is Partial and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("Partial", self.reduce_op))

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
