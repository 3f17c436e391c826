"""torchlike.utils.data DataLoader with real (spawned) worker processes.

This module deliberately does not import torch: spawned workers import it to unpickle the datasets
defined here, and importing torch would add seconds to every worker start. References come from
torchlike's own single-process DataLoader, whose outputs tests/test_data.py checks against torch.
"""
import random
import threading

import numpy as np
import pytest

import torchlike
import torchlike.utils.data as lud


# ---- DataLoader with worker processes (spawned: keep these few) -----------------------------------
class WorkerDS(lud.Dataset):
    """Samples carry the id of the worker that produced them and a draw from its seeded RNGs."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(f"index {i} is out of range")
        info = lud.get_worker_info()
        return {"x": torchlike.full((2,), float(i)), "i": i, "worker": -1 if info is None else info.id,
                "seed": 0 if info is None else info.seed, "np": np.array([i], dtype=np.int16),
                "tag": _INIT_TAG.get("tag", "none"), "rand": float(torchlike.rand(()).item()),
                "nprand": np.random.rand(), "pyrand": random.random()}


_INIT_TAG = {}


def _init_fn(worker_id):
    info = lud.get_worker_info()
    assert info is not None and info.id == worker_id and isinstance(info.dataset, WorkerDS)
    _INIT_TAG["tag"] = f"init{worker_id}of{info.num_workers}"


class ShardedIterable(lud.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = lud.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def test_dataloader_workers_map_style():
    sampler = [[0, 1, 2], [3, 4], [5, 6, 7], [8, 9]]
    dl = lud.DataLoader(WorkerDS(10), batch_sampler=sampler, num_workers=2, worker_init_fn=_init_fn,
                        persistent_workers=True, generator=torchlike.Generator().manual_seed(0))
    ref = list(lud.DataLoader(WorkerDS(10), batch_sampler=sampler))
    epochs = [list(dl) for _ in range(2)]
    for batches in epochs:
        assert len(batches) == len(ref)
        for k, (b, r) in enumerate(zip(batches, ref)):
            for key in ("x", "i", "np"):
                # rebuilt as torchlike Tensors with the same dtypes and values
                assert str(b[key].dtype) == str(r[key].dtype) and b[key].tolist() == r[key].tolist()
            assert b["worker"].tolist() == [k % 2] * len(b["i"])  # round-robin, in order
            assert b["tag"] == [f"init{k % 2}of2"] * len(b["i"])
            assert len(set(b["seed"].tolist())) == 1
    seeds = {e[0]["seed"][0].item() for e in epochs} | {e[1]["seed"][0].item() for e in epochs}
    assert len(seeds) == 2  # base_seed + worker_id, per worker
    first0, first1 = epochs[0][0], epochs[0][1]  # the first batch each worker produced
    assert first0["rand"][0].item() != first1["rand"][0].item()  # workers' torchlike RNGs differ
    # torch's seeding scheme: random.seed(base_seed + id), numpy seeded with _generate_state(base_seed, id)
    from torchlike.utils.data._worker import _generate_state
    for wid, first in ((0, first0), (1, first1)):
        seed = first["seed"][0].item()
        assert first["pyrand"][0].item() == random.Random(seed).random()
        assert first["nprand"][0].item() == np.random.RandomState(_generate_state(seed - wid, wid)).rand()

    # an exception in a worker surfaces in the main process with the worker's traceback
    dl.batch_sampler.append([10])
    with pytest.raises(IndexError) as e:
        list(dl)
    msg = str(e.value)
    assert "Caught IndexError in DataLoader worker process" in msg and "Original Traceback" in msg
    assert "__getitem__" in msg


def test_dataloader_workers_iterable_sharding():
    # each worker iterates its own copy, sharded via get_worker_info(); in_order=False hands batches over
    # as they arrive, so only the set of batches is fixed
    dl = lud.DataLoader(ShardedIterable(7), batch_size=2, num_workers=2, in_order=False, prefetch_factor=1)
    got = [b.tolist() for b in dl]
    assert sorted(got) == [[0, 2], [1, 3], [4, 6], [5]]
    assert all(str(b.dtype) == "torch.int64" for b in [torchlike.tensor(g) for g in got])


def test_dataloader_unpicklable_dataset_message():
    class Local(lud.Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return i
    ds = Local()
    ds.lock = threading.Lock()  # locks never pickle (not even with cloudpickle)
    with pytest.raises(TypeError, match="could not pickle the dataset"):
        iter(lud.DataLoader(ds, num_workers=1))
