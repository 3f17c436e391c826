"""DistributedSampler (torch.utils.data.distributed): each replica reads its own slice of the indices."""
from __future__ import annotations

from itertools import cycle, islice
from typing import TypeVar

from ... import distributed as dist
from ..._ops.random_ops import randperm
from ..._random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class DistributedSampler(Sampler[_T_co]):
    """Indices for replica ``rank`` of ``num_replicas``: every ``num_replicas``-th index of the (shuffled
    with ``seed + epoch``) order, padded by wrapping around (or truncated with ``drop_last``) so all
    replicas get the same count. Call ``set_epoch`` every epoch to reshuffle.

    >>> from torchlike.utils.data import DistributedSampler
    >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            # unspecified: take them from the initialised process group
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        # every replica gets the same count: drop the tail (drop_last) or round up and pad by wrapping
        self.num_samples = n // num_replicas if drop_last else -(-n // num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _order(self):
        """All dataset indices, shuffled with ``seed + epoch`` when ``shuffle``."""
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        g = Generator().manual_seed(self.seed + self.epoch)
        return randperm(n, generator=g).tolist()

    def __iter__(self):
        # repeating the order cyclically covers both padding (short) and dropping (long)
        order = list(islice(cycle(self._order()), self.total_size))
        if len(order) != self.total_size:
            raise AssertionError(f"Number of indices ({len(order)}) does not match total_size "
                                 f"({self.total_size})")
        mine = order[self.rank::self.num_replicas]
        if len(mine) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(mine)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(mine)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch; with ``shuffle=True`` each epoch gets a different (seed + epoch) order."""
        self.epoch = epoch
