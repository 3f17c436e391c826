"""torchlike.random: the default generator's seeding and state (``torch.random``), plus ``fork_rng``.

>>> import torchlike as torch
>>> _ = torch.random.manual_seed(1)
>>> with torch.random.fork_rng():
...     a = torch.rand(2)
>>> torch.equal(a, torch.rand(2))
True
"""
from __future__ import annotations

from ._random import (Generator, default_generator, fork_rng, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state",
           "thread_safe_generator"]


def thread_safe_generator():
    """The worker's own generator inside a DataLoader *thread* worker, else ``None`` (the default generator).

    >>> import torchlike as torch
    >>> torch.random.thread_safe_generator() is None
    True
    """
    from .utils.data import get_worker_info  # lazy: torchlike.utils.data is built on torchlike (layer above)
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None) is not None:
        return info.rng.torch_generator
    return None
