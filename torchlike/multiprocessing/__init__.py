"""torchlike.multiprocessing: Python's ``multiprocessing`` plus torch's sharing-strategy knobs and
``spawn``. ``Process`` and ``Pool`` never fork a process whose JAX runtime has started (a forked child that
computes would hang): they use torchlike's fork server or ``spawn`` instead (see ``_process``). Tensors
moved to shared memory (``share_memory_()``) are shared with the processes they are passed to.

>>> import torchlike as torch
>>> torch.multiprocessing.get_sharing_strategy() in torch.multiprocessing.get_all_sharing_strategies()
True
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

from ._process import Pool, Process
from .spawn import ProcessContext, ProcessExitedException, ProcessRaisedException, spawn, start_processes

__all__ = list(_mp.__all__) + ["get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies",
                               "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                               "ProcessExitedException"]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def get_all_sharing_strategies():
    """The tensor-sharing strategies torch knows (tensors are pickled by value here, so both behave alike)."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    return _strategy


def set_sharing_strategy(new_strategy):
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy: {new_strategy}")
    _strategy = new_strategy
