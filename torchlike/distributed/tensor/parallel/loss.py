"""``loss_parallel``: cross-entropy on logits sharded over the class dimension.

torch computes the loss of a class-sharded DTensor shard by shard, with hand-written all-reduces of the row max and
the sum of exponentials. A torchlike DTensor is one global ``jax.Array`` laid out over the mesh, so
``F.cross_entropy`` on it already is the loss of the whole tensor (XLA's partitioner inserts those reductions).
What the context adds is torch's contract: inside it, the logits given to ``cross_entropy`` must be sharded on the
class dimension by exactly one mesh dimension (else torch's ``ValueError``), a DTensor target must have the
placements torch derives from the logits', and the loss comes back as a DTensor (replicated on the class-sharding
mesh dimension) whose backward reaches the logits.

>>> import torchlike
>>> import torchlike.nn.functional as F
>>> from torchlike.distributed.device_mesh import init_device_mesh
>>> from torchlike.distributed.tensor import Shard, distribute_tensor
>>> from torchlike.distributed.tensor.parallel import loss_parallel
>>> logits = distribute_tensor(torchlike.zeros(2, 4), init_device_mesh("cpu", (1,)), [Shard(1)])
>>> with loss_parallel():
...     loss = F.cross_entropy(logits, torchlike.tensor([0, 3]))
>>> loss.placements, round(loss.item(), 4)
((Replicate(),), 1.3863)
"""
from __future__ import annotations

import contextlib

from ....nn.functional import _loss
from ....tensor import Tensor
from .._dtensor import DTensor, _alias
from ..placement_types import Partial, Replicate, Shard

__all__ = ["loss_parallel"]

_MIXED = ("{} got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling "
          "distributed operators!")


@contextlib.contextmanager
def loss_parallel():
    """Within the context, ``F.cross_entropy`` / ``nn.CrossEntropyLoss`` on a DTensor sharded on the class dim
    computes the loss without gathering the logits; run the matching ``backward()`` inside it too.

    >>> from torchlike.distributed.tensor.parallel import loss_parallel
    >>> with loss_parallel():
    ...     pass
    """
    _loss.subclass_cross_entropy.append(_cross_entropy)
    try:
        yield
    finally:
        _loss.subclass_cross_entropy.remove(_cross_entropy)


def _tp_mesh_dim(placements, dim):
    """The one mesh dim that shards tensor dim ``dim`` (torch's ``_find_all_reduce_mesh_dim``)."""
    dims = [i for i, p in enumerate(placements) if p.is_shard(dim)]
    if len(dims) != 1:
        raise ValueError(f"loss_parallel() requires exactly one mesh dim to shard tensor dimension {dim}, but got "
                         f"placements {tuple(placements)} with {len(dims)} such mesh dim(s).")
    for i, p in enumerate(placements):
        if i != dims[0] and not (p.is_shard() or p.is_replicate()):
            raise ValueError(f"loss_parallel() expects non-TP mesh dims to be Shard or Replicate, got {p} at dim {i}.")
    return dims[0]


def _expect(t, placements):
    """A DTensor target/weight must already have ``placements``; a plain tensor must not need sharding."""
    if isinstance(t, DTensor):
        if tuple(t.placements) != placements:
            raise RuntimeError(f"Expected {placements} but got {tuple(t.placements)}.")
        return _alias(t)
    if any(p.is_shard() for p in placements):
        raise ValueError(f"loss_parallel() requires a DTensor (not a plain torch.Tensor) when the derived "
                         f"placements {placements} contain Shard — this happens on a multi-dimensional mesh with "
                         f"a batch-sharded non-TP dim. Wrap the tensor with DTensor.from_local or distribute_tensor "
                         f"to make the sharding explicit.")
    return t


def _cross_entropy(ce, input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing):
    """``cross_entropy`` of a Tensor subclass while ``loss_parallel`` is active (``ce``: the plain function)."""
    if not isinstance(input, DTensor):
        return ce(_alias(input), target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
    mesh, placements = input.device_mesh, tuple(input.placements)
    cdim = 1 if input.ndim >= 2 else 0
    tp = _tp_mesh_dim(placements, cdim)
    if isinstance(target, Tensor) and target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape):
        raise RuntimeError(_MIXED.format("aten.mul.Tensor"))  # torch: class probabilities are not supported
    if label_smoothing > 0.0:
        raise RuntimeError(_MIXED.format("aten.masked_fill_.Scalar"))  # torch: label smoothing is not supported
    # the target's placements: the class-sharding dim replicated, shards of later dims shifted down by one
    tpl = tuple(Replicate() if i == tp else Shard(p.dim - 1) if p.is_shard() and p.dim > cdim else p
                for i, p in enumerate(placements))
    target = _expect(target, tpl)
    if weight is not None:
        weight = _expect(weight, (Replicate(),) * mesh.ndim)
    red = reduction if size_average is None and reduce is None else None
    if red == "mean" and mesh.ndim > 1:
        raise NotImplementedError(f"loss_parallel() with reduction='mean' is only supported on one-dimensional "
                                  f"DeviceMesh; got mesh with ndim={mesh.ndim}. Use reduction='sum' or 'none' "
                                  f"instead.")
    out = ce(_alias(input), target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
    if out.ndim:  # reduction='none': laid out as the target
        out_placements = tpl
    else:  # torchlike's value is already the global loss: Partial dims hold the reduced value
        out_placements = tuple(Replicate() if i == tp else Partial() if p.is_shard() else p
                               for i, p in enumerate(placements))
    d = out.as_subclass(DTensor)
    d.__dict__.update(_spec=(mesh, out_placements), _local=None)
    return d
