"""Datasets (torch.utils.data.dataset): map-style, iterable-style, and their combinators."""
from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from itertools import accumulate
from typing import Generic, Iterable, TypeVar

from ... import _random
from ..._ops.random_ops import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_T_dict = dict[str, _T_co]
_T_tuple = tuple[_T_co, ...]
_T_stack = TypeVar("_T_stack", _T_tuple, _T_dict)


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
        if len({t.size(0) for t in tensors}) > 1:
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


def _fetch_many(dataset, indices):
    """``[dataset[i] for i in indices]``, through the dataset's batched ``__getitems__`` when it has one."""
    batched = getattr(dataset, "__getitems__", None)
    if callable(batched):
        return batched(indices)
    return [dataset[i] for i in indices]


class StackDataset(Dataset[_T_stack]):
    """Zip datasets of equal length: tuples (positional) or dicts (keywords) of their samples.

    >>> from torchlike.utils.data import StackDataset
    >>> StackDataset(a=[1, 2], b=["x", "y"])[1]
    {'a': 2, 'b': 'y'}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not (args or kwargs):
            raise ValueError("At least one dataset should be passed")
        members = args or tuple(kwargs.values())
        self._length = len(members[0])
        if any(len(m) != self._length for m in members):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def __getitem__(self, index):
        parts = self.datasets
        if isinstance(parts, dict):
            return {name: part[index] for name, part in parts.items()}
        return tuple(part[index] for part in parts)

    def __getitems__(self, indices):
        # one batched fetch per member dataset, then transposed into per-sample tuples / dicts
        parts = self.datasets
        names = list(parts) if isinstance(parts, dict) else None
        columns = []
        for part in (parts.values() if names is not None else parts):
            column = _fetch_many(part, indices)
            if len(column) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                 f"got {len(column)}")
            columns.append(column)
        rows = zip(*columns) if columns else ([] for _ in indices)
        if names is None:
            return [tuple(row) for row in rows]
        return [dict(zip(names, row)) for row in rows]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset[_T_co]):
    """Concatenation of map-style datasets (negative indices count from the end).

    >>> from torchlike.utils.data import ConcatDataset
    >>> ds = ConcatDataset([[1, 2], [3, 4, 5]])
    >>> ds.cumulative_sizes, ds[-1], ds[2]
    ([2, 5], 5, 3)
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of the lengths: where each dataset ends in the concatenation."""
        return list(accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            total = len(self)
            if idx < -total:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += total
        part = bisect_right(self.cumulative_sizes, idx)
        offset = self.cumulative_sizes[part - 1] if part > 0 else 0
        return self.datasets[part][idx - offset]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning,
                      stacklevel=2)
        return self.cumulative_sizes


def _only_iterables(datasets):
    # checked lazily, one member at a time, so an error surfaces where the bad member is reached
    for member in datasets:
        if not isinstance(member, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        yield member


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
        for member in _only_iterables(self.datasets):
            yield from member

    def __len__(self):
        return sum(len(member) for member in _only_iterables(self.datasets))


class Subset(Dataset[_T_co]):
    """The samples of ``dataset`` at ``indices``.

    >>> from torchlike.utils.data import Subset
    >>> s = Subset(["a", "b", "c", "d"], [3, 1])
    >>> len(s), s[0], s.__getitems__([0, 1])
    (2, 'd', ['d', 'b'])
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        # the DataLoader fetches batches through __getitems__, which would bypass a custom __getitem__
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing Subset and "
                "overriding __getitem__, you must also override __getitems__ to ensure DataLoader works "
                "correctly with your custom logic. A simple implementation:\n\n"
                "def __getitems__(self, indices):\n    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        # a list of positions maps to a list of the parent's indices (one fancy-indexing call)
        where = [self.indices[i] for i in idx] if isinstance(idx, list) else self.indices[idx]
        return self.dataset[where]

    def __getitems__(self, indices):
        return _fetch_many(self.dataset, [self.indices[i] for i in indices])

    def __len__(self):
        return len(self.indices)


_DEFAULT = object()


def _split_sizes(fractions, n):
    """Whole split sizes for ``fractions`` of ``n`` items: floors, then the leftover items one at a time
    to the splits in turn (torch's rule)."""
    for i, frac in enumerate(fractions):
        if not 0 <= frac <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    sizes = [math.floor(n * frac) for frac in fractions]
    for k in range(n - sum(sizes)):
        sizes[k % len(sizes)] += 1
    for i in (i for i, size in enumerate(sizes) if size == 0):
        warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                      stacklevel=3)
    return sizes


def random_split(dataset, lengths, generator=_DEFAULT):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (or fractions).

    Fractions summing to 1 are floored and the remainder handed out round-robin, like torch.

    >>> import torchlike
    >>> from torchlike.utils.data import random_split
    >>> a, b = random_split(range(10), [0.7, 0.3], generator=torchlike.Generator().manual_seed(0))
    >>> len(a), len(b)
    (7, 3)
    """
    if generator is _DEFAULT:
        generator = _random.default_generator
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _split_sizes(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    ends = list(accumulate(lengths))
    return [Subset(dataset, order[end - size:end]) for end, size in zip(ends, lengths)]
