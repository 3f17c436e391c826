"""A guarded script that prints at top level before its guard, with a Dataset returning dicts of numpy
arrays, strings, a namedtuple of the script and nested dicts, an IterableDataset sharded by get_worker_info and
persistent workers: torch forks its workers, so the top-level prints happen once and the namedtuple comes back."""
import torch, numpy as np, collections
from torch.utils.data import Dataset, DataLoader, IterableDataset, get_worker_info, default_collate, ConcatDataset, Subset, WeightedRandomSampler
Point = collections.namedtuple('Point', 'x y')
class DictDS(Dataset):
    def __len__(self): return 10
    def __getitem__(self, i): return {'img': np.full((2, 2), i, dtype=np.float32), 'label': i % 3, 'name': f'n{i}', 'pt': Point(float(i), torch.tensor([i])), 'meta': {'w': 0.5 * i}}
b = next(iter(DataLoader(DictDS(), batch_size=4)))
print({k: (type(v).__name__, getattr(v, 'dtype', None), getattr(v, 'shape', None)) for k, v in b.items()})
print(b['pt'], b['meta'], b['name'])
print(default_collate([np.array(1.5), np.array(2.5)]), default_collate([(1, 'a'), (2, 'b')]), default_collate([True, False]))
class It(IterableDataset):
    def __iter__(self):
        wi = get_worker_info(); s, n = (0, 1) if wi is None else (wi.id, wi.num_workers)
        return iter(range(s, 12, n))
def wif(wid): np.random.seed(wid)
if __name__ == '__main__':
    print(sorted(int(x) for x in torch.cat(list(DataLoader(It(), batch_size=3, num_workers=2, worker_init_fn=wif)))))
    dl = DataLoader(DictDS(), batch_size=3, num_workers=2, persistent_workers=True, prefetch_factor=2)
    for ep in range(2): print(ep, [bb['label'].tolist() for bb in dl])
    g = torch.Generator().manual_seed(0)
    print(list(DataLoader(range(8), batch_size=2, shuffle=True, generator=g)))
    print(list(WeightedRandomSampler([0.1, 0.9, 0.5], 6, generator=torch.Generator().manual_seed(1))))
    print(len(ConcatDataset([DictDS(), DictDS()])), Subset(DictDS(), [1, 3])[1]['label'])
    dl = DataLoader(list(range(10)), batch_size=4, drop_last=False, collate_fn=lambda b: sum(b))
    print(list(dl), len(dl))
    print(next(iter(DataLoader([torch.ones(2, 2)] * 4, batch_size=2, pin_memory=False))).shape)
    print(list(DataLoader([1, 2, 3], batch_size=None)))
    s = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(7)), 3, False); print(list(s))
    x = torch.utils.data.TensorDataset(torch.arange(6).view(3, 2), torch.tensor([0, 1, 0]))
    print(x[1], len(x))
