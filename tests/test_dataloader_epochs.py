"""DataLoader workers across epochs (persistent_workers=False, the default) compared with real torch.

torchlike forks each epoch's workers from a private fork server that has imported JAX
(utils/data/_worker_start.py); every epoch must still see what torch's fresh workers see: new processes,
a fresh copy of the dataset, ``worker_init_fn`` once per worker, per-epoch seeds derived from the loader's
generator, ``get_worker_info()`` ids. torch is imported inside the tests only: spawned torchlike workers
import this module to unpickle its datasets and must not pay for importing torch.
"""
import os
import sys

import pytest

import torchlike
import torchlike.utils.data as lud

_STATE = {"inits": 0}


def _lib(name):
    return sys.modules[name] if name in sys.modules else __import__(name)


class EpochDS:
    """Items ``(i, worker id, num_workers, pid, initial seed, init calls seen, calls on this copy)``."""

    def __init__(self, lib, n):
        self.lib, self.n, self.calls = lib, n, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t = _lib(self.lib)
        info = t.utils.data.get_worker_info()
        self.calls += 1
        return (i, info.id, info.num_workers, os.getpid(), t.initial_seed(), _STATE["inits"], self.calls)


def _init(worker_id):
    _STATE["inits"] += 1


class FailingDS:
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i


class EnvDS:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return os.environ.get("TORCHLIKE_DL_TEST_VAR", "unset")


def _epochs(lib, epochs=2, **kw):
    t = _lib(lib)
    loader = t.utils.data.DataLoader(EpochDS(lib, 12), batch_size=3, shuffle=True, num_workers=2,
                                     worker_init_fn=_init, generator=t.Generator().manual_seed(7), **kw)
    out = []
    for _ in range(epochs):
        rows = []
        for batch in loader:
            rows += [tuple(int(col[k]) for col in batch) for k in range(len(batch[0]))]
        out.append(rows)
    return out


def _summary(epochs):
    """What must agree with torch (pids differ between runs; only their pattern is compared)."""
    summary = []
    pids = []
    for rows in epochs:
        order = [r[0] for r in rows]
        per_worker = {}
        for i, wid, nw, pid, seed, inits, calls in rows:
            per_worker.setdefault(wid, []).append((nw, seed, inits, calls))
            pids.append((len(summary), wid, pid))
        summary.append((order, {w: (v[0][0], v[0][1], sorted({x[2] for x in v}), [x[3] for x in v])
                                for w, v in sorted(per_worker.items())}))
    by_epoch_worker = {}
    for epoch, wid, pid in pids:
        by_epoch_worker.setdefault((epoch, wid), set()).add(pid)
    distinct = len({frozenset(p) for p in by_epoch_worker.values()})
    return summary, distinct, all(len(p) == 1 for p in by_epoch_worker.values())


def test_fresh_workers_every_epoch_match_torch():
    torch = pytest.importorskip("torch")
    assert torch.__name__ == "torch"
    ours, theirs = _summary(_epochs("torchlike")), _summary(_epochs("torch"))
    # same shuffled order, same worker per item, same per-epoch seeds (base_seed + worker id, a new
    # base_seed drawn from the loader's generator each epoch), worker_init_fn run once in each fresh
    # worker, a fresh dataset copy whose call counter restarts, and a new process per worker per epoch
    assert ours == theirs
    summary, distinct, one_pid_each = ours
    assert distinct == 4 and one_pid_each
    seeds = [w[1] for _, workers in summary for w in workers.values()]
    assert len(set(seeds)) == 4
    assert all(w[2] == [1] for _, workers in summary for w in workers.values())


def test_persistent_workers_match_torch():
    pytest.importorskip("torch")
    ours = _summary(_epochs("torchlike", persistent_workers=True))
    theirs = _summary(_epochs("torch", persistent_workers=True))
    assert ours == theirs
    assert ours[1] == 2  # the same two processes serve both epochs


@pytest.mark.parametrize("exc", [ValueError("bad item"), KeyError("missing")])
def test_worker_error_type_and_message_match_torch(exc):
    torch = pytest.importorskip("torch")
    caught = []
    for lib in (torchlike, torch):
        with pytest.raises(type(exc)) as info:
            list(lib.utils.data.DataLoader(FailingDS(exc), batch_size=None, num_workers=1))
        caught.append(str(info.value).split("\n"))
    ours, theirs = caught
    assert ours[:2] == theirs[:2]  # "Caught ValueError in DataLoader worker process 0." / "Original Traceback..."
    assert ours[-1] == theirs[-1]  # the original exception line


def test_fork_server_workers_are_children_of_the_server():
    from torchlike.utils.data import _worker_start
    ctx = _worker_start.default_context()
    if ctx.get_start_method() != "forkserver":
        pytest.skip("fork server start method unavailable on this platform")
    rows = _epochs("torchlike", epochs=1)[0]
    assert {r[3] for r in rows}.isdisjoint({os.getpid(), _worker_start._SERVER._forkserver_pid})
    # the workers see the main process's environment as it is now, not as it was when the server started
    os.environ["TORCHLIKE_DL_TEST_VAR"] = "now"
    try:
        assert list(lud.DataLoader(EnvDS(), batch_size=None, num_workers=1)) == ["now", "now"]
    finally:
        del os.environ["TORCHLIKE_DL_TEST_VAR"]
    # a changed startup variable is not what the server's children would see: fall back to spawn
    os.environ["JAX_TORCHLIKE_TEST_ENV_CHANGED"] = "1"
    try:
        assert _worker_start.default_context().get_start_method() == "spawn"
    finally:
        del os.environ["JAX_TORCHLIKE_TEST_ENV_CHANGED"]
    assert _worker_start.default_context() is ctx
    # a server whose boot reported a problem (e.g. a JAX backend started while importing) is never used
    status = _worker_start._SERVER.status
    _worker_start._SERVER.status = "importing torchlike started a JAX backend"
    try:
        assert _worker_start.default_context().get_start_method() == "spawn"
    finally:
        _worker_start._SERVER.status = status


Point = __import__("collections").namedtuple("Point", ["x", "y"])


class MixedDS:
    """Samples mixing every container and leaf type default_collate handles."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 7

    def __getitem__(self, i):
        import numpy as np
        t = _lib(self.lib)
        return {"t": t.full((2,), float(i)), "pair": (i, float(i) / 2), "list": [t.tensor(i), "s%d" % i],
                "point": Point(np.array([i, i + 1], dtype=np.int16), np.float32(i)), "name": f"item{i}",
                "flag": bool(i % 2)}


def _describe(batch):
    """A library-neutral description: container types, tensor dtypes and values."""
    if type(batch).__name__ == "Tensor":
        return ("Tensor", str(batch.dtype), tuple(batch.shape), batch.tolist())
    if isinstance(batch, dict):
        return ("dict", {k: _describe(v) for k, v in batch.items()})
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_describe(v) for v in batch])
    return (type(batch).__name__, batch)


def test_worker_batches_match_torch():
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torchlike, torch):
        loader = lib.utils.data.DataLoader(MixedDS(lib.__name__), batch_size=3, shuffle=True, num_workers=2,
                                           drop_last=True, timeout=120, pin_memory=False,
                                           generator=lib.Generator().manual_seed(3))
        got.append([_describe(b) for b in loader])
    assert got[0] == got[1]
    assert len(got[0]) == 2  # drop_last dropped the partial batch
