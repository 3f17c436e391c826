"""A script without an `if __name__ == '__main__'` guard: a Dataset class and a collate lambda defined at
top level, DataLoader(num_workers=2, persistent_workers) with worker_init_fn (torch forks its workers)."""
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
