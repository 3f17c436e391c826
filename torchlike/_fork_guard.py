"""``os.fork()`` next to JAX's runtime, in torchlike's words.

torch's CPU runtime survives a fork; JAX's does not: once a backend has started, a forked child that runs a
tensor operation hangs (the runtime's threads and locks were not copied). Python and numpy code run fine in
such a child, and that is what most forks do (``multiprocessing.Pool`` over plain functions). JAX warns on every
fork once a backend exists, in its own words; torchlike installs its own handler instead (JAX installs its
handler only while no other is marked installed): one warning per process, torchlike's words, attributed to the
user's line. In the child, ``forked_child()`` is true: torchlike then keeps host work on the host (a generator's
seed builds its key as a numpy array), so a DataLoader worker started with ``'fork'`` over a dataset of numbers
and numpy arrays runs.

>>> from torchlike import _fork_guard
>>> _fork_guard.forked_child()
False
"""
from __future__ import annotations

import os

from jax._src import xla_bridge as _xla_bridge

from ._errors import warn_at_caller

__all__ = ["forked_child", "install"]

_state = {"child": False, "warned": False}

MESSAGE = ("os.fork() was called after torchlike started JAX's runtime: a tensor operation in the forked child "
           "will hang (JAX's runtime is multithreaded and does not survive a fork); Python and numpy code in it "
           "run fine. For children that compute with tensors, use torch.multiprocessing or the 'spawn' or "
           "'forkserver' start method.")


def forked_child():
    """Whether this process was forked from one whose JAX runtime had started."""
    return _state["child"]


def _before_fork():
    if _xla_bridge._backends and not _state["warned"]:
        _state["warned"] = True
        warn_at_caller(MESSAGE, RuntimeWarning)


def _after_in_child():
    if _xla_bridge._backends:
        _state["child"] = True


def install():
    """Put torchlike's fork handlers in place of JAX's (before any backend starts; later, JAX's is in place)."""
    if not hasattr(os, "register_at_fork") or _xla_bridge._at_fork_handler_installed:
        return
    _xla_bridge._at_fork_handler_installed = True
    os.register_at_fork(before=_before_fork, after_in_child=_after_in_child)
