"""``torch.multiprocessing.Process`` / ``Pool``: Python's, except that the default start method never forks a
process whose JAX runtime is running.

Linux's default start method is ``fork``. torch's CPU runtime survives a fork; JAX's does not: once a backend
has started, a forked child that computes hangs in XLA's compiler (its threads and locks were not copied).
So while the start method is unset or ``fork`` and a JAX backend exists, processes start from torchlike's
fork server (the one DataLoader workers use: it imported torchlike and never started a backend), else from
``spawn``. As with ``spawn``, the target and its arguments are pickled (a lambda or local function target
raises pickle's error) and the main module must be import-safe (``if __name__ == "__main__":``); tensors
moved to shared memory (``share_memory_()``) arrive shared. Before any backend starts, ``fork`` is used as
in torch.
"""
from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import context as _context

__all__ = ["Process", "Pool"]


def _backend_started():
    from jax._src import xla_bridge  # lazy: only asked when a process starts
    return bool(xla_bridge._backends)


def _context_for_start():
    method = _mp.get_start_method(allow_none=True)
    if method not in (None, "fork") or not _backend_started():
        return _mp.get_context(method)
    from ..utils.data import _worker_start  # lazy: the data package's fork server, started on first use
    return _worker_start.default_context()


class Process(_context.Process):
    """``multiprocessing.Process`` that starts safely next to a running JAX backend (see the module).

    >>> import torchlike.multiprocessing as mp
    >>> issubclass(mp.Process, __import__("multiprocessing").Process)
    True
    """

    @staticmethod
    def _Popen(process_obj):
        return _context_for_start().Process._Popen(process_obj)


def Pool(processes=None, initializer=None, initargs=(), maxtasksperchild=None):
    """``multiprocessing.Pool`` whose workers start as :class:`Process` does."""
    return _context_for_start().Pool(processes, initializer, initargs, maxtasksperchild)
