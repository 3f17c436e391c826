"""torch.xpu as a torch build without XPU support answers it: no device (``is_available()`` is False,
``device_count()`` 0); the seeding, cache and memory-statistics calls that torch lets through are no-ops or zeros,
and the calls that need a device raise torch's AssertionError. Libraries probe ``torch.xpu.is_available()``
(Hugging Face's seeding and device selection) before they use it.

>>> import torchlike
>>> torchlike.xpu.is_available(), torchlike.xpu.device_count()
(False, 0)
"""
from __future__ import annotations

import collections

__all__ = ["is_available", "device_count", "is_initialized", "is_bf16_supported", "is_tf32_supported", "init",
           "current_device", "set_device", "synchronize", "get_device_name", "get_device_properties",
           "get_device_capability", "current_stream", "mem_get_info", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "initial_seed", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "get_arch_list", "get_gencode_flags", "default_generators",
           "device", "Event", "Stream"]

_NOT_COMPILED = "Torch not compiled with XPU enabled"
default_generators: tuple = ()


def _no_xpu():
    raise AssertionError(_NOT_COMPILED)


def is_available() -> bool:
    """False: torchlike runs on JAX's CPU, GPU and TPU backends, none of which is an Intel XPU."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def init():
    _no_xpu()


def current_device():
    _no_xpu()


def set_device(device):
    _no_xpu()


def synchronize(device=None):
    _no_xpu()


def get_device_name(device=None):
    _no_xpu()


def get_device_properties(device=None):
    _no_xpu()


def get_device_capability(device=None):
    _no_xpu()


def current_stream(device=None):
    _no_xpu()


def mem_get_info(device=None):
    _no_xpu()


def get_rng_state(device="xpu"):
    _no_xpu()


def set_rng_state(new_state, device="xpu"):
    _no_xpu()


def initial_seed():
    _no_xpu()


def get_rng_state_all() -> list:
    return []


def set_rng_state_all(new_states) -> None:
    """Nothing to set: there are no XPU generators."""


def manual_seed(seed) -> None:
    """Nothing to seed (torch queues the seed for a device that never comes)."""


def manual_seed_all(seed) -> None:
    """Nothing to seed."""


def seed() -> None:
    """Nothing to seed."""


def seed_all() -> None:
    """Nothing to seed."""


def empty_cache() -> None:
    """No cache to empty."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_stats(device=None) -> collections.OrderedDict:
    return collections.OrderedDict()


def get_arch_list() -> list:
    return []


def get_gencode_flags() -> str:
    return ""


class device:
    """Context manager that selects an XPU device: entering it needs one."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        raise NotImplementedError("PyTorch was compiled without XPU support")

    def __exit__(self, *exc):
        return False


class _Dummy:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"Tried to instantiate dummy base class {type(self).__name__}")


class Event(_Dummy):
    """An XPU event (torch's placeholder class without XPU support)."""


class Stream(_Dummy):
    """An XPU stream (torch's placeholder class without XPU support)."""
