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

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]
