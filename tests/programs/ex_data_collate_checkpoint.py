"""Data pipeline and checkpoint idioms: IterableDataset sharded by get_worker_info over two workers,
WeightedRandomSampler/BatchSampler/SubsetRandomSampler/RandomSampler with generators, default_collate on mixed
types and namedtuples, a dict collate_fn with pad_sequence feeding pack_padded_sequence(enforce_sorted=False) in a
GRU classifier; torch.save/torch.load of checkpoints (weights_only default refusing numpy state, map_location,
whole-model pickles), load_state_dict strict=False and its error messages."""
import collections
import math
import numpy as np
import os
import pickle
import random
import tempfile
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
from torch.utils.data import (DataLoader, Dataset, IterableDataset, get_worker_info, WeightedRandomSampler,
                              BatchSampler, SubsetRandomSampler, SequentialSampler, RandomSampler)
from torch.utils.data.dataloader import default_collate

Item = collections.namedtuple("Item", "x y")


class Shards(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = 0, self.n
        else:
            per = int(math.ceil(self.n / info.num_workers))
            lo = info.id * per
            hi = min(lo + per, self.n)
        for i in range(lo, hi):
            yield torch.tensor([float(i)]), i % 3


class Seqs(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.lens = torch.randint(2, 7, (20,), generator=g).tolist()
        self.data = [torch.randn(l, 3, generator=g) for l in self.lens]
        self.y = [int(d.sum() > 0) for d in self.data]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return {"seq": self.data[i], "y": self.y[i], "len": self.lens[i]}


def collate(batch):
    seqs = [b["seq"] for b in batch]
    return {"x": pad_sequence(seqs, batch_first=True), "len": torch.tensor([b["len"] for b in batch]),
            "y": torch.tensor([b["y"] for b in batch])}


class Clf(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 5, batch_first=True, bidirectional=True)
        self.out = nn.Linear(10, 2)

    def forward(self, x, lens):
        packed = pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        un, ul = pad_packed_sequence(out, batch_first=True)
        return self.out(torch.cat([h[0], h[1]], 1)), un.shape, ul


def data_idioms():
    torch.manual_seed(0)
    dl = DataLoader(Shards(10), batch_size=3, num_workers=2)
    for xb, yb in dl:
        print("shard", xb.flatten().tolist(), yb.tolist(), yb.dtype)
    w = torch.tensor([0.1, 0.1, 5.0, 0.1, 2.0])
    s = WeightedRandomSampler(w, 12, replacement=True, generator=torch.Generator().manual_seed(1))
    print("wrs", list(s), len(s))
    print("wrs norepl", list(WeightedRandomSampler(w, 4, replacement=False, generator=torch.Generator().manual_seed(1))))
    print("bs", list(BatchSampler(SequentialSampler(range(10)), 3, drop_last=True)), len(BatchSampler(range(10), 3, False)))
    print("srs", list(SubsetRandomSampler([3, 5, 7, 9], generator=torch.Generator().manual_seed(4))))
    print("rs", list(RandomSampler(range(6), replacement=True, num_samples=4, generator=torch.Generator().manual_seed(4))))
    dc = default_collate([(torch.ones(2), 1, 2.5, "a", {"k": [1, 2]}, Item(1, torch.zeros(1))),
                          (torch.zeros(2), 0, 3.5, "b", {"k": [3, 4]}, Item(2, torch.ones(1)))])
    print("collate", dc)
    print("np", default_collate([__import__("numpy").arange(3), __import__("numpy").arange(3)]))
    ds = Seqs()
    loader = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate, generator=torch.Generator().manual_seed(2))
    model = Clf()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for ep in range(3):
        tot = 0.0
        for b in loader:
            logits, shp, ul = model(b["x"], b["len"])
            loss = nn.functional.cross_entropy(logits, b["y"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {ep} loss {tot / len(loader):.4f} {tuple(shp)} {ul.tolist()}")
    p = pack_padded_sequence(b["x"], b["len"], batch_first=True, enforce_sorted=False)
    print(p.batch_sizes, p.sorted_indices, p.unsorted_indices, p.data.shape)
    print(type(p).__name__, p._fields if hasattr(p, "_fields") else None)
    dl2 = DataLoader(list(zip(torch.arange(6.), range(6))), batch_size=4, collate_fn=lambda b: Item(*zip(*b)))
    for it in dl2:
        print("nt", type(it).__name__, it.y)
    dl3 = DataLoader(range(7), batch_sampler=BatchSampler(RandomSampler(range(7), generator=torch.Generator().manual_seed(9)), 3, True))
    print("bsamp", [b.tolist() for b in dl3], len(dl3))
    dl4 = DataLoader(ds, batch_size=None, num_workers=0)
    print("none", next(iter(dl4))["len"], len(dl4))


def checkpoint_idioms():
    torch.manual_seed(0)
    np.random.seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(torch.randn(5, 3)).sum().backward()
    opt.step()
    d = tempfile.mkdtemp()
    path = os.path.join(d, "ck.pt")
    torch.save({"epoch": 3, "model": m.state_dict(), "opt": opt.state_dict(), "np": np.random.get_state(),
                "py": random.getstate(), "rng": torch.get_rng_state(), "arr": np.arange(3), "f": 1.5}, path)
    try:
        torch.load(path)
        print("loaded default")
    except pickle.UnpicklingError as e:
        print("UnpicklingError", str(e).splitlines()[0][:70])
    except Exception as e:
        print(type(e).__module__, type(e).__name__)
    ck = torch.load(path, weights_only=False, map_location="cpu")
    print(sorted(ck), ck["epoch"], type(ck["arr"]).__name__, ck["rng"].dtype)
    torch.save({"model": m.state_dict(), "epoch": 3, "loss": torch.tensor(0.5)}, path)
    ck = torch.load(path, map_location=torch.device("cpu"))
    print(list(ck["model"].keys()), ck["model"]["1.num_batches_tracked"], ck["loss"])
    ck = torch.load(path, weights_only=True, mmap=False)
    print(ck["epoch"])
    torch.save(m, path)
    try:
        torch.load(path)
    except Exception as e:
        print("whole model", type(e).__name__)
    m2 = torch.load(path, weights_only=False)
    print(type(m2).__name__, m2[1].running_mean)
    with torch.serialization.safe_globals([np.core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype("float64"))]):
        torch.save({"a": np.zeros(2)}, path)
        try:
            print(torch.load(path)["a"])
        except Exception as e:
            print("np", type(e).__name__)
    sd = m.state_dict()
    print(type(sd).__name__, sd._metadata[""] if hasattr(sd, "_metadata") else None)
    missing = m.load_state_dict({k: v for k, v in sd.items() if "2." not in k}, strict=False)
    print(missing)
    print(missing.missing_keys, missing.unexpected_keys)
    try:
        m.load_state_dict({"bogus": torch.zeros(1)})
    except RuntimeError as e:
        print(str(e))
    try:
        m.load_state_dict({**sd, "0.weight": torch.zeros(2, 2)})
    except RuntimeError as e:
        print(str(e))


if __name__ == "__main__":
    data_idioms()
    checkpoint_idioms()
