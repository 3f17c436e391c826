"""Process groups on JAX's distributed runtime.

``init_process_group`` starts ``jax.distributed`` (its coordinator service is the rendezvous; rank R is JAX
process R) with gloo CPU collectives. A group is a 1-d ``jax.sharding.Mesh`` (axis ``"r"``) over the first
local device of each member process; collectives (``_collectives``) are XLA programs over that mesh.
"""
from __future__ import annotations

import datetime
import os
import sys
import weakref

from . import _rendezvous, _runtime

__all__ = [
    "Backend",
    "GroupMember",
    "ProcessGroup",
    "Work",
    "barrier",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "new_group",
]

default_pg_timeout = datetime.timedelta(minutes=30)


class Backend(str):
    """Backend names (``Backend.GLOO == "gloo"``)."""
    UNDEFINED, GLOO, NCCL, MPI, XCCL = "undefined", "gloo", "nccl", "mpi", "xccl"
    UCC, FAKE = "ucc", "fake"
    # torch's tables (libraries pick a backend per device from them)
    backend_list = ["undefined", "gloo", "nccl", "xccl", "ucc", "mpi", "fake"]
    default_device_backend_map = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo"}
    backend_capability = {"gloo": ["cpu", "cuda"], "nccl": ["cuda"], "xccl": ["xpu"], "ucc": ["cpu", "cuda"],
                          "mpi": ["cpu", "cuda"], "fake": ["cpu", "cuda", "hpu", "xpu"]}

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of ranks; holds the JAX mesh its collectives run on.

    >>> import torchlike.distributed as dist
    >>> dist.init_process_group("gloo", rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    >>> g = dist.new_group([0])
    >>> g.size(), g.rank(), dist.get_process_group_ranks(g)
    (1, 0, [0])
    >>> dist.destroy_process_group()
    """

    _next_id = 0

    def __init__(self, ranks, backend):
        import numpy as np
        from jax.sharding import Mesh
        self.ranks = list(ranks)
        self._backend = backend
        self._id = ProcessGroup._next_id
        self._seq = 0  # collectives issued on this group: every member counts the same
        ProcessGroup._next_id += 1
        devs = _state["devices"]
        self.mesh = Mesh(np.array([devs[r] for r in self.ranks], dtype=object), ("r",))

    def size(self):
        return len(self.ranks)

    def rank(self):
        r = _state["rank"]
        return self.ranks.index(r) if r in self.ranks else -1

    def name(self):
        return self._backend

    @property
    def group_name(self):
        """This process's name for the group (functional collectives accept it in place of the group)."""
        return str(self._id)

    def __repr__(self):
        return f"<torchlike.distributed.ProcessGroup ranks={self.ranks} backend={self._backend}>"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD = None


_state = {"initialized": False, "rank": 0, "world": 1, "backend": None, "timeout": default_pg_timeout,
          "devices": None, "seq": 0}

# The modules built on this one follow the default group through this hook list (filled when they are
# imported, which `torchlike.distributed`'s __init__ does): each callable gets the new WORLD group from
# init_process_group and None from destroy_process_group (traced collectives' runtime, program caches).
on_world_change: list = []


def is_available() -> bool:
    """True: torchlike.distributed is built in."""
    return True


def is_gloo_available():
    return True


def is_nccl_available():
    try:
        import jax
        return any(d.platform == "gpu" for d in jax.devices())
    except Exception:
        return False


def is_mpi_available():
    return False


def is_torchelastic_launched():
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    """Whether the default process group has been initialised."""
    return _state["initialized"]


def _env_int(name, default=None):
    v = os.environ.get(name)
    if v is None:
        if default is not None:
            return default
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                         f"{name} expected, but not set")
    return int(v)


def _url_rank_world(scheme, query, rank, world_size):
    """rank / world_size from the arguments or the URL's query (``?rank=0&world_size=2``), as torch reads them."""
    q = dict(kv.split("=", 1) for kv in query.split("&") if "=" in kv)
    if rank == -1 and "rank" in q:
        rank = int(q["rank"])
    if world_size == -1 and "world_size" in q:
        world_size = int(q["world_size"])
    if rank == -1:
        raise ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: rank parameter missing")
    if world_size == -1:
        raise ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: world size "
                         f"parameter missing")
    return rank, world_size


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the default process group: rank ``rank`` of ``world_size`` processes, rendezvous at
    ``init_method`` (``env://``: MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE; ``tcp://host:port``;
    ``file:///shared/path``: rank 0 writes its address to a new file that the others read), or through
    ``store`` (a ``TCPStore``/``FileStore``/... that all ranks share; ``rank`` and ``world_size`` required).

    With one process and no environment it makes a group of one. See ``ProcessGroup`` for an example.
    """
    if _state["initialized"]:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    if store is not None:
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
    single_default = "RANK" not in os.environ and "WORLD_SIZE" not in os.environ and init_method is None
    if store is not None:
        addr, port = _rendezvous.through_store(store, rank, world_size)
    elif init_method is None or init_method == "env://":
        if single_default and world_size in (-1, 1) and rank in (-1, 0):
            world_size, rank = 1, 0
        if world_size == -1:
            world_size = _env_int("WORLD_SIZE")
        if rank == -1:
            rank = _env_int("RANK")
        addr = os.environ.get("MASTER_ADDR")
        port = os.environ.get("MASTER_PORT")
        if world_size > 1 and addr is None:
            _env_int("MASTER_ADDR")
        if world_size > 1 and port is None:
            _env_int("MASTER_PORT")
    elif init_method.startswith(("tcp://", "file://")):
        scheme, _, rest = init_method.partition("://")
        where, _, query = rest.partition("?")
        rank, world_size = _url_rank_world(scheme, query, rank, world_size)
        if scheme == "tcp":
            addr, _, port = where.rpartition(":")
        else:
            addr, port = _rendezvous.through_file(where, rank, world_size, timeout.total_seconds())
    else:
        raise ValueError(f"No rendezvous handler for {init_method.split(':')[0]}://")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, world size {world_size}" if rank >= 0 else
                         f"Invalid rank {rank}")
    backend = Backend(backend or ("nccl" if is_nccl_available() else "gloo"))
    if backend not in ("gloo", "nccl", "cpu:gloo,cuda:nccl"):
        raise RuntimeError(f"Invalid backend: '{backend}'")
    import jax
    if world_size > 1:
        if _runtime.state["error"]:
            raise RuntimeError(f"torchlike.distributed: rendezvous at {addr}:{port} as rank {rank} of {world_size} "
                               f"failed: {_runtime.state['error']}")
        if not _runtime.state["started"]:
            from jax._src import xla_bridge
            if xla_bridge._backends:
                raise RuntimeError("torchlike.distributed: JAX's distributed runtime must start before any "
                                   "computation; launch with `python -m torchlike.distributed.run` (or torchrun's "
                                   "environment incl. TORCHELASTIC_RUN_ID) so it starts when torchlike is imported")
            try:
                _runtime.start(addr, port, world_size, rank, timeout.total_seconds(), backend)
            except Exception as e:  # JAX's error types must not reach users
                raise RuntimeError(f"torchlike.distributed: rendezvous at {addr}:{port} as rank {rank} of "
                                   f"{world_size} failed: {_short(e)}") from None
        elif (_runtime.state["rank"], _runtime.state["world"]) != (rank, world_size):
            raise RuntimeError(f"init_process_group(rank={rank}, world_size={world_size}) disagrees with the "
                               f"launcher's RANK={_runtime.state['rank']}, WORLD_SIZE={_runtime.state['world']}")
    firsts = {}
    for d in jax.devices():
        firsts.setdefault(d.process_index, d)
    devices = [firsts[p] for p in sorted(firsts)] if world_size > 1 else [jax.local_devices()[0]]
    _state.update(initialized=True, rank=rank, world=world_size, backend=backend, timeout=timeout,
                  devices=devices, seq=0, broken=None, store=store)
    group.WORLD = GroupMember.WORLD = ProcessGroup(range(world_size), backend)
    _register(group.WORLD)
    for hook in on_world_change:
        hook(group.WORLD)
    _install_excepthook()


def _short(e):
    msg = str(e).strip().splitlines()
    return msg[0] if msg else type(e).__name__


def destroy_process_group(group=None):
    """Leave the default group (the JAX runtime stays up: it can only start once per process)."""
    if group is None or group is GroupMember.WORLD:
        _state.update(initialized=False, rank=0, world=1, backend=None, broken=None)
        globals()["group"].WORLD = GroupMember.WORLD = None
        for hook in on_world_change:
            hook(None)


# the groups a user made (the world, new_group, a DeviceMesh's dimensions), by their ranks and by their names:
# functional collectives name a group by either (torch.distributed._functional_collectives)
_registered = weakref.WeakValueDictionary()


def _register(g):
    _registered[tuple(g.ranks)] = g
    _registered[g.group_name] = g


def _need():
    if not _state["initialized"]:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def _group(g):
    _need()
    return GroupMember.WORLD if g is None else g


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (default: the world); -1 when it is not a member."""
    return _group(group).rank()


def get_world_size(group=None) -> int:
    """The number of ranks in ``group``."""
    return _group(group).size()


def get_backend(group=None) -> str:
    """The group's backend name ("gloo" on CPU)."""
    return _group(group)._backend


def get_process_group_ranks(group):
    return list(_group(group).ranks)


def get_group_rank(group, global_rank):
    g = _group(group)
    if global_rank not in g.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g}")
    return g.ranks.index(global_rank)


def get_global_rank(group, group_rank):
    return _group(group).ranks[group_rank]


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of ``ranks`` (all ranks when None); every rank must call it, as in torch."""
    _need()
    ranks = sorted(range(_state["world"]) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < _state["world"]:
            raise ValueError(f"The new group's rank should be within the world_size set by init_process_group, "
                             f"but got rank {r}")
    g = ProcessGroup(ranks, backend or _state["backend"])
    _register(g)
    return g if _state["rank"] in ranks else GroupMember.NON_GROUP_MEMBER


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of ``group`` arrives (the JAX coordination service's barrier)."""
    g = _group(group)
    g._seq += 1  # a barrier takes a sequence number, as in torch
    if g.size() == 1:
        return Work(None) if async_op else None
    from jax._src import distributed as jd
    _state["seq"] += 1
    ms = int(_state["timeout"].total_seconds() * 1000)
    try:
        jd.global_state.client.wait_at_barrier(f"tl_barrier_{g._id}_{_state['seq']}", ms, g.ranks)
    except Exception as e:
        raise RuntimeError(f"barrier timed out or failed after {ms} ms on rank {_state['rank']}: "
                           f"{_short(e)}; not every rank of {g.ranks} arrived") from None
    return Work(None) if async_op else None


class Work:
    """The handle of an ``async_op=True`` collective: ``wait()`` blocks until the result is in the tensor (or
    raises torch's RuntimeError on a timeout or a mismatch between ranks)."""

    def __init__(self, calls, finish=None):
        self._calls = calls or []
        self._finish = finish
        self._done = not self._calls and finish is None
        self._exc = None

    def wait(self, timeout=None):
        if not self._done:
            try:
                for c in self._calls:
                    c.wait()
                if self._finish is not None:
                    self._finish()
            except Exception as e:
                self._exc = e
                raise
            finally:
                self._done = True
        elif self._exc is not None:
            raise self._exc
        return True

    def is_completed(self):
        return self._done or all(c.done() for c in self._calls)

    def is_success(self):
        return self.is_completed() and self._exc is None

    def exception(self):
        return self._exc

    def result(self):
        self.wait()
        return []

    def get_future(self):
        from concurrent.futures import Future
        f = Future()
        self.wait()
        f.set_result(self.result())
        f.wait = f.result
        f.value = f.result
        return f

    done = is_completed


def _install_excepthook():
    """After a failed collective the runtime may hang at exit: print the error and leave at once."""
    if getattr(sys.excepthook, "_torchlike", False) or _state["world"] == 1:
        return
    prev = sys.excepthook

    def hook(tp, val, tb):
        prev(tp, val, tb)
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(1)

    hook._torchlike = True
    sys.excepthook = hook
