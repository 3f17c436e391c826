"""Forking after tensors computed: multiprocessing.Pool over plain functions, os.fork() with numpy work in the
child, a DataLoader with multiprocessing_context="fork" over host data. Prints what the children computed and
the warnings this process saw (torch: none; torchlike: one, its own words, never JAX's)."""
import multiprocessing as mp
import os
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


def square(i):
    return i * i + int(np.arange(i + 1).sum())


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3,), float(i)) * 2 + 1, i % 3


if __name__ == "__main__":
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        torch.manual_seed(0)
        w = torch.nn.Linear(4, 2)(torch.randn(5, 4)).sum()
        print("parent", round(w.item(), 4))
        with mp.get_context("fork").Pool(2) as pool:
            print("pool", pool.map(square, range(6)))
        r, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.write(wfd, str(float(np.linalg.norm(np.arange(4.0)))).encode())
            os._exit(0)
        os.close(wfd)
        os.waitpid(pid, 0)
        print("child numpy", os.read(r, 100).decode())
        for ds in (Items(), TensorDataset(torch.arange(16.0).reshape(8, 2) * 1.5, torch.arange(8))):
            dl = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="fork")
            print("loader", [[round(float(t.sum()), 3) for t in batch] for batch in dl])
    texts = [str(c.message) for c in caught if issubclass(c.category, RuntimeWarning)]
    print("runtime warnings", len(texts) <= 1, any("jax" in t.lower() and "torchlike" not in t for t in texts))
