"""torch.cuda.random: the CUDA generator's seeding and state functions (the same ones ``torch.cuda`` exports;
torchlike has one generator for every device, and without a GPU seeding is queued as in torch: a no-op).

>>> import torchlike
>>> torchlike.cuda.random.manual_seed(0) is None
True
"""
from . import (get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed, seed_all,
               set_rng_state, set_rng_state_all)

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]
