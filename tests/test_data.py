"""torchlike.utils.data vs torch.utils.data: collation, datasets, samplers, DataLoader (+ real workers)."""
import collections
import pickle
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import torchlike
import torchlike.utils.data as lud
from torchlike.utils.data import dataloader as lud_dataloader
from conftest import raises_like_torch, torch_or_tl

Point = collections.namedtuple("Point", ["x", "y"])


# ---- helpers ------------------------------------------------------------------------------------
def same(ours, theirs, path="out"):
    """Same structure (container types, namedtuples, strings) and the same tensors (dtype, shape, values)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, torchlike.Tensor), (path, type(ours))
        assert str(ours.dtype) == str(theirs.dtype), (path, ours.dtype, theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape), (path, ours.shape, theirs.shape)
        np.testing.assert_array_equal(np.asarray(ours._value), theirs.numpy(), err_msg=path)
    elif isinstance(theirs, tuple) and hasattr(theirs, "_fields"):
        assert type(ours).__name__ == type(theirs).__name__ and ours._fields == theirs._fields, path
        for f in theirs._fields:
            same(getattr(ours, f), getattr(theirs, f), f"{path}.{f}")
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs), (path, ours, theirs)
        for k in theirs:
            same(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (path, type(ours), type(theirs))
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{path}[{i}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray)
        np.testing.assert_array_equal(ours, theirs)
    else:
        assert type(ours) is type(theirs) and ours == theirs, (path, ours, theirs)


def to_lib(lib, x):
    """The same sample with torch tensors replaced by the other library's tensors."""
    if isinstance(x, torch.Tensor):
        return lib.tensor(x.numpy()) if lib is torchlike else x
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(to_lib(lib, v) for v in x))
    if isinstance(x, dict):
        return type(x)((k, to_lib(lib, v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return type(x)(to_lib(lib, v) for v in x)
    return x


def both_raise(fn_ours, fn_theirs, exc=Exception):
    """``raises_like_torch`` for a torchlike callable and its torch twin; the error is an ``exc``."""
    assert isinstance(raises_like_torch(torch_or_tl(fn_theirs, fn_ours)), exc)


# ---- collation ------------------------------------------------------------------------------------
COLLATE_BATCHES = [
    [0, 1, 2],
    [1.5, 2.0],
    [0.1, 1 / 3],  # float64 batches keep double precision
    [True, False, True],
    ["a", "b"],
    [b"x", b"y"],
    [np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)],
    [np.array([[1.0]], dtype=np.float32)] * 3,
    [np.array([True, False])] * 2,
    [np.float32(1.5), np.float32(2.5)],
    [np.int64(3), np.int64(4)],
    [np.bool_(True), np.bool_(False)],
    [np.array(2.0), np.array(3.0)],
    [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])],
    [torch.tensor(1, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)],
    [torch.tensor([[True]]), torch.tensor([[False]])],
    [(1, 2.0, "s"), (3, 4.0, "t")],
    [[1, 2], [3, 4]],
    [{"a": 1, "b": {"c": 2.0, "d": [torch.tensor([1]), 5]}}, {"a": 3, "b": {"c": 4.0, "d": [torch.tensor([2]), 6]}}],
    [Point(1, 2.0), Point(3, 4.0)],
    [Point(torch.zeros(2), "p"), Point(torch.ones(2), "q")],
    [(torch.zeros(2, 3), 1), (torch.ones(2, 3), 2)],
    [collections.OrderedDict(z=1, a=2), collections.OrderedDict(z=3, a=4)],
]


@pytest.mark.parametrize("i", range(len(COLLATE_BATCHES)))
def test_default_collate_matches_torch(i):
    batch = COLLATE_BATCHES[i]
    same(lud.default_collate(to_lib(torchlike, batch)), tud.default_collate(batch))


@pytest.mark.parametrize("i", range(len(COLLATE_BATCHES)))
def test_default_convert_matches_torch(i):
    sample = COLLATE_BATCHES[i]
    same(lud.default_convert(to_lib(torchlike, sample)), tud.default_convert(sample))
    same(lud.default_convert(to_lib(torchlike, sample[0])), tud.default_convert(sample[0]))


def test_default_collate_errors():
    both_raise(lambda: lud.default_collate([torchlike.zeros(2), torchlike.zeros(3)]),
               lambda: tud.default_collate([torch.zeros(2), torch.zeros(3)]), RuntimeError)
    both_raise(lambda: lud.default_collate([[1, 2], [3]]), lambda: tud.default_collate([[1, 2], [3]]),
               RuntimeError)
    with pytest.raises(TypeError) as e_t:
        tud.default_collate([object(), object()])
    with pytest.raises(TypeError) as e_o:
        lud.default_collate([object(), object()])
    assert str(e_o.value) == str(e_t.value)  # names the element type, "<class 'object'>"
    both_raise(lambda: lud.default_collate([np.array(["a"]), np.array(["b"])]),
               lambda: tud.default_collate([np.array(["a"]), np.array(["b"])]), TypeError)
    arr = np.array(["a", "b"])
    assert lud.default_convert(arr) is arr  # string arrays are left alone, like torch


def test_collate_fn_map_extension():
    from torchlike.utils.data._collate import collate, default_collate_fn_map
    fmap = dict(default_collate_fn_map)
    fmap[int] = lambda batch, *, collate_fn_map: sum(batch)
    assert collate([(1, 2.0), (3, 4.0)], collate_fn_map=fmap)[0] == 4


# ---- datasets -------------------------------------------------------------------------------------
def test_tensor_dataset():
    xs = np.arange(12.0).reshape(6, 2)
    ours = lud.TensorDataset(torchlike.tensor(xs), torchlike.arange(6))
    theirs = tud.TensorDataset(torch.tensor(xs), torch.arange(6))
    assert len(ours) == len(theirs)
    for i in (0, 3, -1):
        same(ours[i], theirs[i])
    same(ours[1:3], theirs[1:3])
    both_raise(lambda: lud.TensorDataset(torchlike.zeros(2), torchlike.zeros(3)),
               lambda: tud.TensorDataset(torch.zeros(2), torch.zeros(3)), AssertionError)


def test_concat_chain_subset_stack():
    a, b = list(range(3)), list(range(10, 15))
    ours, theirs = lud.ConcatDataset([a, b]), tud.ConcatDataset([a, b])
    assert ours.cumulative_sizes == theirs.cumulative_sizes and len(ours) == len(theirs)
    assert [ours[i] for i in range(-8, 8)] == [theirs[i] for i in range(-8, 8)]
    both_raise(lambda: ours[-9], lambda: theirs[-9], ValueError)
    both_raise(lambda: ours[8], lambda: theirs[8], IndexError)
    both_raise(lambda: lud.ConcatDataset([]), lambda: tud.ConcatDataset([]), AssertionError)

    class L(lud.Dataset):
        def __init__(self, n): self.n = n
        def __len__(self): return self.n
        def __getitem__(self, i): return i
    assert isinstance(L(2) + L(3), lud.ConcatDataset) and len(L(2) + L(3)) == 5

    class R(lud.IterableDataset):
        def __init__(self, n): self.n = n
        def __iter__(self): return iter(range(self.n))
        def __len__(self): return self.n

    class RT(tud.IterableDataset):
        def __init__(self, n): self.n = n
        def __iter__(self): return iter(range(self.n))
        def __len__(self): return self.n
    assert list(lud.ChainDataset([R(2), R(3)])) == list(tud.ChainDataset([RT(2), RT(3)]))
    assert len(R(2) + R(3)) == 5 and isinstance(R(1) + R(1), lud.ChainDataset)
    both_raise(lambda: lud.ConcatDataset([R(2)]), lambda: tud.ConcatDataset([RT(2)]), AssertionError)
    both_raise(lambda: list(lud.ChainDataset([a])), lambda: list(tud.ChainDataset([a])), AssertionError)

    s_o, s_t = lud.Subset(b, [4, 0, 2]), tud.Subset(b, [4, 0, 2])
    assert len(s_o) == len(s_t) and s_o[0] == s_t[0] and s_o.__getitems__([0, 2]) == s_t.__getitems__([0, 2])

    st_o, st_t = lud.StackDataset(a, b[:3]), tud.StackDataset(a, b[:3])
    assert st_o[1] == st_t[1] and st_o.__getitems__([0, 2]) == st_t.__getitems__([0, 2])
    kd_o, kd_t = lud.StackDataset(x=a, y=s_o), tud.StackDataset(x=a, y=s_t)
    assert kd_o[2] == kd_t[2] and kd_o.__getitems__([1, 2]) == kd_t.__getitems__([1, 2])
    both_raise(lambda: lud.StackDataset(a, b), lambda: tud.StackDataset(a, b), ValueError)
    both_raise(lambda: lud.StackDataset(), lambda: tud.StackDataset(), ValueError)
    both_raise(lambda: lud.StackDataset(a, x=a), lambda: tud.StackDataset(a, x=a), ValueError)


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (11, [0.3, 0.3, 0.4]), (7, [0.5, 0.5]), (5, [1.0]),
                                       (3, [0.1, 0.9])])
def test_random_split(n, lengths):
    with warnings.catch_warnings(record=True) as w_t:
        warnings.simplefilter("always")
        theirs = tud.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    with warnings.catch_warnings(record=True) as w_o:
        warnings.simplefilter("always")
        ours = lud.random_split(range(n), lengths, generator=torchlike.Generator().manual_seed(0))
    assert [str(w.message) for w in w_o] == [str(w.message) for w in w_t]
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    flat = [i for s in ours for i in s]
    assert sorted(flat) == list(range(n))
    again = lud.random_split(range(n), lengths, generator=torchlike.Generator().manual_seed(0))
    assert [list(s) for s in again] == [list(s) for s in ours]


def test_random_split_errors():
    both_raise(lambda: lud.random_split(range(5), [2, 2]), lambda: tud.random_split(range(5), [2, 2]),
               ValueError)
    both_raise(lambda: lud.random_split(range(5), [1.5, -0.5]), lambda: tud.random_split(range(5), [1.5, -0.5]),
               ValueError)


# ---- samplers -------------------------------------------------------------------------------------
def test_sequential_and_batch_sampler():
    data = list(range(11))
    assert list(lud.SequentialSampler(data)) == list(tud.SequentialSampler(data))
    for bs in (1, 3, 11, 12):
        for dl in (False, True):
            o = lud.BatchSampler(lud.SequentialSampler(data), bs, dl)
            t = tud.BatchSampler(tud.SequentialSampler(data), bs, dl)
            assert list(o) == list(t) and len(o) == len(t)
    for bad in (0, -1, 2.0, True):
        both_raise(lambda: lud.BatchSampler(data, bad, False), lambda: tud.BatchSampler(data, bad, False),
                   ValueError)
    both_raise(lambda: lud.BatchSampler(data, 2, 1), lambda: tud.BatchSampler(data, 2, 1), ValueError)


def test_random_samplers():
    data = list(range(10))
    g = torchlike.Generator().manual_seed(3)
    s = lud.RandomSampler(data, generator=g)
    assert sorted(s) == data and len(s) == 10
    assert list(s) != list(s)  # each pass continues the generator stream (seeded, so deterministic)
    assert list(lud.RandomSampler(data, generator=torchlike.Generator().manual_seed(1))) == \
        list(lud.RandomSampler(data, generator=torchlike.Generator().manual_seed(1)))
    torchlike.manual_seed(5)
    a = list(lud.RandomSampler(data))
    torchlike.manual_seed(5)
    assert list(lud.RandomSampler(data)) == a  # the global seed makes default samplers reproducible
    for ns in (3, 10, 25):
        o = list(lud.RandomSampler(data, num_samples=ns))
        t = list(tud.RandomSampler(data, num_samples=ns))
        assert len(o) == len(t) == ns
        if ns >= 10:
            assert sorted(o[:10]) == data  # whole permutations first
    o = list(lud.RandomSampler(data, replacement=True, num_samples=70))
    assert len(o) == 70 and all(0 <= i < 10 for i in o)
    both_raise(lambda: lud.RandomSampler(data, replacement=1), lambda: tud.RandomSampler(data, replacement=1),
               TypeError)
    both_raise(lambda: lud.RandomSampler(data, num_samples=0), lambda: tud.RandomSampler(data, num_samples=0),
               ValueError)
    both_raise(lambda: lud.RandomSampler([]), lambda: tud.RandomSampler([]), ValueError)

    sub = [7, 3, 9]
    assert sorted(lud.SubsetRandomSampler(sub)) == sorted(tud.SubsetRandomSampler(sub))
    assert len(lud.SubsetRandomSampler(sub)) == 3


def test_weighted_random_sampler():
    w = [0.0, 2.0, 0.0, 1.0]
    o, t = lud.WeightedRandomSampler(w, 50), tud.WeightedRandomSampler(w, 50)
    lo = list(o)
    assert len(lo) == len(list(t)) == len(o) == 50 and set(lo) <= {1, 3}
    assert str(o.weights.dtype) == str(t.weights.dtype)
    assert sorted(lud.WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    for args in (([1.0], 0), ([1.0], 2.0), ([1.0], True), ([[1.0]], 1)):
        both_raise(lambda: lud.WeightedRandomSampler(*args), lambda: tud.WeightedRandomSampler(*args), ValueError)
    both_raise(lambda: lud.WeightedRandomSampler([1.0], 1, replacement=0),
               lambda: tud.WeightedRandomSampler([1.0], 1, replacement=0), ValueError)


@pytest.mark.parametrize("n", [0, 1, 7, 10, 12])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_no_shuffle_equals_torch(n, replicas, drop_last):
    data = list(range(n))
    for rank in range(replicas):
        o = lud.DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        t = tud.DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(o) == list(t) and len(o) == len(t) and o.total_size == t.total_size


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (12, 4, False), (5, 8, False)])
def test_distributed_sampler_shuffle_partition(n, replicas, drop_last):
    data = list(range(n))
    parts = [list(lud.DistributedSampler(data, replicas, r, shuffle=True, seed=7, drop_last=drop_last))
             for r in range(replicas)]
    tparts = [list(tud.DistributedSampler(data, replicas, r, shuffle=True, seed=7, drop_last=drop_last))
              for r in range(replicas)]
    assert [len(p) for p in parts] == [len(p) for p in tparts]
    flat = [i for p in parts for i in p]
    if drop_last:
        assert len(set(flat)) == len(flat)  # disjoint
    else:
        assert set(flat) == set(data)  # covering (with wrap-around padding)
    # every replica sees the same permutation for a given seed + epoch; set_epoch reshuffles
    s = lud.DistributedSampler(data, replicas, 0, seed=7, drop_last=drop_last)
    assert list(s) == parts[0]
    s.set_epoch(1)
    orders = {tuple(s)}
    for e in range(2, 6):
        s.set_epoch(e)
        orders.add(tuple(s))
    assert len(orders) > 1 or n < 3
    both_raise(lambda: lud.DistributedSampler(data, 2, 2), lambda: tud.DistributedSampler(data, 2, 2), ValueError)


# ---- DataLoader, single process --------------------------------------------------------------------
class MapDS:
    """A plain map-style dataset (no base class) usable by both libraries; samples mix types."""

    def __init__(self, lib, n=10):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range")
        return {"x": self.lib.full((2,), float(i)), "i": i, "f": i / 2, "s": f"s{i}",
                "np": np.array([i, -i], dtype=np.int32)}


@pytest.mark.parametrize("kw", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
                                dict(batch_size=4, sampler=[9, 1, 5, 0, 2]),
                                dict(batch_sampler=[[1, 2], [9], [0, 3, 4]])])
def test_dataloader_single_process_matches_torch(kw):
    ours = lud.DataLoader(MapDS(torchlike), **kw)
    theirs = tud.DataLoader(MapDS(torch), **kw)
    assert len(ours) == len(theirs)
    lo, lt = list(ours), list(theirs)
    assert len(lo) == len(lt)
    for a, b in zip(lo, lt):
        same(a, b)
    same(list(ours), lt)  # a second epoch


def test_dataloader_tensor_dataset_fast_path_matches_torch():
    xs = np.arange(40.0, dtype=np.float32).reshape(10, 4)
    ys = np.arange(10)
    ours = lud.TensorDataset(torchlike.tensor(xs), torchlike.tensor(ys))
    theirs = tud.TensorDataset(torch.tensor(xs), torch.tensor(ys))
    for kw in (dict(batch_size=4), dict(batch_size=3, drop_last=True), dict(batch_size=None),
               dict(batch_sampler=[[9, 0], [-1, 3, 3]])):
        same(list(lud.DataLoader(ours, **kw)), list(tud.DataLoader(theirs, **kw)))
    sub_o, sub_t = lud.Subset(ours, [5, 2, 8]), tud.Subset(theirs, [5, 2, 8])
    same(list(lud.DataLoader(sub_o, batch_size=2)), list(tud.DataLoader(sub_t, batch_size=2)))
    both_raise(lambda: list(lud.DataLoader(ours, batch_sampler=[[0, 10]])),
               lambda: list(tud.DataLoader(theirs, batch_sampler=[[0, 10]])), IndexError)


def test_dataloader_shuffle_generator_reproducible():
    ds = lud.TensorDataset(torchlike.arange(20))

    def run(seed, epochs=3):
        dl = lud.DataLoader(ds, batch_size=6, shuffle=True, generator=torchlike.Generator().manual_seed(seed))
        return [[b[0].tolist() for b in dl] for _ in range(epochs)]

    a = run(0)
    assert a == run(0) and a != run(1)
    for epoch in a:
        assert sorted(sum(epoch, [])) == list(range(20)) and [len(b) for b in epoch] == [6, 6, 6, 2]
    assert a[0] != a[1]  # each epoch reshuffles


def test_dataloader_argument_errors():
    ds = list(range(5))
    cases = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
             dict(num_workers=1, prefetch_factor=-1), dict(sampler=[0], shuffle=True),
             dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
             dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
             dict(batch_size=None, drop_last=True), dict(multiprocessing_context="spawn"),
             dict(num_workers=1, multiprocessing_context="nope")]
    for kw in cases:
        both_raise(lambda: lud.DataLoader(ds, **kw), lambda: tud.DataLoader(ds, **kw), ValueError)
    both_raise(lambda: lud.DataLoader(ds, num_workers=1, multiprocessing_context=3),
               lambda: tud.DataLoader(ds, num_workers=1, multiprocessing_context=3), TypeError)
    dl_o, dl_t = lud.DataLoader(ds), tud.DataLoader(ds)
    both_raise(lambda: setattr(dl_o, "batch_size", 3), lambda: setattr(dl_t, "batch_size", 3), ValueError)
    dl_o.num_workers = 0  # other attributes stay assignable


def _iterable(lib):
    class Count(lib.utils.data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    return Count


def test_dataloader_iterable_single_process():
    CO, CT = _iterable(torchlike), _iterable(torch)
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        o, t = lud.DataLoader(CO(7), **kw), tud.DataLoader(CT(7), **kw)
        assert len(o) == len(t)
        same(list(o), list(t))
    for kw in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        with pytest.raises(ValueError) as et:
            tud.DataLoader(CT(3), **kw)
        with pytest.raises(ValueError) as eo:
            lud.DataLoader(CO(3), **kw)
        assert str(eo.value).split(", but got")[0] == str(et.value).split(", but got")[0]

    class Liar(CO):
        def __len__(self):
            return 2
    dl = lud.DataLoader(Liar(4), batch_size=None)
    assert len(dl) == 2
    with pytest.warns(UserWarning, match="was reported to be 2"):
        assert list(dl) == [0, 1, 2, 3]


def test_dataloader_signature_and_module_paths():
    import inspect
    assert list(inspect.signature(lud.DataLoader).parameters) == list(inspect.signature(tud.DataLoader).parameters)
    for name in ("RandomSampler", "WeightedRandomSampler", "BatchSampler", "DistributedSampler", "random_split"):
        assert list(inspect.signature(getattr(lud, name)).parameters) == \
            list(inspect.signature(getattr(tud, name)).parameters), name
    from torchlike.utils.data._utils.collate import default_collate, default_collate_fn_map  # noqa: F401
    from torchlike.utils.data._utils.worker import get_worker_info  # noqa: F401
    from torchlike.utils.data.dataloader import default_convert  # noqa: F401
    from torchlike.utils.data.sampler import Sampler  # noqa: F401
    from torchlike.utils.data.distributed import DistributedSampler  # noqa: F401
    datapipes = {"IterDataPipe", "MapDataPipe", "DFIterDataPipe", "DataChunk", "functional_datapipe",
                 "guaranteed_datapipes_determinism", "non_deterministic", "argument_validation",
                 "runtime_validation", "runtime_validation_disabled", "_DatasetKind"}
    assert set(tud.__all__) - set(lud.__all__) <= datapipes  # only the (deprecated) DataPipes are missing
    assert lud._DatasetKind.Map == tud._DatasetKind.Map and lud._DatasetKind.Iterable == tud._DatasetKind.Iterable


def test_dataloader_misc():
    assert lud_dataloader.DataLoader is lud.DataLoader and lud_dataloader.default_collate is lud.default_collate
    assert lud_dataloader.get_worker_info() is None
    with pytest.warns(UserWarning, match="pin_memory"):
        list(lud.DataLoader([1, 2], pin_memory=True))
    it = iter(lud.DataLoader([1, 2, 3], batch_size=2))
    assert len(it) == 2
    with pytest.raises(NotImplementedError):
        pickle.dumps(it)
    # a custom collate_fn and a generic sampler
    dl = lud.DataLoader(list(range(6)), batch_size=2, collate_fn=lambda b: sum(b), sampler=reversed(range(6)))
    assert list(dl) == [9, 5, 1]


def _collate_subclass_run(lib, tud_):
    class Meta(lib.Tensor):
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    items = [lib.ones(2, 3).as_subclass(Meta) * i for i in range(3)]
    Meta.seen.clear()
    out = tud_.default_collate([{"x": t, "y": i} for i, t in enumerate(items)])
    return type(out["x"]).__name__, tuple(out["x"].shape), out["x"].sum().item(), "stack" in Meta.seen


def test_collate_of_tensor_subclass_goes_through_torch_function_like_torch():
    """default_collate stacks a batch of tensor subclasses with torch.stack, so the subclass's __torch_function__
    sees it and the batch keeps the subclass (monai's MetaTensor)."""
    assert _collate_subclass_run(torchlike, lud) == _collate_subclass_run(torch, tud) == ("Meta", (3, 2, 3), 18.0, True)
