"""Datasets: the samples a :class:`~teachgrad.utils.data.DataLoader` draws from.

A *map-style* dataset answers ``dataset[i]`` with sample ``i`` and knows its ``len()``;
an *iterable-style* dataset just yields samples one after another (e.g. from a stream).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any, Generic, TypeVar

from ..._random import Generator, default_generator, randperm
from ..._tensor import Tensor
from ..._warn import warn_user

# The type of a dataset's samples: ``class Squares(Dataset[int])`` (typing only).
T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets: subclasses define ``__getitem__`` and ``__len__``.
    Generic in the sample type, as PyTorch's (``Dataset[int]``).

    >>> from teachgrad.utils.data import Dataset
    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> [Squares()[i] for i in range(4)]
    [0, 1, 4, 9]
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        """``a + b``: the samples of ``a`` followed by those of ``b``."""
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """Base class of datasets that *yield* their samples (subclasses define ``__iter__``).

    >>> from teachgrad.utils.data import IterableDataset
    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> list(Count())
    [0, 1, 2]
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Tensors that share their first dimension: sample ``i`` is ``(t[i] for each t)``.

    >>> import teachgrad as torch
    >>> ds = torch.utils.data.TensorDataset(torch.tensor([[1., 2.], [3., 4.]]),
    ...                                     torch.tensor([0, 1]))
    >>> len(ds), ds[1]
    (2, (tensor([3., 4.]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            sizes = ", ".join(str(t.size(0)) for t in tensors)
            raise AssertionError(
                "Size mismatch between tensors"
                f"\nHint: every tensor needs one row per sample; their first dimensions are "
                f"{sizes}."
            )
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at the given ``indices`` (in that order).

    >>> from teachgrad.utils.data import Subset
    >>> sub = Subset([10, 11, 12, 13], indices=[3, 0])
    >>> len(sub), sub[0], sub[1]
    (2, 13, 10)
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other, as a single dataset.

    >>> from teachgrad.utils.data import ConcatDataset
    >>> both = ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(both), both[2], both[-1]
    (5, 3, 5)
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        # cumulative_sizes[k] = number of samples in datasets[0..k]; a bisection in it
        # finds which dataset holds a given index.
        self.cumulative_sizes = list(accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect_right(self.cumulative_sizes, idx)
        start = 0 if dataset_idx == 0 else self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][idx - start]


def random_split(dataset: Any, lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset]:
    """Split ``dataset`` at random into non-overlapping subsets of the given lengths.

    ``lengths`` are counts that add up to ``len(dataset)``, or fractions that add up to 1
    (the items left over by rounding down go to the first subsets, one each).
    ``teachgrad.manual_seed`` makes the split reproducible.

    >>> import teachgrad as torch
    >>> train, val = torch.utils.data.random_split(range(10), [0.8, 0.2])
    >>> len(train), len(val), sorted(list(train) + list(val)) == list(range(10))
    (8, 2, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warn_user(
                    f"Length of split at index {i} is 0. This might result in an empty "
                    "dataset.", UserWarning,
                )
    if sum(lengths) != len(dataset):
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset!"
            f"\nHint: the lengths add up to {sum(lengths)} but the dataset has "
            f"{len(dataset)} samples; fractions such as [0.8, 0.2] are also accepted."
        )
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(accumulate(lengths), lengths)]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, as one stream (nothing is copied)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Datasets of the same length side by side: sample i is ``(a[i], b[i], ...)`` (or a
    dict, for datasets given by name).

    >>> from teachgrad.utils.data import StackDataset
    >>> StackDataset(image=[10, 11], label=[0, 1])[1]
    {'image': 11, 'label': 1}
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                    "like input/output, but both types are given."
                )
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets: tuple | dict = args
        elif kwargs:
            values = list(kwargs.values())
            self._length = len(values[0])
            if any(self._length != len(dataset) for dataset in values):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


__all__ = [
    "ChainDataset", "StackDataset",
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
]
