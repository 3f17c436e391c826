"""torch.mps as torch answers it off Apple silicon: no MPS device (``is_available()`` False, ``device_count()``
0); ``manual_seed`` does nothing, and the calls that need the backend raise torch's RuntimeError
"Cannot execute ...() without MPS backend."

>>> import torchlike
>>> torchlike.mps.is_available(), torchlike.mps.device_count()
(False, 0)
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "manual_seed", "seed", "get_rng_state",
           "set_rng_state", "current_allocated_memory", "driver_allocated_memory", "recommended_max_memory",
           "set_per_process_memory_fraction"]


def _no_mps(what):
    raise RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available() -> bool:
    """False: JAX has no Metal backend here."""
    return False


def device_count() -> int:
    return 0


def manual_seed(seed) -> None:
    """Nothing to seed without the backend (torch returns quietly too)."""


def synchronize() -> None:
    _no_mps("deviceSynchronize")


def empty_cache() -> None:
    _no_mps("emptyCache")


def seed() -> None:
    _no_mps("getDefaultGenerator")


def get_rng_state(device="mps"):
    _no_mps("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    _no_mps("getDefaultGenerator")


def current_allocated_memory() -> int:
    _no_mps("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    _no_mps("getDriverAllocatedMemory")


def recommended_max_memory() -> int:
    _no_mps("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction) -> None:
    _no_mps("setMemoryFraction")
