"""A script without an `if __name__ == '__main__'` guard: a Dataset class and a collate lambda defined at
top level, DataLoader(num_workers=2, persistent_workers) with worker_init_fn (torch forks its workers)."""
from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i


def worker_init_fn(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)


torch.manual_seed(0)
loader = DataLoader(Squares(12), batch_size=4, shuffle=False, num_workers=2, worker_init_fn=worker_init_fn,
                    collate_fn=lambda b: (torch.cat([x for x, _ in b]), torch.tensor([y for _, y in b])),
                    persistent_workers=True)
for epoch in range(2):
    for xb, yb in loader:
        print(f"epoch {epoch} x {xb.sum().item():.1f} y {yb.tolist()}")

# a global tensor used by the dataset, and a namedtuple class of the script returned by the workers
DATA = torch.arange(10.)
Item = namedtuple('Item', ['x', 'i'])


class Items(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return Item(DATA[i] * 2, i)


for batch in DataLoader(Items(), batch_size=5, num_workers=1):
    print(type(batch).__name__, isinstance(batch, tuple), batch.x.tolist(), batch.i.tolist())
