"""torch.utils.data.backward_compatibility: the deprecated sharding ``worker_init_fn``.

>>> import warnings
>>> from torchlike.utils.data.backward_compatibility import worker_init_fn
>>> with warnings.catch_warnings(record=True):
...     worker_init_fn(0)
"""
import warnings

__all__ = ["worker_init_fn"]


def worker_init_fn(worker_id) -> None:
    """Does nothing (DataLoader shards datapipes in every worker itself); deprecated as in torch."""
    warnings.warn("Usage of `backward_compatibility.worker_init_fn` is deprecated as `DataLoader` automatically "
                  "applies sharding in every worker", FutureWarning, stacklevel=2)
