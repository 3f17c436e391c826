"""torchlike.utils.data (torch.utils.data): datasets, samplers, collation and the DataLoader.

>>> import torchlike
>>> from torchlike.utils.data import DataLoader, TensorDataset
>>> x = torchlike.arange(6.0).view(3, 2)
>>> [b[0].shape for b in DataLoader(TensorDataset(x), batch_size=2)]
[torch.Size([2, 2]), torch.Size([1, 2])]
"""
from ..._missing import module_getattr
from ._collate import default_collate, default_convert
from ._worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader, _DatasetKind
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate",
           "default_convert", "get_worker_info", "random_split"]

__getattr__ = module_getattr("torch.utils.data")
