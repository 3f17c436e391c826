"""Datasets (torch.utils.data.dataset): map-style, iterable-style, and their combinators."""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses implement ``__getitem__`` (and usually ``__len__``).

    >>> from torchlike.utils.data import Dataset
    >>> class Squares(Dataset):
    ...     def __len__(self): return 4
    ...     def __getitem__(self, i): return i * i
    >>> len(Squares() + Squares())
    8
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """An iterable-style dataset: subclasses implement ``__iter__``.

    With ``num_workers > 0`` every worker iterates its own copy; use ``get_worker_info()`` in
    ``__iter__`` to shard.

    >>> from torchlike.utils.data import IterableDataset
    >>> class Count(IterableDataset):
    ...     def __iter__(self): return iter(range(3))
    >>> list(Count() + Count())
    [0, 1, 2, 0, 1, 2]
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``; all tensors share their first dimension.

    >>> import torchlike
    >>> from torchlike.utils.data import TensorDataset
    >>> ds = TensorDataset(torchlike.arange(6).view(3, 2), torchlike.arange(3))
    >>> ds[1]
    (tensor([2, 3]), tensor(1))
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zip datasets of equal length: tuples (positional) or dicts (keywords) of their samples.

    >>> from torchlike.utils.data import StackDataset
    >>> StackDataset(a=[1, 2], b=["x", "y"])[1]
    {'a': 2, 'b': 'y'}
    """

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                                 "input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def _column(self, dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                 f"got {len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            out = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, sample in zip(self._column(dataset, indices), out):
                    sample[k] = data
            return out
        cols = [self._column(dataset, indices) for dataset in self.datasets]
        return [tuple(sample) for sample in zip(*cols)] if cols else [() for _ in indices]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Concatenation of map-style datasets (negative indices count from the end).

    >>> from torchlike.utils.data import ConcatDataset
    >>> ds = ConcatDataset([[1, 2], [3, 4, 5]])
    >>> ds.cumulative_sizes, ds[-1], ds[2]
    ([2, 5], 5, 3)
    """

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning,
                      stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Chains iterable-style datasets, lazily.

    >>> from torchlike.utils.data import ChainDataset, IterableDataset
    >>> class R(IterableDataset):
    ...     def __init__(self, n): self.n = n
    ...     def __iter__(self): return iter(range(self.n))
    >>> list(ChainDataset([R(2), R(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``.

    >>> from torchlike.utils.data import Subset
    >>> s = Subset(["a", "b", "c", "d"], [3, 1])
    >>> len(s), s[0], s.__getitems__([0, 1])
    (2, 'd', ['d', 'b'])
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When subclassing Subset and "
                "overriding __getitem__, you must also override __getitems__ to ensure DataLoader works "
                "correctly with your custom logic. A simple implementation:\n\n"
                "def __getitems__(self, indices):\n    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


_DEFAULT = object()


def random_split(dataset, lengths, generator=_DEFAULT):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (or fractions).

    Fractions summing to 1 are floored and the remainder handed out round-robin, like torch.

    >>> import torchlike
    >>> from torchlike.utils.data import random_split
    >>> a, b = random_split(range(10), [0.7, 0.3], generator=torchlike.Generator().manual_seed(0))
    >>> len(a), len(b)
    (7, 3)
    """
    import torchlike
    if generator is _DEFAULT:
        generator = torchlike.default_generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = torchlike.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
