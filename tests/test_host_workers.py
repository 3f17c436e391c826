"""DataLoader workers whose dataset only builds host tensors never start a JAX backend, and their batches
arrive host-resident in the main process.

This module does not import torch (spawned workers import it to unpickle the dataset); the values expected
are numpy's.
"""
import numpy as np

import torchlike
import torchlike.utils.data as lud


def _backend_started():
    from jax._src import xla_bridge
    return bool(xla_bridge._backends)


class HostItems(lud.Dataset):
    """Items ``(full((4,), i), i % 3, {"n": tensor(i), "z": zeros(2)})``, each reporting whether this
    process had started a JAX backend once the item was made."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        item = (torchlike.full((4,), float(i)), i % 3, {"n": torchlike.tensor(i), "z": torchlike.zeros(2),
                                                        "np": torchlike.from_numpy(np.full(3, i, np.int32))})
        return item, _backend_started()


def collate_and_report(batch):
    """default_collate, then whether a backend had started in this process (after collation too)."""
    out = lud.default_collate([b[0] for b in batch])
    return out, [b[1] for b in batch] + [_backend_started()]


def test_workers_making_host_tensors_start_no_jax_backend():
    dl = lud.DataLoader(HostItems(), batch_size=4, num_workers=2, collate_fn=collate_and_report)
    seen = []
    for (x, y, d), started in dl:
        assert not any(started), "a worker started a JAX backend"
        assert all(t._host_array() is not None for t in (x, y, d["n"], d["z"]))  # host in the main process too
        assert d["np"].tolist() == [[v] * 3 for v in d["n"].tolist()] and str(d["np"].dtype) == "torch.int32"
        seen.append((x.numpy().copy(), y.tolist(), d["n"].tolist()))
    xs = np.concatenate([s[0] for s in seen])
    np.testing.assert_array_equal(xs, np.repeat(np.arange(12, dtype=np.float32)[:, None], 4, axis=1))
    assert [v for s in seen for v in s[1]] == [i % 3 for i in range(12)]
    assert [v for s in seen for v in s[2]] == list(range(12))
    assert str(xs.dtype) == "float32"


def test_worker_batches_are_usable_on_the_device():
    dl = lud.DataLoader(HostItems(), batch_size=6, num_workers=1)
    batches = list(dl)
    (x, y, d), started = batches[0]
    assert started.tolist() == [False] * 6
    assert (x * 2).sum().item() == 2 * 4 * sum(range(6)) and (y + 1).tolist() == [1, 2, 3, 1, 2, 3]
    assert d["z"].shape == (6, 2) and str(d["n"].dtype) == "torch.int64"
