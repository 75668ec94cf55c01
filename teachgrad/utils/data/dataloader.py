"""``DataLoader``: iterate over a dataset in (shuffled) mini-batches.

    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    for epoch in range(10):
        for xb, yb in loader:          # a new order every epoch when shuffle=True
            ...

Inside, it is three small pieces working together: a *sampler* yields indices (in order,
or shuffled), a ``BatchSampler`` groups them into lists of ``batch_size``, and for each list
the loader fetches ``dataset[i]`` for every index and hands the samples to ``collate_fn``
(by default :func:`~teachgrad.utils.data.default_collate`, which stacks them).

Everything happens in the main process: there are no worker processes (``num_workers > 0``
is accepted with a warning and changes nothing), so a loader is easy to step through in a
debugger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic

from ..._random import Generator, _random_int64
from ..._warn import warn_user
from .collate import default_collate, default_convert
from .dataset import IterableDataset, T_co
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


class DataLoader(Generic[T_co]):
    """Batches of samples from ``dataset``, one batch per iteration step.

    ``batch_size`` samples per batch (``None``: single samples, not batched);
    ``shuffle=True`` visits the samples in a new random order every epoch (reproducible
    with ``teachgrad.manual_seed`` or a ``generator``); ``drop_last=True`` skips a last
    batch that would be smaller than ``batch_size``; ``collate_fn`` turns a list of samples
    into a batch. ``sampler`` / ``batch_sampler`` choose the indices yourself.

    >>> import teachgrad as torch
    >>> from teachgrad.utils.data import DataLoader
    >>> loader = DataLoader([1.0, 2.0, 3.0, 4.0, 5.0], batch_size=2)
    >>> len(loader)
    3
    >>> [batch.tolist() for batch in loader]
    [[1.0, 2.0], [3.0, 4.0], [5.0]]
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler | Iterable | None = None, num_workers: int = 0,
                 collate_fn: Callable[[list], Any] | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # accepted for compatibility; there is no GPU to pin for
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers

        # An iterable-style dataset decides its own order: no sampler, no shuffling.
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )

        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        # "Auto-collation": batches are lists of samples to collate; otherwise every
        # sample passes on its own, only converted (NumPy -> tensors).
        self._auto_collation = batch_sampler is not None or (
            self._iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        """One epoch: yields every batch once (in a new order if shuffled)."""
        self._draw_base_seed()
        batches = self._iterate_stream() if self._iterable else self._iterate_indices()
        return _SingleProcessDataLoaderIter(self, batches)

    def _draw_base_seed(self) -> None:
        # PyTorch draws a seed for its worker processes whenever an epoch starts, workers
        # or not, from ``generator`` (else the default generator). teachgrad has no workers
        # but draws it too, so that the random numbers after a loop over a loader (dropout,
        # the next epoch's shuffle ...) come from where they do in PyTorch's stream.
        _random_int64(self.generator)

    def _iterate_indices(self) -> Iterator[Any]:
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        # A dataset may fetch many samples at once faster (PyTorch's __getitems__ hook).
        get_many = getattr(self.dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = get_many(indices) if get_many else [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def _iterate_stream(self) -> Iterator[Any]:
        if not self._auto_collation:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        """The number of batches in one epoch."""
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return (length + self.batch_size - 1) // self.batch_size
            return length
        return len(self.batch_sampler if self._auto_collation else self.sampler)


class _SingleProcessDataLoaderIter:
    """What ``iter(loader)`` gives (PyTorch's class of that name: teachgrad has no worker
    processes): the batches of one epoch, one per ``next()``, and ``len()`` of them.

    >>> import teachgrad as torch
    >>> batches = iter(torch.utils.data.DataLoader(torch.arange(5.), batch_size=2))
    >>> len(batches), next(batches)
    (3, tensor([0., 1.]))
    """

    def __init__(self, loader: DataLoader, batches: Iterator[Any]) -> None:
        self._loader = loader
        self._batches = batches
        self._num_yielded = 0

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __next__(self) -> Any:
        batch = next(self._batches)
        self._num_yielded += 1
        return batch

    def __len__(self) -> int:
        return len(self._loader)


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                          persistent_workers: bool) -> None:
    """The multiprocessing options: PyTorch's checks, and teachgrad has no workers."""
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers > 0:
        # Tutorials pass num_workers=2; the batches are the same without workers, so the
        # code runs as written (slower only when loading samples is itself slow).
        warn_user(
            f"teachgrad's DataLoader has no worker processes: num_workers={num_workers} is "
            "ignored and every batch is loaded in the main process (the batches are the same).",
            UserWarning,
        )
        return
    if prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let "
            "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if persistent_workers:
        raise ValueError("persistent_workers option needs num_workers > 0")


def get_worker_info() -> None:
    """Information about the current DataLoader worker process: ``None`` in the main
    process, and teachgrad's loaders always load in the main process."""
    return None


__all__ = ["DataLoader", "get_worker_info"]
