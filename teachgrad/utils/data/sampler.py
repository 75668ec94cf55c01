"""Samplers: the order in which a DataLoader visits a dataset's indices.

``SequentialSampler`` gives ``0, 1, 2 ...``; ``RandomSampler`` a fresh permutation every
epoch (``shuffle=True``); ``BatchSampler`` groups any sampler's indices into lists of
``batch_size``. A DataLoader is just: for each list from the batch sampler, fetch those
samples and collate them into a batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from ..._random import Generator, _random_int64, randint, randperm

# The type of what a sampler yields: ``class BySize(Sampler[int])`` (typing only).
T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: a sampler is an iterable of dataset indices (``__iter__``, and usually
    ``__len__``). Generic in what it yields, as PyTorch's (``Sampler[int]``).

    >>> from teachgrad.utils.data import Sampler
    >>> class Backwards(Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n - 1, -1, -1))
    ...     def __len__(self):
    ...         return self.n
    >>> list(Backwards(3))
    [2, 1, 0]
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``, always in this order.

    >>> from teachgrad.utils.data import SequentialSampler
    >>> list(SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices in a random order, a new one each time it is iterated (each epoch).

    Without replacement, every index appears once per pass; with ``replacement=True``,
    ``num_samples`` indices are drawn independently. Without a ``generator``, each pass
    draws a seed from the default generator, so ``teachgrad.manual_seed`` makes the
    whole sequence of epochs reproducible.

    >>> import teachgrad as torch
    >>> sampler = torch.utils.data.RandomSampler(range(5))
    >>> sorted(sampler)
    [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            # A private generator seeded from the default one, as PyTorch does: one draw
            # per epoch from the global stream, whatever the length of the dataset.
            generator = Generator().manual_seed(_random_int64(None))
        if self.replacement:
            yield from randint(0, n, (self.num_samples,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a new one each pass).

    >>> import teachgrad as torch
    >>> sorted(torch.utils.data.SubsetRandomSampler([5, 7, 9]))
    [5, 7, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size`` (the last one may be
    shorter, or dropped with ``drop_last=True``).

    >>> from teachgrad.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        # bool is an int in Python, but batch_size=True is surely a mistake.
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size  # rounded up


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement by default): e.g. to see a rare class as often as a common one, weigh each
    sample by 1 / (its class's count).

    >>> from teachgrad.utils.data import WeightedRandomSampler
    >>> list(WeightedRandomSampler([0.0, 0.0, 1.0], 3))
    [2, 2, 2]
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        from ..._creation import as_tensor
        from ..._dtypes import double

        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=double)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ..._random import multinomial

        draws = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from iter(draws.tolist())

    def __len__(self) -> int:
        return self.num_samples


__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler",
           "BatchSampler"]
